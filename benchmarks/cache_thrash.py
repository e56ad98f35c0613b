#!/usr/bin/env python3
"""Cache thrash: chunk files of two large maps read in turn in a cache that
cannot hold both parses (in-process, no FUSE).

    .venv/bin/python benchmarks/cache_thrash.py [--cache-mb 48] [--reads 40] [--maps A,B]
                                                [--checkout DIR]
    .venv/bin/python benchmarks/cache_thrash.py --readers 16 [--seconds 120] [--cache-mb 48]

Picks the two corpus maps with the largest parsed bodies that each fit in the
cache bound (or --maps: substrings of their paths), lists their body/nodes
folders, then reads chunk files alternately (A, B, A, B, ...; a file's .txt
and .bin in turn), --reads of them, and reports the body parses (node walks)
and the seconds they took, the cache's bytes at the end and the largest it
reached.

With --readers N: N threads read the tree of the whole corpus folder at once,
as `corpus_walk.py --only readers` does through a mount (each takes the next
GBX folder in path order and reads every file in it, body/nodes/ included),
for --seconds; reported: files read per minute, body parses, and the cache's
peak bytes.

--checkout runs another gbxfs source tree (e.g. the main worktree,
for a before/after comparison). Not a test: run by hand; the parse count is
the figure that does not depend on the machine's load.
"""
from __future__ import annotations

import argparse
import sys
import time

from bench_util import CORPUS, manifest

MIB = 1 << 20


def parse_cost(path: str) -> int:
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.gbx import parse as gbx_parse
    from gbxfs.tree.source import FileSource
    ctx = TreeContext(cache=ByteLRU(1 << 40))
    gbx_parse.GbxParse(FileSource(str(CORPUS / path)), ctx).body()
    return ctx.cache.costly_bytes


def pick_maps(bound: int, needles: list[str] | None) -> list[str]:
    maps = [r["path"] for r in manifest() if r["kind"] == "map"]
    if needles:
        return [next(p for p in maps if n in p) for n in needles]
    costs = sorted(((parse_cost(p), p) for p in maps), reverse=True)
    return [p for c, p in costs if c <= bound][:2]


def chunk_files(folder) -> list:
    """(node folder name, file entry name) of every chunk file under body/nodes."""
    nodes = folder.children()["body"].child("nodes")
    return [(d, f) for d, sub in nodes.children().items() for f in sub.children()]


def read(folder, node: str, name: str) -> int:
    nodes = folder.children()["body"].child("nodes")
    return len(nodes.children()[node].children()[name].read(0, 1 << 30))


def gbx_folders(root) -> list[tuple[str, object]]:
    from gbxfs.tree.model import Dir
    out, stack = [], [("", root)]
    while stack:
        path, e = stack.pop()
        for name, c in e.children().items():
            if isinstance(c, Dir):
                if name.lower().endswith(".gbx"):
                    out.append((path + "/" + name, c))
                stack.append((path + "/" + name, c))
    return sorted(out, key=lambda x: x[0])


def read_folder(folder, stop: float) -> int:
    """Read every file of a GBX folder (body/nodes/ too, not nested GBX folders)."""
    from gbxfs.tree.model import Dir
    stack, files = [folder], 0
    body = folder.children().get("body")
    if body is not None:
        nodes = body.child("nodes")
        if nodes is not None:
            stack.append(nodes)
    while stack:
        d = stack.pop()
        for name, c in sorted(d.children().items(), reverse=True):
            if time.monotonic() > stop:
                return files
            if isinstance(c, Dir):
                if not name.lower().endswith(".gbx"):
                    stack.append(c)
                continue
            size, at = c.size(), 0
            while at < size:
                at += len(c.read(at, 1 << 17)) or size
            files += 1
    return files


def readers(args, ctx, parses) -> None:
    import threading
    from gbxfs.tree.root import build_tree
    t0 = time.perf_counter()
    folders = gbx_folders(build_tree(str(CORPUS), ctx))
    listing, listed = time.perf_counter() - t0, len(parses)
    t0 = time.perf_counter()
    stop = time.monotonic() + args.seconds
    todo, lock, total, peak = len(folders), threading.Lock(), [0, 0], [0]

    def reader():
        while time.monotonic() < stop:
            with lock:
                if not folders:
                    return
                _, folder = folders.pop(0)
            n = read_folder(folder, stop)
            with lock:
                total[0] += n
                total[1] += time.monotonic() <= stop
                peak[0] = max(peak[0], ctx.cache.current_bytes)
    threads = [threading.Thread(target=reader) for _ in range(args.readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - t0
    print(f"cache_mb={args.cache_mb}: listing every folder (one thread) {listing:.0f} s, {listed} body parses; "
          f"then {args.readers} readers: {total[0]} files in {seconds:.0f} s "
          f"({total[0] / seconds * 60:.0f} files/min), {total[1]} of {todo} GBX folders, "
          f"{len(parses) - listed} body parses; cache peak {peak[0] / MIB:.1f} MiB")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache-mb", type=int, default=48)
    ap.add_argument("--reads", type=int, default=40)
    ap.add_argument("--maps", default=None, help="two substrings of corpus paths, comma-separated")
    ap.add_argument("--checkout", default=None, help="gbxfs source tree to run (default: this one)")
    ap.add_argument("--readers", type=int, default=0, help="concurrent readers of the whole corpus")
    ap.add_argument("--seconds", type=float, default=120.0, help="how long the readers read")
    args = ap.parse_args()
    if args.checkout:
        sys.path.insert(0, args.checkout)
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.gbx import parse as gbx_parse
    from gbxfs.tree.gbx.view import open_gbx
    from gbxfs.tree.source import FileSource
    print(f"gbxfs from {gbx_parse.__file__}")
    bound = args.cache_mb * MIB
    # every body walk from here on is timed into `parses`
    parses: list[float] = []
    real = gbx_parse.walk_body

    def counted(*a, **k):
        t = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            parses.append(time.perf_counter() - t)

    if args.readers:
        gbx_parse.walk_body = counted
        readers(args, TreeContext(cache=ByteLRU(bound)), parses)
        return 0
    paths = pick_maps(bound, args.maps.split(",") if args.maps else None)
    costs = [parse_cost(p) for p in paths]
    ctx = TreeContext(cache=ByteLRU(bound))
    gbx_parse.walk_body = counted
    folders = [open_gbx(p.rsplit("/", 1)[-1], FileSource(str(CORPUS / p)), ctx) for p in paths]
    t0 = time.perf_counter()
    files = [chunk_files(f) for f in folders]
    listed = len(parses)
    peak = ctx.cache.current_bytes
    n = 0
    for i in range(args.reads):
        m = i % 2
        node, name = files[m][(i // 2) % len(files[m])]
        read(folders[m], node, name)
        peak = max(peak, ctx.cache.current_bytes)
        n += 1
    seconds = time.perf_counter() - t0
    gbx_parse.walk_body = real
    for p, c in zip(paths, costs):
        print(f"map {p} (parse cost alone: {c / MIB:.1f} MiB)")
    print(f"cache_mb={args.cache_mb}: {n} alternating reads after listing; body parses: {len(parses)} "
          f"({listed} while listing), {sum(parses):.1f} s of parsing, {seconds:.1f} s in all; "
          f"cache {ctx.cache.current_bytes / MIB:.1f} MiB at the end, peak {peak / MIB:.1f} MiB "
          f"(bound {args.cache_mb} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
