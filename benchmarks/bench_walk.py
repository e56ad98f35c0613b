#!/usr/bin/env python3
"""Walking the whole tree over the corpus vs `cp -r` of the same folder.

    .venv/bin/python benchmarks/bench_walk.py [--repeat 3]

The folder: every corpus file (flattened into one directory) and the
synthetic Packs folder (packlist.dat + Sample.pak). Timed, page cache warm:
  cp -r            the plain copy of the folder (the reference: what reading
                   the original bytes costs the kernel and a C program);
  tree, gbx=file   list + read everything through the tree with GBX files
                   shown as plain files: the same bytes as cp, plus the pak
                   unpacked (decrypted, inflated, verified);
  tree, folders    list + read everything through the tree as a mount shows
                   it (every GBX a folder of decoded parts, GP2 tracks decoded),
                   a fresh tree and cache: the first `ls -lR; cat` of a mount;
  same, again      the same tree walked a second time: with the default
                   256 MiB cache the walk's working set (about 0.5 GB of parsed
                   bodies and dumps) does not fit, and a walk in the same order
                   is LRU's worst case, so everything is parsed again; with a
                   4 GiB cache (cache_mb=4096) the second walk is served from it.
The walk is in-process (the tree without FUSE); benchmarks/fs_mount.py gives
the FUSE layer's own cost. Ratios are against cp -r.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench_util import CORPUS, MB, Table, WalkCount, best_of, manifest, walk_all


def make_folder(dest: Path) -> int:
    size = 0
    for r in manifest():
        shutil.copyfile(CORPUS / r["path"], dest / r["path"].replace("/", "__"))
        size += int(r["size"])
    shutil.copytree(CORPUS / "synthetic-pak" / "Packs", dest / "Packs")
    return size + sum(f.stat().st_size for f in (dest / "Packs").iterdir())


def run(repeat: int = 3) -> list[Table]:
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.root import build_tree

    with tempfile.TemporaryDirectory(prefix="gbxfs-bench-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        size = make_folder(src)

        def cp():
            dst = Path(tmp) / "copy"
            subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
            shutil.rmtree(dst)

        cp()   # warm the page cache
        t_cp = best_of(repeat, cp)

        counts: dict[str, WalkCount] = {}

        def walk(mode: str):
            counts[mode] = walk_all(build_tree(str(src), TreeContext(gbx_mode=mode)))

        t_file = best_of(repeat, lambda: walk("file"))
        times = {}
        for label, cache in (("256 MiB", None), ("4 GiB", ByteLRU(4 << 30))):
            root = build_tree(str(src), TreeContext() if cache is None else TreeContext(cache=cache))
            t = time.perf_counter()
            full = walk_all(root)
            times[label, "cold"] = time.perf_counter() - t
            t = time.perf_counter()
            walk_all(root)
            times[label, "again"] = time.perf_counter() - t
            del root

    out = Table("Tree walk over the corpus folder vs cp -r (list + read everything)",
                ["what", "entries", "MB read", "seconds", "MB/s", "ratio to cp -r"])
    out.add("cp -r", "-", size / MB, t_cp, size / MB / t_cp, 1.0)
    c = counts["file"]
    out.add("tree, gbx=file", c.dirs + c.files, c.bytes / MB, t_file, c.bytes / MB / t_file, t_file / t_cp)
    for (label, when), secs in times.items():
        out.add(f"tree, folders, {when}, cache {label}", full.dirs + full.files, full.bytes / MB, secs,
                full.bytes / MB / secs, secs / t_cp)
    out.notes.append(f"folder: {size / MB:.1f} MB in {len(manifest()) + 2} files; cp/gbx=file best of {repeat}, "
                     f"folder walks once each; unreadable files: {full.errors}")
    return [out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for t in run(args.repeat):
        print(t.render())


if __name__ == "__main__":
    main()
