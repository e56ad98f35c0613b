#!/usr/bin/env python3
"""All of gbxfs's own benchmarks in one table (not part of the test suite).

    .venv/bin/python benchmarks/run.py [--quick] [--only parse,walk,memory]

parse   GBX parse throughput over the corpus, and the ratio to pygbx
        (pip install -e .[bench]) on the maps it supports   (bench_parse.py)
walk    list + read everything under the corpus tree vs cp -r  (bench_walk.py)
memory  peak RSS reading large generated GBX/pak files through the tree
                                                               (bench_memory.py)
--peers [--scale 1.0] [--keep DIR]: instead of the above, gbxfs against
        ratarmount and fuse-zip on a generated Packs folder (peers.py)
--quick: one run per measurement and 16 MiB files (a smoke run, noisier).
The pak and FUSE layers have their own: benchmarks/pak_extract.py and
benchmarks/fs_mount.py. Results measured on the project's machine are in
benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import platform
import time

import bench_memory
import bench_parse
import bench_walk
import peers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="parse,walk,memory")
    ap.add_argument("--peers", action="store_true", help="gbxfs vs ratarmount and fuse-zip (peers.py)")
    ap.add_argument("--scale", type=float, default=1.0, help="--peers: fraction of the 30,000 files")
    ap.add_argument("--keep", help="--peers: keep the generated folder here (and reuse it)")
    args = ap.parse_args()
    if args.peers:
        print(peers.run(args.scale, args.keep), flush=True)
        return
    which = set(args.only.split(","))
    repeat = 1 if args.quick else 3
    print(f"gbxfs benchmarks, {time.strftime('%Y-%m-%d %H:%M')}, Python {platform.python_version()}, "
          f"{platform.machine()}\n")
    if "parse" in which:
        for t in bench_parse.run(repeat):
            print(t.render(), flush=True)
    if "walk" in which:
        for t in bench_walk.run(repeat):
            print(t.render(), flush=True)
    if "memory" in which:
        for t in bench_memory.run(16 if args.quick else 64):
            print(t.render(), flush=True)


if __name__ == "__main__":
    main()
