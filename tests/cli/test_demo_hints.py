"""Every line `gbxfs demo` tells the user to try runs as printed, in a shell
whose PATH has the gbxfs command (what scripts/setup gives a login shell)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest


pytestmark = pytest.mark.mount
BIN = Path(sys.executable).parent


def test_every_hint_of_the_demo_runs_as_printed(mounter, tmp_path):
    if not (BIN / "gbxfs").exists():
        pytest.skip(f"{BIN / 'gbxfs'} is not installed (scripts/setup)")
    missing = [tool for tool in ("getfattr", "file", "grep") if shutil.which(tool) is None]
    assert not missing, f"scripts/setup installs {missing}"
    mp = mounter.new_mountpoint()
    proc = subprocess.Popen([sys.executable, "-m", "gbxfs", "demo", mp], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    mounter.procs.append(proc)
    hints, started = [], False
    for line in proc.stdout:
        if line.startswith("Ctrl-C"):
            break
        if started and line.strip():
            hints.append(line.strip())
        started = started or line.startswith("Try, in another terminal")
    assert len(hints) >= 8
    env = {"HOME": str(tmp_path), "PATH": f"{BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for hint in hints:
        res = subprocess.run(["bash", "-c", hint], env=env, capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
        assert res.returncode == 0 and (res.stdout or hint.startswith("cp ")), (hint, res.stderr)
    assert (tmp_path / "gbxfs-demo-copy" / "Demo").is_dir()
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert os.listdir(mp) == []
