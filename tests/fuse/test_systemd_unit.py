"""systemd/gbxfs@.service: systemd accepts it, and its command line, run the
way systemd runs it (env file values, NOTIFY_SOCKET, SIGTERM), mounts and
unmounts."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mountkit import TIMEOUT
from gbxfs.fuse.mountinfo import find_mount

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "gbxfs@.service"
VENV_GBXFS = Path(sys.executable).parent / "gbxfs"


def _unit_for_here(tmp_path: Path) -> Path:
    """The unit as an instance file, with the program path of this checkout
    (verify checks that the executable exists)."""
    if not VENV_GBXFS.exists():
        pytest.skip(f"{VENV_GBXFS} is not installed (pip install -e .)")
    path = tmp_path / "gbxfs@demo.service"
    path.write_text(UNIT.read_text().replace("/usr/local/bin/gbxfs", str(VENV_GBXFS)))
    return path


def test_systemd_analyze_verify(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not available")
    unit = _unit_for_here(tmp_path)
    res = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    complaints = [line for line in (res.stdout + res.stderr).splitlines() if unit.name in line]
    assert complaints == []


def _exec_start(env: dict[str, str]) -> list[str]:
    line = next(l for l in UNIT.read_text().splitlines() if l.startswith("ExecStart="))
    words = line.split("=", 1)[1].split()
    # systemd: "${VAR}" is replaced by the value as one word
    return [re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], w) for w in words]


@pytest.mark.mount
def test_the_units_command_line_mounts_and_notifies(mounter, tmp_path):
    _unit_for_here(tmp_path)
    src = tmp_path / "Packs dir"          # a space: ${SOURCE} must stay one word
    src.mkdir()
    (src / "a.txt").write_text("a")
    mp = mounter.new_mountpoint()
    argv = _exec_start({"SOURCE": str(src), "MOUNTPOINT": mp, "OPTIONS": "gbx=folder,cache_mb=32"})
    assert argv[0] == "/usr/local/bin/gbxfs" and "-f" in argv
    argv[0] = str(VENV_GBXFS)
    sock_path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(sock_path)
        sock.settimeout(TIMEOUT)
        proc = subprocess.Popen(argv, env=dict(os.environ, NOTIFY_SOCKET=sock_path),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        mounter.procs.append(proc)
        assert sock.recv(4096) == b"READY=1"
    assert os.listdir(mp) == ["a.txt"]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=TIMEOUT) == 0
    assert find_mount(mp) is None
