#!/usr/bin/env python3
"""What a user's whole-folder commands cost on a real mount of the corpus.

    .venv/bin/python benchmarks/corpus_walk.py [--checkout DIR ...] [--cache-mb N]
                                               [--only find,du,grep,readers] [--timeout S]
                                               [--readers N]

Mounts the corpus folder (../shared/corpus, or $GBXFS_CORPUS) with `gbxfs mount
-f` and the default options (plus cache_mb when given), then times, each on a
fresh mount so that no command profits from another's cache:
  find   `find . | wc -l`            (listings only)
  du     `du -sh .`                  (a stat of every entry: exact sizes)
  grep   `grep -r authorTime .`      (opens and reads every file), with the
         number of matching lines, and how many of them are in header/ dumps
  readers  (only with --only naming it) N concurrent readers (--readers, default
         16) over every GBX folder of the mount, body/nodes/ included (found by
         name, as a user opens it): each reader takes the next folder in path
         order and reads all its files; reported as files read and files per
         minute until all are read or --timeout (counted after the listing of
         the GBX folders, one thread) stops them. The reader
         count in flight at once is what makes a small cache thrash.
and the daemon's peak RSS (VmHWM) after each command, with the cache bound it
should stay inside (cache_mb + 100 MB).

--checkout names a gbxfs source tree to mount with (default: this one); give
it twice (e.g. the main worktree and this one) to measure before and after in
one run, side by side on the same machine load. A command that runs past
--timeout is stopped and reported as such. Not a test: run by hand.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_util import CORPUS, ROOT, start_mount, unmount

COMMANDS = {
    "find": "find . | wc -l",
    "du": "du -sh .",
    "grep": "grep -r authorTime . | tee /dev/stderr | wc -l",
}


def _status(pid: int, field: str) -> int:
    """A /proc/PID/status field in kB (0 once the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _mount(checkout: Path, mp: str, cache_mb: int | None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [sys.executable, "-c", "import sys; from gbxfs.cli import run; sys.exit(run())",
           "mount", str(CORPUS), mp, "-f"]
    if cache_mb is not None:
        cmd += ["-o", f"cache_mb={cache_mb}"]
    return start_mount(cmd, mp, env)


def _gbx_folders(mp: str) -> list[str]:
    """Every GBX folder of the mount (embedded ones too), in path order."""
    out = []
    for d, dirs, _ in os.walk(mp):
        dirs.sort()
        out += [os.path.join(d, x) for x in dirs if x.lower().endswith(".gbx")]
    return sorted(out)


def _read_folder(folder: str, stop: float) -> tuple[int, int]:
    """Read every file of one GBX folder (body/nodes/ too; not the GBX folders
    nested in it, which are folders of their own): (files, errors)."""
    files = errors = 0
    roots = [folder] + [os.path.join(folder, "body", "nodes")] * os.path.isdir(os.path.join(folder, "body", "nodes"))
    for root in roots:
        for d, dirs, names in os.walk(root):
            dirs[:] = sorted(x for x in dirs if not x.lower().endswith(".gbx"))
            for n in sorted(names):
                if time.monotonic() > stop:
                    return files, errors
                try:
                    with open(os.path.join(d, n), "rb") as f:
                        while f.read(1 << 17):
                            pass
                    files += 1
                except OSError:
                    errors += 1
    return files, errors


def _readers(mp: str, n: int, timeout: float) -> tuple[str, bool]:
    t0 = time.monotonic()
    folders = _gbx_folders(mp)
    listing = time.monotonic() - t0
    stop = time.monotonic() + timeout
    lock = threading.Lock()
    total = [0, 0, 0]           # files, errors, folders done

    def reader():
        while time.monotonic() < stop:
            with lock:
                if not folders:
                    return
                folder = folders.pop(0)
            f, e = _read_folder(folder, stop)
            with lock:
                total[0] += f
                total[1] += e
                total[2] += time.monotonic() <= stop
    todo = len(folders)
    threads = [threading.Thread(target=reader) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - stop + timeout
    return (f"{total[0]} files ({total[1]} errors), {total[2]} of {todo} GBX folders; "
            f"{total[0] / seconds * 60:.0f} files/min after {listing:.0f} s of listing"), total[2] == todo


def run_one(checkout: Path, what: str, cache_mb: int | None, timeout: float, readers: int = 16) -> dict:
    with tempfile.TemporaryDirectory(prefix="gbxfs-walk-") as mp:
        proc = _mount(checkout, mp, cache_mb)
        try:
            base = _status(proc.pid, "VmRSS")
            t0 = time.perf_counter()
            if what == "readers":
                out, done = _readers(mp, readers, timeout)
                return {"what": what, "seconds": time.perf_counter() - t0, "done": done, "out": out,
                        "rss0_mb": base / 1024, "peak_mb": _status(proc.pid, "VmHWM") / 1024}
            try:
                r = subprocess.run(["bash", "-c", COMMANDS[what]], cwd=mp, capture_output=True,
                                   text=True, timeout=timeout)
                out, err, done = r.stdout.strip(), r.stderr, True
            except subprocess.TimeoutExpired:
                out, err, done = "", "", False
            seconds = time.perf_counter() - t0
            peak = _status(proc.pid, "VmHWM")
            row = {"what": what, "seconds": seconds, "done": done, "out": out.split("\t")[0],
                   "rss0_mb": base / 1024, "peak_mb": peak / 1024}
            if what == "grep" and done:
                lines = [ln for ln in err.splitlines() if ln]
                row["header_hits"] = sum("/header/" in ln for ln in lines)
            return row
        finally:
            unmount(proc, mp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", action="append", type=Path,
                    help="gbxfs source tree to mount with (repeatable; default: this one)")
    ap.add_argument("--cache-mb", type=int, default=None, help="mount option cache_mb (default: the mount's)")
    ap.add_argument("--only", default="find,du,grep")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per command")
    ap.add_argument("--readers", type=int, default=16, help="concurrent readers of the readers command")
    args = ap.parse_args()
    checkouts = args.checkout or [ROOT]
    bound = (args.cache_mb or 256) + 100
    print(f"corpus {CORPUS}; cache_mb={args.cache_mb or 'default (256)'}; "
          f"RSS bound {bound} MB", flush=True)
    print("| checkout | command | seconds | output | grep hits in header/ | peak RSS MB | within bound |")
    print("|---|---|---:|---|---:|---:|---|")
    for what in args.only.split(","):
        for co in checkouts:
            row = run_one(co.resolve(), what, args.cache_mb, args.timeout, args.readers)
            secs = f"{row['seconds']:.1f}" if row["done"] else f"> {args.timeout:.0f} (stopped)"
            cmd = f"{args.readers} readers" if what == "readers" else COMMANDS[what].split(' |')[0]
            print(f"| {co} | `{cmd}` | {secs} | {row['out']} | "
                  f"{row.get('header_hits', '')} | {row['peak_mb']:.0f} | "
                  f"{'yes' if row['peak_mb'] <= bound else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
