"""gbxfs mount / umount: argument handling and documented exit codes."""
from __future__ import annotations

import subprocess
import sys

import pytest
from requires import require_fuse

GBXFS = [sys.executable, "-m", "gbxfs"]


def run(*args):
    return subprocess.run([*GBXFS, *args], capture_output=True, text=True, timeout=60)


def test_missing_source_is_not_found(tmp_path):
    res = run(str(tmp_path / "nope"), str(tmp_path))
    assert res.returncode == 3 and "no such file" in res.stderr


def test_mountpoint_must_be_a_directory(tmp_path):
    (tmp_path / "f").write_text("x")
    res = run("mount", str(tmp_path), str(tmp_path / "f"))
    assert res.returncode == 3 and "not a directory" in res.stderr


def test_unknown_option_is_a_usage_error(tmp_path):
    res = run(str(tmp_path), str(tmp_path), "-o", "gbx=folder,frobnicate")
    assert res.returncode == 2 and "frobnicate" in res.stderr
    assert run("mount").returncode == 2


def test_a_plain_file_cannot_be_mounted(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "mp").mkdir()
    res = run(str(tmp_path / "notes.txt"), str(tmp_path / "mp"))
    assert res.returncode == 4 and "neither a folder" in res.stderr


@pytest.mark.mount
def test_libfuse_refusal_is_mount_failed(tmp_path):
    require_fuse()
    (tmp_path / "mp").mkdir()
    res = run(str(tmp_path), str(tmp_path / "mp"), "-o", "max_read=lots")
    assert res.returncode == 5 and "cannot mount" in res.stderr


def test_a_pyfuse3_other_than_the_tested_one_is_mount_failed(tmp_path):
    """Refused at start-up, before the source is even read, and saying which
    release is installed and which one is wanted (fuse/runner.py)."""
    pytest.importorskip("pyfuse3")
    from gbxfs.fuse.runner import PYFUSE3_VERSION

    (tmp_path / "mp").mkdir()
    other = [sys.executable, "-c", "import sys, pyfuse3; pyfuse3.__version__ = '3.99.1'; "
                                   "from gbxfs.cli import main; sys.exit(main())"]
    res = subprocess.run([*other, "mount", "-f", str(tmp_path), str(tmp_path / "mp")],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 5
    assert "pyfuse3 3.99.1 is installed" in res.stderr and f"pyfuse3=={PYFUSE3_VERSION}" in res.stderr
    assert not (tmp_path / "mp").is_mount()


def test_umount_usage():
    assert run("umount").returncode == 2
