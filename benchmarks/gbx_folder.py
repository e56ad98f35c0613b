#!/usr/bin/env python3
"""A Tracks folder of many maps and replays through a fresh mount, beside the
same plain folder.

    .venv/bin/python benchmarks/gbx_folder.py [--maps 20000] [--replays 2000] [--keep DIR]
                                              [--checkout DIR ...] [--rounds N]

Builds DIR/Tracks with MAPS map files and REPLAYS replay files, hard links to
copies of the corpus's maps and replays (DIR/sources) taken in turn (so the
folder costs no space; linking to the corpus's files themselves would make their
ctime move whenever anything else links or unlinks them, and a mount rightly
sees each such file as changed),
then, each on a fresh mount (`gbxfs mount -f`) and on the plain folder:
  ls            `ls MP` (readdirplus of the folder; no stat)
  find -maxdepth 2   every GBX folder's top level listed
  find          the whole tree (body/nodes/, embedded/ and ghosts/ are found by
                name, not listed: a whole-tree walk reads headers only)
  cat maps.csv  the index of the folder (a header read per map)
  first map folder   `ls MP/<one map>` right after mounting
and the daemon's RSS after each (VmRSS, and VmHWM at the end) and its CPU
seconds (user + system, mounting included). Times are wall-clock seconds of one
run each (a fresh mount cannot be repeated without remounting): --rounds N runs
each measure N times and prints every run and the median. --checkout DIR (given
once or more) mounts from another gbxfs source tree too, in turns with this one
within each round, so that the trees meet the same load. Not a test: run by
hand, on a quiet machine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_util import start_mount, unmount  # noqa: E402
from corpusdata import CORPUS, manifest_rows  # noqa: E402

COMMANDS = {
    "ls": "ls {d} | wc -l",
    "find -maxdepth 2": "find {d} -maxdepth 2 | wc -l",
    "find": "find {d} | wc -l",
    "cat maps.csv": "cat {d}/maps.csv | wc -l",
}


def build(folder: Path, maps: int, replays: int) -> Path:
    tracks = folder / "Tracks"
    if tracks.is_dir() and len(os.listdir(tracks)) == maps + replays:
        return tracks
    tracks.mkdir(parents=True, exist_ok=True)
    rows = manifest_rows()
    copies = folder / "sources"
    copies.mkdir(exist_ok=True)
    sources: dict[str, list[Path]] = {"Map": [], "Replay": []}
    for i, r in enumerate(rows):
        kind = {"map": "Map", "replay": "Replay"}.get(r["kind"])
        if kind is not None:
            copy = copies / f"{i}.{kind}.Gbx"
            if not copy.exists():
                shutil.copyfile(CORPUS / r["path"], copy)
            sources[kind].append(copy)
    for kind, n in (("Map", maps), ("Replay", replays)):
        for i in range(n):
            link = tracks / f"{kind.lower()}{i:06d}.{kind}.Gbx"
            if not link.exists():
                os.link(sources[kind][i % len(sources[kind])], link)
    return tracks


def status_mb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return 0


def timed(cmd: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=3600)
    return time.perf_counter() - t0, r.stdout.strip()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fresh(tracks: Path, what: str, cache_mb: int | None, tree: Path = ROOT) -> tuple[float, str, int, int, float]:
    """(seconds, output, RSS after, peak RSS, daemon CPU seconds) of one command on
    a fresh mount of gbxfs from source tree `tree`."""
    with tempfile.TemporaryDirectory() as mp:
        cmd = [sys.executable, "-m", "gbxfs", "mount", str(tracks), mp, "-f"]
        if cache_mb:
            cmd += ["-o", f"cache_mb={cache_mb}"]
        # run from the tree itself: `python -m` puts the working folder before PYTHONPATH
        proc = start_mount(cmd, mp, env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree)
        try:
            first_map = next(n for n in sorted(os.listdir(tracks)) if n.endswith(".Map.Gbx"))
            shell = f"ls {mp}/{first_map} | wc -l" if what == "first map folder" else COMMANDS[what].format(d=mp)
            secs, out = timed(shell)
            return secs, out, status_mb(proc.pid, "VmRSS"), status_mb(proc.pid, "VmHWM"), cpu_seconds(proc.pid)
        finally:
            unmount(proc, mp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", type=int, default=20000)
    ap.add_argument("--replays", type=int, default=2000)
    ap.add_argument("--keep", type=Path, help="build the folder here and keep it (reused when complete)")
    ap.add_argument("--cache-mb", type=int)
    ap.add_argument("--only", help="comma-separated measures (ls, find -maxdepth 2, find, cat maps.csv, "
                                   "first map folder)")
    ap.add_argument("--checkout", action="append", type=Path, default=[],
                    help="another gbxfs source tree to mount from, in turns with this one")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    trees = [ROOT, *(t.resolve() for t in args.checkout)]
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        t0 = time.perf_counter()
        tracks = build(base, args.maps, args.replays)
        print(f"folder: {args.maps} maps + {args.replays} replays (hard links), built in "
              f"{time.perf_counter() - t0:.1f} s; load average {os.getloadavg()[0]:.1f}", flush=True)
        wanted = args.only.split(",") if args.only else [*COMMANDS, "first map folder"]
        print("| what | tree | gbxfs, fresh mount | daemon CPU | daemon RSS after / peak | plain folder |")
        print("|---|---|---|---|---|---|")
        runs: dict[tuple[str, Path], list[tuple[float, float]]] = {}
        for what in wanted:
            for r in range(args.rounds):
                # in turns, the first tree moving each round: no tree always runs first
                for tree in trees[r % len(trees):] + trees[:r % len(trees)]:
                    secs, out, rss, hwm, cpu = fresh(tracks, what, args.cache_mb, tree)
                    runs.setdefault((what, tree), []).append((secs, cpu))
                    plain = f"{timed(COMMANDS[what].format(d=tracks))[0]:.2f} s" if what in COMMANDS else "-"
                    print(f"| `{what}` | {tree.name} | {secs:.2f} s ({out.splitlines()[-1] if out else '-'} lines) "
                          f"| {cpu:.1f} s | {rss} / {hwm} MB | {plain} |", flush=True)
        if args.rounds > 1:
            print("\nmedians (wall / daemon CPU):")
            for (what, tree), got in runs.items():
                print(f"  {what:18} {tree.name:12} {statistics.median(s for s, _ in got):6.2f} s "
                      f"/ {statistics.median(c for _, c in got):6.2f} s  ({len(got)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
