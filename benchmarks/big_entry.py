#!/usr/bin/env python3
"""One large file read through the mount vs the same read in-process.

    .venv/bin/python benchmarks/big_entry.py [--mb 64] [--rounds 2] [--checkout DIR ...] [--only NAME]

Builds (seeded) a folder with a loose file of MB MiB of random bytes and a
pak holding two entries of MB MiB (about 2:1 compressible): one compressed,
one stored. For each of the three, per round: a fresh `gbxfs mount -f`,
then the whole file read with 1 MiB read() calls (the kernel turns them
into 128 KiB FUSE reads), timed, with the daemon's CPU seconds; and the
same file read in-process through a fresh tree in 128 KiB pieces (what the
FUSE layer asks of it, without the mount). Nothing is decrypted before
either read. Ratio = mount / in-process (below 1: the mount is faster). The
loose file's in-process read is a page-cache copy: no FUSE file system
comes near it; its figure shows the mount's per-request cost.
--checkout: also mount from another gbxfs tree (a worktree or an exported
commit) right after this one, each round, for a side-by-side comparison (the
in-process figure is this tree's). --only: the paths containing NAME.
Not a test: run by hand; the machine's load moves single figures.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_util import unmount  # noqa: E402
from gbxfs.formats.pak.writer import PakFile, write_packs  # noqa: E402
from gbxfs.tree.cache import ByteLRU  # noqa: E402
from gbxfs.tree.context import TreeContext  # noqa: E402
from gbxfs.tree.root import build_tree  # noqa: E402
from gbxfs.tree.walk import resolve  # noqa: E402

PATHS = ("big.bin", "Packs/Big.pak/D/compressed.bin", "Packs/Big.pak/D/stored.bin")


def build(src: Path, mb: int) -> None:
    data = random.Random(5).randbytes(mb << 20)
    (src / "big.bin").write_bytes(data)
    half = data.translate(bytes(0x41 + (i & 15) for i in range(256)))
    write_packs(src / "Packs", {"Big": [PakFile("D/compressed.bin", half, compress=True),
                                        PakFile("D/stored.bin", half, compress=False)]})


def _cpu(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _read(path: Path) -> None:
    with open(path, "rb", buffering=0) as f:
        while f.read(1 << 20):
            pass


def in_process(src: Path, path: str) -> float:
    f = resolve(build_tree(str(src), TreeContext(cache=ByteLRU(256 << 20))), path)
    t0 = time.perf_counter()
    for off in range(0, f.size(), 128 << 10):
        f.read(off, 128 << 10)
    return time.perf_counter() - t0


def mounted(src: Path, mp: Path, path: str, tree: Path = ROOT) -> tuple[float, float]:
    proc = subprocess.Popen([sys.executable, "-m", "gbxfs", "mount", "-f", str(src), str(mp)],
                            env=dict(os.environ, PYTHONPATH=str(tree)), cwd=str(tree))
    try:
        t0 = time.perf_counter()
        while not (os.path.ismount(mp) and os.listdir(mp)):
            if proc.poll() is not None or time.perf_counter() - t0 > 60:
                raise RuntimeError("gbxfs did not mount")
            time.sleep(0.01)
        os.stat(mp / path)
        c0, t0 = _cpu(proc.pid), time.perf_counter()
        _read(mp / path)
        return time.perf_counter() - t0, _cpu(proc.pid) - c0
    finally:
        unmount(proc, mp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--checkout", action="append", default=[], help="another gbxfs tree to mount from")
    ap.add_argument("--only", default="", help="only the paths containing this")
    args = ap.parse_args()
    trees = [ROOT] + [Path(c).resolve() for c in args.checkout]
    with tempfile.TemporaryDirectory(prefix="gbxfs-big-") as tmp:
        src, mp = Path(tmp) / "src", Path(tmp) / "mnt"
        src.mkdir()
        mp.mkdir()
        build(src, args.mb)
        _read(src / "big.bin")
        _read(src / "Packs/Big.pak")     # the sources in the page cache
        print(f"{'file':32} {'tree':24} {'mount s':>8} {'daemon CPU s':>13} {'in-process s':>13} {'ratio':>6}")
        for path in [p for p in PATHS if args.only in p]:
            for _ in range(args.rounds):
                got = [(tree, *mounted(src, mp, path, tree)) for tree in trees]
                i = in_process(src, path)
                for tree, m, cpu in got:
                    print(f"{path:32} {str(tree)[-24:]:24} {m:8.2f} {cpu:13.2f} {i:13.2f} {m / i:6.2f}",
                          flush=True)


if __name__ == "__main__":
    main()
