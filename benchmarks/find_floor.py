#!/usr/bin/env python3
"""`find` on the peers' Packs folder: gbxfs against ratarmount and against the
floor of pyfuse3 itself, side by side.

    .venv/bin/python benchmarks/find_floor.py [--scale 1.0] [--keep DIR] [--rounds 3]
                                              [--checkout DIR ...]

Mounts, in turn and for several rounds (so all see the same load): gbxfs
(`-o gbx=file`) from this checkout and from each --checkout (another worktree
or an exported commit), ratarmount on the same files as a zip (peers.py), and
"floor": a pyfuse3 + trio file system in this script that holds the same tree
(every name and size, read from the zip's directory) with its attributes made up front,
so it answers each request with no work at all.
Prints the median and best `find . | wc -l` wall time and the daemon's CPU
seconds (utime + stime) for each; `--count` runs one more round of the pyfuse3
mounts and prints the requests each answered, by type (fuse_counts.py: the
mount's own first listing included). The floor's figures are what the
kernel round trips, pyfuse3 and trio cost by themselves for this listing:
gbxfs cannot go below them.
Not a test: run by hand.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import peers


def serve_floor(mountpoint: str, zpath: str) -> None:
    """The floor file system (run in a child process: `find_floor.py --serve MP ZIP`)."""
    import zipfile

    import pyfuse3
    import trio

    dirs: dict[int, list[tuple[bytes, object]]] = {pyfuse3.ROOT_INODE: []}
    index: dict[tuple[int, str], int] = {}
    counter = iter(range(pyfuse3.ROOT_INODE + 1, 1 << 62))

    def attrs(ino: int, is_dir: bool, size: int):
        a = pyfuse3.EntryAttributes()
        a.st_ino = ino
        a.entry_timeout = a.attr_timeout = 10
        a.st_mode = (stat.S_IFDIR | 0o555) if is_dir else (stat.S_IFREG | 0o444)
        a.st_size = size
        return a

    def add(parent: int, name: str, is_dir: bool, size: int = 0) -> int:
        ino = index.get((parent, name))
        if ino is None:
            ino = index[(parent, name)] = next(counter)
            dirs[parent].append((name.encode(), attrs(ino, is_dir, size)))
            if is_dir:
                dirs[ino] = []
        return ino

    with zipfile.ZipFile(zpath) as z:
        for info in z.infolist():           # <pak>.pak/<path in the pak>, as gbxfs shows it
            d = pyfuse3.ROOT_INODE
            *folders, name = info.filename.split("/")
            for part in folders:
                d = add(d, part, True)
            add(d, name, False, info.file_size)
    for ino, name in [(i, n) for (p, n), i in index.items() if p == pyfuse3.ROOT_INODE]:
        add(ino, "pak-info.txt", False, 1000)          # what gbxfs adds: each pak's info file
    add(pyfuse3.ROOT_INODE, "packlist.dat", False, 1000)
    by_ino = {a.st_ino: a for items in dirs.values() for _, a in items}
    zeros = memoryview(bytes(1 << 20))

    class Floor(pyfuse3.Operations):
        async def getattr(self, inode, ctx=None):
            return by_ino.get(inode) or attrs(inode, True, 0)

        async def lookup(self, parent, name, ctx=None):
            ino = index.get((parent, os.fsdecode(name)))
            if ino is None:
                raise pyfuse3.FUSEError(errno.ENOENT)
            return by_ino[ino]

        async def opendir(self, inode, ctx):
            return inode

        async def readdir(self, fh, start, token):
            items = dirs[fh]
            for i in range(start, len(items)):
                if not pyfuse3.readdir_reply(token, items[i][0], items[i][1], i + 1):
                    return

        # reads (benchmarks/read_floor.py): every file is zero bytes from memory
        async def open(self, inode, flags, ctx):
            return pyfuse3.FileInfo(fh=inode, keep_cache=True)

        async def read(self, fh, off, size):
            return zeros[:max(0, min(size, by_ino[fh].st_size - off))]

        async def release(self, fh):
            pass

        async def flush(self, fh):
            raise pyfuse3.FUSEError(errno.ENOSYS)

    pyfuse3.init(Floor(), mountpoint, {"ro", "fsname=floor"})
    try:
        trio.run(pyfuse3.main)
    finally:
        pyfuse3.close()


def floor_argv(zpath: Path) -> list[str]:
    """The command serving the floor for `zpath` (this file with --serve; the mount point
    goes last)."""
    return [sys.executable, "-c", "import runpy, sys; sys.argv = [sys.argv[0], '--serve', sys.argv[1], "
            f"{str(zpath)!r}]; runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"]


@contextlib.contextmanager
def mounted(argv: list[str], pythonpath: str | None, mp: Path):
    """The daemon `argv` serving `mp` (mounted and listing), unmounted afterwards."""
    env = dict(os.environ, PYTHONPATH=pythonpath or "")
    # run from that tree: `python -c` puts the working folder before PYTHONPATH
    proc = subprocess.Popen(argv + [str(mp)], env=env, cwd=pythonpath, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        t0 = time.perf_counter()
        while not (os.path.ismount(mp) and os.listdir(mp)):
            if proc.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError(f"{argv[:3]} did not mount")
            time.sleep(0.01)
        yield proc
    finally:
        peers.unmount(proc, mp)


def find_once(argv: list[str], pythonpath: str | None, mp: Path) -> tuple[float, float, str]:
    with mounted(argv, pythonpath, mp) as proc:
        cpu = peers._cpu_s(proc.pid)
        took, out = peers._sh("find . | wc -l", str(mp))
        return took, peers._cpu_s(proc.pid) - cpu, out


def mounts(packs: Path, zpath: Path, checkouts: list[str], ratarmount: bool = True) -> list[tuple[str, list, str | None]]:
    """(name, argv, tree to run it from) of each mount to compare: gbxfs from this
    checkout and each of `checkouts`, ratarmount (if installed), and the floors."""
    gbx = [sys.executable, "-c", "import sys; from gbxfs.cli import main; sys.exit(main())",
           "mount", "-f", "-o", "gbx=file", str(packs)]
    runs = [(f"gbxfs {root}", gbx, str(root)) for root in [peers.ROOT] + [Path(c).resolve() for c in checkouts]]
    if ratarmount and peers._tool("ratarmount"):
        runs.append(("ratarmount", [peers._tool("ratarmount"), "-f", str(zpath)], None))
    runs.append(("floor (pyfuse3, no work)", floor_argv(zpath), str(Path(__file__).resolve().parent)))
    return runs


def counting(argv: list[str], out: Path) -> list[str]:
    """`argv` (a `python -c` daemon) with its requests counted into `out` (fuse_counts.py)."""
    shim = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import fuse_counts; "
            f"fuse_counts.install({str(out)!r}); ")
    return argv[:2] + [shim + argv[2]] + argv[3:]


def print_counts(runs: list[tuple[str, list, str | None]]) -> None:
    """One counted `find` on each pyfuse3 mount of `runs`: its requests by type."""
    got: dict[str, dict[str, int]] = {}
    for name, argv, path in runs:
        if argv[1] != "-c":
            continue        # ratarmount: not a pyfuse3 daemon
        with tempfile.TemporaryDirectory(prefix="gbxfs-find-") as mpd:
            out = Path(mpd) / "counts.json"
            mp = Path(mpd) / "mp"
            mp.mkdir()
            find_once(counting(argv, out), path, mp)
            got[name] = json.loads(out.read_text())
    kinds = sorted({k for c in got.values() for k in c})
    print("\nrequests during mount + find, by type\n| kind | " + " | ".join(got) + " |")
    print("|---" * (len(got) + 1) + "|")
    for k in kinds + ["total requests"]:
        row = [c.get(k, 0) if k != "total requests" else sum(v for n, v in c.items() if not n.startswith("entries"))
               for c in got.values()]
        print(f"| {k} | " + " | ".join(str(v) for v in row) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--keep", help="where peers.py keeps (and reuses) the generated folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--checkout", action="append", default=[], help="another gbxfs tree to compare")
    ap.add_argument("--count", action="store_true", help="also count each pyfuse3 mount's requests")
    ap.add_argument("--serve", nargs=2, metavar=("MOUNTPOINT", "ZIP"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve:
        serve_floor(a.serve[0], a.serve[1])
        return
    folder = Path(a.keep or tempfile.mkdtemp(prefix="gbxfs-peers-"))
    packs, zpath, _, _ = peers.build(folder, a.scale)
    runs = mounts(packs, zpath, a.checkout)
    got: dict[str, list[tuple[float, float, str]]] = {name: [] for name, _, _ in runs}
    for _ in range(a.rounds):
        for name, argv, path in runs:
            with tempfile.TemporaryDirectory(prefix="gbxfs-find-") as mpd:
                got[name].append(find_once(argv, path, Path(mpd)))
    print(f"find . | wc -l, {a.rounds} rounds, scale {a.scale:g}; load {os.getloadavg()[0]:.1f}")
    print("| mount | entries | find wall s (median / best) | daemon CPU s (median / best) |\n|---|---|---|---|")
    for name, res in got.items():
        if not res:
            continue
        walls, cpus = [r[0] for r in res], [r[1] for r in res]
        print(f"| {name} | {res[0][2]} | {statistics.median(walls):.2f} / {min(walls):.2f} "
              f"| {statistics.median(cpus):.2f} / {min(cpus):.2f} |")
    if a.count:
        print_counts(runs)


if __name__ == "__main__":
    main()
