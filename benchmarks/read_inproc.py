#!/usr/bin/env python3
"""`tar cf - .` in process: the FUSE handlers' own CPU for reading a whole tree.

    .venv/bin/python benchmarks/read_inproc.py FOLDER [--gbx file] [--rounds 3] [--profile] [--per-request]

Builds the tree of FOLDER (as `gbxfs mount -o gbx=...` would), lists it the way
find_inproc.py does (what `find` before the read leaves listed), then walks it
as tar does through the kernel: per folder `opendir`, `readdir` until a reply
is empty, `releasedir`; per file `open`, `read` in 128 KiB requests to its
size, `release`, in listing order, depth first. No kernel, no pyfuse3 request
loop: the handlers, their worker-thread hand-offs and the background batches,
on a trio loop. Prints per round the event loop thread's CPU seconds (what
the daemon's main thread adds above read_floor.py's floor), the whole
process's (worker threads too) and the wall time; --profile prints
cProfile's top functions of the loop thread in the last round, --per-request
the loop thread's CPU per request of each kind (open, read, ...). For
`benchmarks/run.py --peers` folders: FOLDER is <--keep DIR>/packs-<scale>.
Not a test: numbers to read.
"""
from __future__ import annotations

import cProfile
import pstats
import stat
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyfuse3  # noqa: E402
import trio  # noqa: E402

from find_inproc import Reply, arguments, listing, walk  # noqa: E402
from find_inproc import readdir_reply as count_reply  # noqa: E402
from gbxfs.fuse import runner  # noqa: E402
from gbxfs.fuse.ops import Operations  # noqa: E402
from gbxfs.tree.cache import ByteLRU  # noqa: E402
from gbxfs.tree.context import TreeContext  # noqa: E402
from gbxfs.tree.root import build_tree  # noqa: E402

REQUEST = 128 * 1024      # the kernel's largest read request


class SizedReply(Reply):
    """A reply that keeps each entry's size too (the kernel has it from the
    listing: tar's lstat sends no request)."""

    __slots__ = ()


def readdir_reply(token: Reply, name: bytes, attrs, offset: int) -> bool:
    if not count_reply(token, name, attrs, offset):
        return False
    if isinstance(token, SizedReply):
        token.got[-1] += (attrs.st_size,)
    return True


async def tar(ops: Operations, inode: int) -> int:
    """Bytes read below folder `inode`, as tar reads them."""
    total = 0
    for name, ino, mode, size in await listing(ops, inode, SizedReply):
        if stat.S_ISDIR(mode):
            total += await tar(ops, ino)
            continue
        f = (await ops.open(ino, 0, None)).fh
        for off in range(0, size, REQUEST):
            total += len(await ops.read(f, off, REQUEST))
        await ops.release(f)
    return total


def per_request(ops: Operations, spent: dict[str, list]) -> None:
    """Have each handler tar uses add its calls and its loop thread CPU to `spent`."""
    for name in ("opendir", "readdir", "releasedir", "open", "read", "release"):
        real = getattr(ops, name)
        got = spent.setdefault(name, [0, 0.0])

        async def timed(*args, _real=real, _got=got):
            t = time.thread_time()
            try:
                return await _real(*args)
            finally:
                _got[0] += 1
                _got[1] += time.thread_time() - t
        setattr(ops, name, timed)


async def listed_then_read(ops: Operations, spent: dict | None = None) -> tuple[int, float, float]:
    await walk(ops)
    if spent is not None:
        per_request(ops, spent)
    t0, c0 = time.thread_time(), time.process_time()
    n = await tar(ops, pyfuse3.ROOT_INODE)
    return n, time.thread_time() - t0, time.process_time() - c0


def main() -> None:
    ap = arguments(__doc__)
    ap.add_argument("--per-request", action="store_true")
    a = ap.parse_args()
    pyfuse3.readdir_reply = readdir_reply
    runner._tune_malloc()
    runner._rare_young_collections()          # as the daemon runs
    for r in range(a.rounds):
        ops = Operations(build_tree(a.folder, TreeContext(gbx_mode=a.gbx, cache=ByteLRU(256 << 20))))
        prof = cProfile.Profile() if a.profile and r == a.rounds - 1 else None
        if prof:
            prof.enable()
        w0 = time.perf_counter()
        spent: dict[str, list] | None = {} if a.per_request else None
        n, loop, cpu = trio.run(listed_then_read, ops, spent)
        wall = time.perf_counter() - w0
        if prof:
            prof.disable()
        print(f"round {r + 1}: {n} bytes, loop thread {loop:.3f} s CPU, process {cpu:.3f} s CPU, "
              f"{wall:.3f} s wall (listing included)", flush=True)
        for name, (calls, took) in (spent or {}).items():
            print(f"  {name}: {calls} calls, {took:.3f} s, {took / max(calls, 1) * 1e6:.1f} us each")
    if a.profile:
        pstats.Stats(prof).sort_stats("tottime").print_stats(35)


if __name__ == "__main__":
    main()
