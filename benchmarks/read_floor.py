#!/usr/bin/env python3
"""Reading every byte of the peers' Packs folder (`tar cf - . | wc -c`): gbxfs
against ratarmount and against the floor of pyfuse3 itself, side by side.

    .venv/bin/python benchmarks/read_floor.py [--scale 1.0] [--keep DIR] [--rounds 2]
                                              [--checkout DIR ...] [--no-peers] [--no-floor]

Mounts, in turn and for several rounds (so all see the same load): gbxfs
(`-o gbx=file`) from this checkout and from each --checkout (another worktree
or an exported commit), ratarmount on the same files as a zip (peers.py), and
"floor": find_floor.py's pyfuse3 + trio file system holding the same tree
(names and sizes from the zip's directory, attributes made up front), whose
files read as zero bytes from memory: open, read and release do no work
(twice: with pyfuse3's own wait for requests, and with gbxfs's).
Each mount runs `find` first (as peers.py does), then the timed `tar`. Prints
the median and best wall time of the tar, the daemon's CPU seconds during it,
and of those the event loop thread's (the daemon's main thread: pyfuse3 and
trio answer every request there, so it bounds how fast requests are answered
one after another) for the mounts that have one. The floor's figures are
what the kernel round trips, pyfuse3 and trio cost by themselves for this
read: gbxfs cannot go below them. Not a test: run by hand.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

import find_floor
import peers


def _loop_cpu_s(pid: int) -> float:
    """CPU seconds of the main thread of `pid` (the event loop of a pyfuse3 daemon)."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def read_once(argv: list[str], pythonpath: str | None, mp: Path) -> tuple[float, float, float, str]:
    """(tar wall s, daemon CPU s, its main thread's CPU s, bytes) after a find."""
    with find_floor.mounted(argv, pythonpath, mp) as proc:
        peers._sh("find . | wc -l", str(mp))
        cpu, loop = peers._cpu_s(proc.pid), _loop_cpu_s(proc.pid)
        took, out = peers._sh("tar cf - . | wc -c", str(mp))
        return took, peers._cpu_s(proc.pid) - cpu, _loop_cpu_s(proc.pid) - loop, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--keep", help="where peers.py keeps (and reuses) the generated folder")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--checkout", action="append", default=[], help="another gbxfs tree to compare")
    ap.add_argument("--no-peers", action="store_true", help="gbxfs checkouts and the floor only")
    ap.add_argument("--no-floor", action="store_true", help="without the two floor mounts")
    a = ap.parse_args()
    folder = Path(a.keep or tempfile.mkdtemp(prefix="gbxfs-peers-"))
    packs, zpath, _, _ = peers.build(folder, a.scale)
    runs = find_floor.mounts(packs, zpath, a.checkout, ratarmount=not a.no_peers)
    if a.no_floor:
        runs = [r for r in runs if not r[0].startswith("floor")]
    got: dict[str, list[tuple[float, float, float, str]]] = {name: [] for name, _, _ in runs}
    for _ in range(a.rounds):
        for name, argv, path in runs:
            with tempfile.TemporaryDirectory(prefix="gbxfs-read-") as mpd:
                got[name].append(read_once(argv, path, Path(mpd)))
    print(f"tar cf - . | wc -c after a find, {a.rounds} rounds, scale {a.scale:g}; load {os.getloadavg()[0]:.1f}")
    print("| mount | bytes | tar wall s (median / best) | daemon CPU s (median / best) "
          "| main thread CPU s (median / best) |\n|---|---|---|---|---|")
    for name, res in got.items():
        walls, cpus, loops = [r[0] for r in res], [r[1] for r in res], [r[2] for r in res]
        # ratarmount (libfuse's own threads) has no event loop thread
        loop = "-" if name == "ratarmount" else f"{statistics.median(loops):.2f} / {min(loops):.2f}"
        print(f"| {name} | {res[0][3]} | {statistics.median(walls):.2f} / {min(walls):.2f} "
              f"| {statistics.median(cpus):.2f} / {min(cpus):.2f} | {loop} |")


if __name__ == "__main__":
    main()
