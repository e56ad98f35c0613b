"""Real mounts for the tests: the gbxfs command, waiting, and the Mounter that
always unmounts in teardown (fixtures in tests/fuse/conftest.py)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gbxfs.fuse.mountinfo import find_mount

GBXFS = [sys.executable, "-m", "gbxfs"]
TIMEOUT = 60


def gbxfs(*args: str, check: bool = False, timeout: float = TIMEOUT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*GBXFS, *args], capture_output=True, text=True, timeout=timeout,
                          check=check, **kw)


def server_pids(mountpoint: str) -> list[int]:
    """Processes whose command line names this mount point (the gbxfs server)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            with open(f"/proc/{d}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z" and os.fsencode(mountpoint) in args and any(b"gbxfs" in a for a in args):
            pids.append(int(d))
    return pids


def wait_until(predicate, timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def force_unmount(mountpoint: str) -> None:
    if find_mount(mountpoint) is None:
        return
    subprocess.run(["fusermount3", "-u", "-z", mountpoint], capture_output=True, timeout=TIMEOUT)
    if find_mount(mountpoint) is not None and os.geteuid() == 0:
        subprocess.run(["umount", "-l", mountpoint], capture_output=True, timeout=TIMEOUT)


class Mounter:
    """Mounts for one test; everything it mounted or started is cleaned up."""

    def __init__(self, base: Path):
        self.base = base
        self.mountpoints: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self.n = 0

    def new_mountpoint(self) -> str:
        self.n += 1
        mp = self.base / f"mnt{self.n}"
        mp.mkdir()
        self.mountpoints.append(str(mp))
        return str(mp)

    def mount(self, source, *options: str, mountpoint: str | None = None) -> str:
        """`gbxfs SOURCE MP [-o ...]`: returns once usable (the command's contract)."""
        mp = mountpoint or self.new_mountpoint()
        if mp not in self.mountpoints:
            self.mountpoints.append(mp)
        args = [str(source), mp]
        for o in options:
            args += ["-o", o]
        res = gbxfs(*args)
        assert res.returncode == 0, f"mount failed ({res.returncode}): {res.stderr}"
        assert find_mount(mp) is not None, "gbxfs returned 0 but nothing is mounted"
        return mp

    def foreground(self, source, *extra: str, env: dict | None = None) -> tuple[str, subprocess.Popen]:
        """`gbxfs mount SOURCE MP -f`, waited on until the mount answers."""
        mp = self.new_mountpoint()
        proc = subprocess.Popen([*GBXFS, "mount", str(source), mp, "-f", *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.procs.append(proc)
        try:
            wait_until(lambda: find_mount(mp) is not None or proc.poll() is not None, what="the mount")
            assert proc.poll() is None, proc.stderr.read().decode()
            os.listdir(mp)   # blocks until the server answers
        except BaseException:
            proc.kill()
            raise
        return mp, proc

    def cleanup(self) -> None:
        for mp in self.mountpoints:
            try:
                force_unmount(mp)
            except Exception:
                pass
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=TIMEOUT)
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        for mp in self.mountpoints:
            for pid in server_pids(mp):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
