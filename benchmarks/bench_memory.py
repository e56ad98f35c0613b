#!/usr/bin/env python3
"""Peak memory while reading large generated files through the tree.

    .venv/bin/python benchmarks/bench_memory.py [--mb 64]

Each scenario runs in a child process that builds the tree over a folder,
lists and reads everything in the kernel's 128 KiB pieces, and reports its
peak RSS (VmHWM) next to its RSS before the walk (interpreter + gbxfs):
  gbx       one loose .Gbx, LZO-compressed body of --mb MiB in 32 KiB
            skippable chunks (a folder of --mb/32*1024 chunk dumps);
  gbx, small cache   the same with cache_mb=32: the parsed body does not
            fit, so it is reported as too large instead of kept;
  pak       a pak (the project's writer) with a --mb MiB compressed raw entry
            and a --mb/2 MiB stored GBX entry, read through the tree, with
            the default and with a 32 MiB cache (inflated pieces and the
            verified GBX bytes are cached).
Not a test: numbers to read. The per-file parse itself needs the file, its
decompressed body and the chunks' copies at once; the cache bounds what is
kept afterwards, not that transient peak.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bench_util import MB, ROOT, Table, current_rss_mb, peak_rss_mb, run_child, walk_all

sys.path.insert(0, str(ROOT / "tests" / "robustness"))
CHUNK = 32 * 1024


def _payload(size: int) -> bytes:
    """Random 512-byte runs between runs of zeros: compresses to about half, like real data."""
    return b"".join(os.urandom(512) + bytes(512) for _ in range(-(-size // 1024)))[:size]


def big_gbx(mb: int) -> bytes:
    from robust_gbx import build_gbx, node_body
    n = mb * (1 << 20) // CHUNK
    data = _payload(CHUNK * n)
    chunks = [(0x03079FF0 + i % 8, data[i * CHUNK:(i + 1) * CHUNK], True) for i in range(n)]
    return build_gbx(0x03079000, node_body(chunks), compress=True)


def make_gbx(folder: Path, mb: int) -> None:
    (folder / "Big.Clip.Gbx").write_bytes(big_gbx(mb))


def make_pak(folder: Path, mb: int) -> None:
    from gbxfs.formats.pak.writer import PakFile, write_packs
    from robust_gbx import build_gbx, node_body
    raw = _payload(mb << 20)
    gbx = build_gbx(0x03079000, node_body([(0x03079FF0, _payload(mb << 19), True)]))
    write_packs(folder, {"Big": [PakFile("Big/Data/blob.bin", raw),
                                 PakFile("Big/Media/Big.Clip.Gbx", gbx, compress=False)]})


def child(folder: str, cache_mb: int | None) -> None:
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.root import build_tree
    ctx = TreeContext() if cache_mb is None else TreeContext(cache=ByteLRU(cache_mb << 20))
    before = current_rss_mb()
    t = time.perf_counter()
    count = walk_all(build_tree(folder, ctx))
    secs = time.perf_counter() - t
    print(json.dumps({"baseline_mb": before, "peak_mb": peak_rss_mb(), "seconds": secs,
                      "bytes": count.bytes, "entries": count.dirs + count.files, "errors": count.errors}))


def run(mb: int = 64) -> list[Table]:
    out = Table(f"Peak RSS reading large generated files through the tree ({mb} MiB scale)",
                ["what", "file MB", "entries", "MB read", "seconds", "baseline MB", "peak MB",
                 "(peak-base)/file"])
    with tempfile.TemporaryDirectory(prefix="gbxfs-mem-") as tmp:
        for name, make, cache in (("gbx, cache 256 MiB", make_gbx, None), ("gbx, cache 32 MiB", make_gbx, 32),
                                  ("pak, cache 256 MiB", make_pak, None), ("pak, cache 32 MiB", make_pak, 32)):
            folder = Path(tmp) / name.split(",")[0]
            if not folder.exists():
                folder.mkdir()
                make(folder, mb)
            size = sum(f.stat().st_size for f in folder.iterdir())
            args = [str(folder)] + ([] if cache is None else ["--cache-mb", str(cache)])
            r = run_child("bench_memory", *args)
            out.add(name, size / MB, r["entries"], r["bytes"] / MB, r["seconds"], r["baseline_mb"], r["peak_mb"],
                    (r["peak_mb"] - r["baseline_mb"]) / (size / MB))
    out.notes.append("baseline: the child's RSS with gbxfs imported, before the walk; peak: VmHWM")
    return [out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cache-mb", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("folder", nargs="?", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.folder, args.cache_mb)
        return
    for t in run(args.mb):
        print(t.render())


if __name__ == "__main__":
    main()
