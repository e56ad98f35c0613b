"""A reader of stdout that goes away (`gbxfs ... | head`) ends no command with an
internal error, and costs extract none of its files: what it wrote is counted as
written (stderr's totals, exit 0), not as failed."""
from __future__ import annotations

import subprocess
import sys

from gbxfs.cli.demo_files import build_demo


def run_with_reader_gone(*args) -> tuple[int, str]:
    proc = subprocess.Popen([sys.executable, "-m", "gbxfs", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()      # the reader leaves before the first line
    err = proc.stderr.read()
    proc.stderr.close()
    return proc.wait(timeout=120), err


def test_info_json_into_a_closed_pipe_ends_as_usual(tmp_path):
    packs = build_demo(tmp_path)
    rc, err = run_with_reader_gone("info", "--json", packs / "DemoMap.Challenge.Gbx")
    assert (rc, err) == (0, "")


def test_extract_into_a_closed_pipe_writes_and_counts_every_file(tmp_path):
    packs = build_demo(tmp_path / "demo")
    rc, err = run_with_reader_gone("extract", packs, tmp_path / "out")
    assert err.splitlines() == ["gbxfs extract: 6 files written (23016 bytes), 0 skipped as identical, "
                                "0 not overwritten, 0 failed"]
    assert rc == 0 and len([p for p in (tmp_path / "out").rglob("*") if p.is_file()]) == 6
