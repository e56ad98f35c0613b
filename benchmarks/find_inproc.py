#!/usr/bin/env python3
"""`find` in process: the FUSE handlers' own CPU for listing a whole tree.

    .venv/bin/python benchmarks/find_inproc.py FOLDER [--gbx file] [--rounds 3] [--profile]

Builds the tree of FOLDER (as `gbxfs mount -o gbx=...` would) and walks it the
way the kernel does for `find` with readdirplus: per folder `opendir`, `readdir`
until a reply is empty, `releasedir`, then the subfolders, each reply filled up
to 32 KiB as the kernel's buffer is (a stand-in for pyfuse3.readdir_reply that
counts the bytes an entry takes). No kernel, no pyfuse3 request loop: what is
left is what gbxfs adds above find_floor.py's floor. Prints the CPU seconds of
each round (a fresh tree each time: the first listing of everything, pak
headers included); --profile prints cProfile's top functions of the last one.
For `benchmarks/run.py --peers` folders: FOLDER is <--keep DIR>/packs-<scale>.
Not a test: numbers to read.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import stat
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyfuse3  # noqa: E402
import trio  # noqa: E402

from gbxfs.fuse import runner  # noqa: E402
from gbxfs.fuse.ops import Operations  # noqa: E402
from gbxfs.tree.cache import ByteLRU  # noqa: E402
from gbxfs.tree.context import TreeContext  # noqa: E402
from gbxfs.tree.root import build_tree  # noqa: E402

BUFFER = 32 * 1024       # what the kernel asks per READDIRPLUS (glibc's getdents buffer)
ENTRY_BYTES = 152        # struct fuse_direntplus before the name (padded to 8 bytes)


class Reply:
    __slots__ = ("left", "got")

    def __init__(self):
        self.left, self.got = BUFFER, []


def readdir_reply(token: Reply, name: bytes, attrs, offset: int) -> bool:
    n = ENTRY_BYTES + ((len(name) + 7) & ~7)
    if n > token.left:
        return False
    token.left -= n
    token.got.append((name, attrs.st_ino, attrs.st_mode))
    return True


async def listing(ops: Operations, inode: int, reply=Reply) -> list[tuple]:
    """What the kernel gets listing folder `inode`: opendir, readdir until a reply
    is empty, releasedir; the entries other than "." and ".." (as `reply` keeps them)."""
    fh = await ops.opendir(inode, None)
    pos, items = 0, []
    while True:
        token = reply()
        await ops.readdir(fh, pos, token)
        if not token.got:
            break
        pos += len(token.got)
        items += [it for it in token.got if it[0] not in (b".", b"..")]
    await ops.releasedir(fh)
    return items


async def walk(ops: Operations) -> int:
    seen, todo = 0, [pyfuse3.ROOT_INODE]
    while todo:
        for name, ino, mode in await listing(ops, todo.pop()):
            seen += 1
            if stat.S_ISDIR(mode):
                todo.append(ino)
    return seen


def arguments(doc: str) -> argparse.ArgumentParser:
    """The options this script and read_inproc.py share."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--gbx", default="file", choices=("file", "folder"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    return ap


def main() -> None:
    a = arguments(__doc__).parse_args()
    pyfuse3.readdir_reply = readdir_reply
    runner._rare_young_collections()          # as the daemon runs
    for r in range(a.rounds):
        ops = Operations(build_tree(a.folder, TreeContext(gbx_mode=a.gbx, cache=ByteLRU(256 << 20))))
        prof = cProfile.Profile() if a.profile and r == a.rounds - 1 else None
        t0 = time.process_time()
        if prof:
            prof.enable()
        seen = trio.run(walk, ops)
        if prof:
            prof.disable()
        print(f"round {r + 1}: {seen} entries, {time.process_time() - t0:.3f} s CPU")
    if a.profile:
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
