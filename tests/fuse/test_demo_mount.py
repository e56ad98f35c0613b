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


@pytest.mark.mount
@pytest.mark.parametrize("mode", ["folder", "file"])
def test_every_command_the_demo_prints_works(mounter, tmp_path, mode):
    mp = mounter.new_mountpoint()
    proc = subprocess.Popen([sys.executable, "-m", "gbxfs", "demo", mp, "-o", f"gbx={mode}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    mounter.procs.append(proc)
    tries = []
    for line in proc.stdout:
        if line.startswith("Ctrl-C"):
            break
        if line.startswith("  "):
            tries.append(line.strip())
    assert len(tries) >= 7
    home = tmp_path / "home"
    home.mkdir()
    bindir = os.path.dirname(sys.executable)        # `gbxfs` as the printed lines call it
    env = {**os.environ, "HOME": str(home), "PATH": bindir + os.pathsep + os.environ["PATH"]}
    for cmd in tries:
        if cmd.startswith("getfattr") and not _has("getfattr"):
            continue
        if cmd.startswith("file ") and not _has("file"):
            continue
        run = subprocess.run(cmd, shell=True, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (cmd, run.stderr)
        assert run.stdout or cmd.startswith(("cp ", "gbxfs thumbnail")), cmd
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()


def _has(tool: str) -> bool:
    from shutil import which
    return which(tool) is not None
