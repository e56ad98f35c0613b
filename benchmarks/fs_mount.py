#!/usr/bin/env python3
"""Cost of going through the mount, as ratios to the same work without it.

    .venv/bin/python benchmarks/fs_mount.py [--files 2000] [--mb 64] [--targets]

Builds a scratch folder (many small files in one directory, one large file,
a pak with the project's writer), mounts it with `gbxfs SOURCE MP`, and
times, each on the mount and on the reference:
  listing   os.scandir + stat of every small file   (reference: the real folder)
  stat      os.stat of every small file, warm         (reference: the real folder)
  read      reading the large file once, 1 MiB reads, right after mounting
            (reference: the same file read in-process through the tree in the
            kernel's 128 KiB requests: the cost of the FUSE round trips)
  pak read  reading every entry of a pak nothing was read from yet, after a
            warm-up pak (so imports and one-time set-up are not counted)
            (reference: the same tree read in-process, no FUSE: the cost of
            the FUSE layer over decryption)
Ratios (mount / reference) are what to compare between versions; absolute
times depend on the machine. With --targets, exit 1 when a ratio exceeds its
target (listing 10x, stat 10x, read 20x, pak read 3x: a FUSE round trip
costs tens of microseconds where the kernel's own file system answers in a
few; stats and listings mostly hit the kernel's caches).
Not a test: run by hand.
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
sys.path.insert(0, str(ROOT))

TARGETS = {"listing": 10.0, "stat": 10.0, "read": 20.0, "pak read": 3.0}


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def listing(folder: str) -> None:
    with os.scandir(folder) as it:
        for de in it:
            de.stat()


def stat_all(folder: str, names: list[str]) -> None:
    for n in names:
        os.stat(os.path.join(folder, n))


def read_file(path: str) -> None:
    with open(path, "rb", buffering=0) as f:
        while f.read(1 << 20):
            pass


def chunked_tree_read(src: Path) -> None:
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve

    f = resolve(build_tree(str(src)), "big.bin")
    for off in range(0, f.size(), 128 << 10):
        f.read(off, 128 << 10)


def read_tree_files(root: str) -> int:
    total = 0
    for dirpath, _, files in os.walk(root):
        for n in files:
            with open(os.path.join(dirpath, n), "rb") as f:
                total += len(f.read())
    return total


def build(src: Path, files: int, mb: int) -> None:
    from gbxfs.formats.pak.writer import PakFile, write_packs

    small = src / "many"
    small.mkdir(parents=True)
    for i in range(files):
        (small / f"f{i:06}.txt").write_bytes(b"x" * (i % 300))
    with open(src / "big.bin", "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(mb):
            f.write(block)
    entries = [PakFile(f"Bench/Data/e{i}.bin", os.urandom(256 << 10), compress=i % 2 == 0) for i in range(16)]
    warm = [PakFile("Warm/w.bin", b"warm-up" * 100)]
    write_packs(src / "Packs", {"Bench": entries, "Warm": warm})


def mount(src: Path, mp: Path) -> None:
    subprocess.run([sys.executable, "-m", "gbxfs", str(src), str(mp)], check=True, timeout=60)


def umount(mp: Path) -> None:
    subprocess.run([sys.executable, "-m", "gbxfs", "umount", str(mp)], check=False, timeout=60)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--targets", action="store_true")
    args = ap.parse_args()

    from gbxfs.tree.model import Dir
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve

    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="gbxfs-bench-") as tmp:
        src, mp = Path(tmp) / "src", Path(tmp) / "mnt"
        mp.mkdir()
        build(src, args.files, args.mb)
        names = sorted(os.listdir(src / "many"))

        read_file(str(src / "big.bin"))   # the source in the page cache
        mount(src, mp)
        try:
            t0 = time.perf_counter()
            read_file(str(mp / "big.bin"))
            results["read"] = (time.perf_counter() - t0, timed(lambda: chunked_tree_read(src)))
            results["listing"] = (timed(lambda: listing(str(mp / "many"))), timed(lambda: listing(str(src / "many"))))
            results["stat"] = (timed(lambda: stat_all(str(mp / "many"), names)),
                               timed(lambda: stat_all(str(src / "many"), names)))
        finally:
            umount(mp)

        def tree_read() -> None:   # (times the warm-up too: the reference is a bit generous)
            tree = build_tree(str(src))
            resolve(tree, "Packs/Warm.pak/Warm/w.bin").read(0, 700)
            pak = resolve(tree, "Packs/Bench.pak")

            def walk(d):
                for e in d.children().values():
                    if isinstance(e, Dir):
                        walk(e)
                    else:
                        e.read(0, e.size())
            walk(pak)

        def mount_read() -> None:   # a fresh mount each time: nothing decrypted yet
            mount(src, mp)
            try:
                read_tree_files(str(mp / "Packs" / "Warm.pak"))
                t0 = time.perf_counter()
                read_tree_files(str(mp / "Packs" / "Bench.pak"))
                mount_read.elapsed = min(getattr(mount_read, "elapsed", 1e9), time.perf_counter() - t0)
            finally:
                umount(mp)

        for _ in range(3):
            mount_read()
        results["pak read"] = (mount_read.elapsed, timed(tree_read))

    failed = False
    print(f"{'what':10} {'mount':>10} {'reference':>10} {'ratio':>7}  target")
    for what, (m, r) in results.items():
        ratio = m / r if r else float("inf")
        bad = args.targets and ratio > TARGETS[what]
        failed |= bad
        print(f"{what:10} {m * 1000:8.1f}ms {r * 1000:8.1f}ms {ratio:7.2f}  <= {TARGETS[what]:g}{'  MISSED' if bad else ''}")
    mb = args.mb / results["read"][0]
    print(f"large file through the mount: {mb:.0f} MiB/s; {args.files} stats: "
          f"{results['stat'][0] / args.files * 1e6:.0f} us each")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
