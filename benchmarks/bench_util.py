"""Shared pieces of the benchmarks: the corpus, timing, walking the tree,
peak RSS of a child process, and the result table."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPUS = Path(os.environ.get("GBXFS_CORPUS", ROOT.parent / "shared" / "corpus"))
GBX_KINDS = {"map", "replay", "ghost", "item", "other"}
READ_PIECE = 128 * 1024      # what the kernel asks a FUSE file system for at a time
MB = 1e6


def manifest() -> list[dict]:
    with (CORPUS / "MANIFEST.tsv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def best_of(n: int, fn: Callable[[], object]) -> float:
    """The fastest of n runs, in seconds (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


@dataclass
class WalkCount:
    dirs: int = 0
    files: int = 0
    bytes: int = 0
    errors: int = 0


def walk_all(entry, count: WalkCount | None = None) -> WalkCount:
    """List every folder, size and read every file (in READ_PIECE pieces) below
    `entry`; a file with an error, or whose read raises OSError, counts as an error."""
    from gbxfs.tree.model import Dir
    count = count or WalkCount()
    stack = [entry]
    while stack:
        e = stack.pop()
        if isinstance(e, Dir):
            count.dirs += 1
            stack.extend(e.children().values())
            continue
        count.files += 1
        size = e.size()
        if e.error:
            count.errors += 1
            continue
        try:
            for off in range(0, size, READ_PIECE):
                count.bytes += len(e.read(off, READ_PIECE))
        except OSError:           # refused when read (a mount answers EIO): e.g. a body too large
            count.errors += 1
    return count


def unmount(proc: subprocess.Popen, mp) -> None:
    """Unmount `mp`, wait for its daemon, and kill it (and detach the mount) if it
    does not end: every mount benchmark's clean-up."""
    subprocess.run(["fusermount3", "-u", str(mp)], check=False, capture_output=True)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        subprocess.run(["fusermount3", "-uz", str(mp)], check=False, capture_output=True)


def start_mount(cmd: list[str], mp: str, env: dict | None = None, timeout: float = 60,
                cwd: Path | None = None) -> subprocess.Popen:
    """Start a foreground mount command and wait until `mp` is a mount point;
    SystemExit with the daemon's stderr if it exits or takes longer than `timeout`."""
    # the daemon's log goes to a file: a pipe nobody drains fills up (64 KiB) and then
    # blocks the daemon's loop on its next log line, hanging every reader
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log, cwd=cwd)
    deadline = time.monotonic() + timeout
    while not os.path.ismount(mp):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.seek(0)
            raise SystemExit(f"mount failed: {log.read().decode(errors='replace')}")
        time.sleep(0.1)
    return proc


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb() -> float:
    """This process's peak RSS. VmHWM, not ru_maxrss: Linux keeps ru_maxrss across
    execve, so a child started by a big parent would report the parent's peak."""
    return _status_mb("VmHWM")


def current_rss_mb() -> float:
    return _status_mb("VmRSS")


def run_child(module: str, *args: str) -> dict:
    """Run `benchmarks/<module>.py --child ...` in a fresh interpreter; the JSON it prints last."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{module}.py"), "--child", *args],
                         check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[object]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *row: object) -> None:
        self.rows.append(list(row))

    def render(self) -> str:
        cells = [self.header] + [[_fmt(c) for c in r] for r in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.header))]
        lines = [self.title, "-" * len(self.title)]
        for i, r in enumerate(cells):
            lines.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
            if i == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines += [f"  {n}" for n in self.notes]
        return "\n".join(lines) + "\n"


def _fmt(c: object) -> str:
    if isinstance(c, float):
        return f"{c:.3g}" if abs(c) < 100 else f"{c:.0f}"
    return str(c)
