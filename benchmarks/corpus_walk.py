#!/usr/bin/env python3
"""What a user's whole-folder commands cost on a real mount of the corpus.

    .venv/bin/python benchmarks/corpus_walk.py [--checkout DIR ...] [--cache-mb N]
                                               [--only find,du,grep] [--timeout S]

Mounts the corpus folder (../shared/corpus, or $GBXFS_CORPUS) with `gbxfs mount
-f` and the default options (plus cache_mb when given), then times, each on a
fresh mount so that no command profits from another's cache:
  find   `find . | wc -l`            (listings only)
  du     `du -sh .`                  (a stat of every entry: exact sizes)
  grep   `grep -r authorTime .`      (opens and reads every file), with the
         number of matching lines, and how many of them are in header/ dumps
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("GBXFS_CORPUS", ROOT.parent / "shared" / "corpus"))

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
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not os.path.ismount(mp):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"mount failed: {proc.stderr.read().decode(errors='replace')}")
        time.sleep(0.1)
    return proc


def _unmount(proc: subprocess.Popen, mp: str) -> None:
    subprocess.run(["fusermount3", "-u", mp], check=False, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        subprocess.run(["fusermount3", "-uz", mp], check=False, stderr=subprocess.DEVNULL)


def run_one(checkout: Path, what: str, cache_mb: int | None, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="gbxfs-walk-") as mp:
        proc = _mount(checkout, mp, cache_mb)
        try:
            base = _status(proc.pid, "VmRSS")
            t0 = time.perf_counter()
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
            _unmount(proc, mp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", action="append", type=Path,
                    help="gbxfs source tree to mount with (repeatable; default: this one)")
    ap.add_argument("--cache-mb", type=int, default=None, help="mount option cache_mb (default: the mount's)")
    ap.add_argument("--only", default="find,du,grep")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per command")
    args = ap.parse_args()
    checkouts = args.checkout or [ROOT]
    bound = (args.cache_mb or 256) + 100
    print(f"corpus {CORPUS}; cache_mb={args.cache_mb or 'default (256)'}; "
          f"RSS bound {bound} MB", flush=True)
    print("| checkout | command | seconds | output | grep hits in header/ | peak RSS MB | within bound |")
    print("|---|---|---:|---|---:|---:|---|")
    for what in args.only.split(","):
        for co in checkouts:
            row = run_one(co.resolve(), what, args.cache_mb, args.timeout)
            secs = f"{row['seconds']:.1f}" if row["done"] else f"> {args.timeout:.0f} (stopped)"
            print(f"| {co} | `{COMMANDS[what].split(' |')[0]}` | {secs} | {row['out']} | "
                  f"{row.get('header_hits', '')} | {row['peak_mb']:.0f} | "
                  f"{'yes' if row['peak_mb'] <= bound else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
