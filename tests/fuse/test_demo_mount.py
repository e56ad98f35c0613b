"""gbxfs demo mounts the demo folder, prints what to try, and cleans up on Ctrl-C."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest


@pytest.mark.mount
def test_demo_command_mounts_prints_and_cleans_up(mounter):
    mp = mounter.new_mountpoint()
    proc = subprocess.Popen([sys.executable, "-m", "gbxfs", "demo", mp], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    mounter.procs.append(proc)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Ctrl-C"):
            break
    out = "".join(lines)
    packs = re.search(r"gbxfs demo: (\S+) is mounted on", out).group(1)
    assert "thumbnail.jpg" in out and os.path.isdir(packs)
    assert sorted(os.listdir(mp)) == ["Demo.pak", "DemoMap.Challenge.Gbx", "maps.csv", "packlist.dat"]
    with open(os.path.join(mp, "maps.csv"), encoding="utf-8") as f:     # the index, through FUSE
        table = f.read().splitlines()
    assert table[0].startswith("file,name,") and table[1].startswith("DemoMap.Challenge.Gbx,")
    assert os.path.getsize(os.path.join(mp, "maps.csv")) == len("\n".join(table).encode()) + 1
    assert os.path.getsize(os.path.join(mp, "DemoMap.Challenge.Gbx", "thumbnail.jpg")) > 1000
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert not os.path.exists(os.path.dirname(packs))
    assert os.listdir(mp) == []


@pytest.mark.mount
def test_demo_makes_a_missing_mountpoint_and_removes_it_on_ctrl_c(mounter, tmp_path):
    mp = str(tmp_path / "not-there-yet")
    proc = subprocess.Popen([sys.executable, "-m", "gbxfs", "demo", mp], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    mounter.procs.append(proc)
    for line in proc.stdout:
        if line.startswith("Ctrl-C"):
            break
    assert "maps.csv" in os.listdir(mp)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert not os.path.exists(mp)     # made for the demo, so gone with it, as `gbxfs mount` does
