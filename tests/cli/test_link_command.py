"""scripts/setup makes `gbxfs` a command of the user (scripts/link-command): a
link in ~/.local/bin, and a word on how to put that on PATH when a login shell
does not have it; after that, `gbxfs` runs in a new login shell as the README
prints it. Run with a HOME of its own."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "link-command"
TARGET = ROOT / ".venv" / "bin" / "gbxfs"
DEBIAN_PROFILE = """
if [ -d "$HOME/.local/bin" ] ; then
    PATH="$HOME/.local/bin:$PATH"
fi
"""

pytestmark = pytest.mark.skipif(not TARGET.exists(), reason=f"{TARGET} is missing (run scripts/setup)")


def link_command(home: Path) -> str:
    res = subprocess.run(["bash", str(SCRIPT)], env={"HOME": str(home), "PATH": os.environ["PATH"]},
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout


def in_login_shell(home: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["env", "-i", f"HOME={home}", "bash", "-lc", command], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_the_command_works_in_a_new_login_shell(tmp_path):
    (tmp_path / ".profile").write_text(DEBIAN_PROFILE)
    said = link_command(tmp_path)
    assert os.readlink(tmp_path / ".local/bin/gbxfs") == str(TARGET)
    assert "is on the PATH of a login shell" in said
    res = in_login_shell(tmp_path, "gbxfs --version")
    assert res.returncode == 0 and res.stdout.startswith("gbxfs "), res.stderr


def test_without_it_on_path_it_says_how_and_that_works(tmp_path):
    said = link_command(tmp_path)
    assert "is not on your PATH yet" in said
    assert in_login_shell(tmp_path, "gbxfs --version").returncode != 0
    line = said.strip().splitlines()[-1].strip()
    assert line.startswith("echo ")
    subprocess.run(["bash", "-c", line], env={"HOME": str(tmp_path)}, check=True, timeout=60)
    res = in_login_shell(tmp_path, "gbxfs --version")
    assert res.returncode == 0 and res.stdout.startswith("gbxfs "), res.stderr


def test_a_link_to_another_installation_is_left_alone(tmp_path):
    other = tmp_path / "other" / "gbxfs"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\n")
    (tmp_path / ".local/bin").mkdir(parents=True)
    os.symlink(other, tmp_path / ".local/bin/gbxfs")
    assert "left alone" in link_command(tmp_path)
    assert os.readlink(tmp_path / ".local/bin/gbxfs") == str(other)
    assert "already there" not in link_command(tmp_path)
