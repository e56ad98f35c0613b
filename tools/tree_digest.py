"""Digest of the whole virtual tree over a folder, without FUSE.

    python tools/tree_digest.py [SOURCE] [--out PATHS.tsv]

Walks gbxfs.tree's tree of SOURCE (default: the corpus beside the
repository) depth first, listing every folder and reading every file in full.
Each path gets one line: `path<TAB>kind<TAB>size<TAB>sha256` for files (or
the error a read raised), `path<TAB>dir<TAB>count<TAB>sha256 of the sorted
names` for folders. Those lines go to --out; their sha256 is printed, so two
checkouts can be compared with one line and diffed path by path when they
differ.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys

from gbxfs.tree.root import build_tree

CHUNK = 1 << 20


def _file_line(path: str, f) -> str:
    try:
        size = f.size()
        h = hashlib.sha256()
        offset = 0
        while offset < size:
            data = f.read(offset, min(CHUNK, size - offset))
            if not data:
                break
            h.update(data)
            offset += len(data)
        return f"{path}\tfile\t{size}\t{h.hexdigest()}\tread={offset}"
    except Exception as e:   # noqa: BLE001 - a bad file is part of the digest, not a crash
        return f"{path}\tfile\terror\t{type(e).__name__}: {e}"


def walk(entry, path: str, out: list[str]) -> None:
    if entry.is_dir:
        try:
            kids = entry.children()
        except Exception as e:   # noqa: BLE001
            out.append(f"{path}\tdir\terror\t{type(e).__name__}: {e}")
            return
        names = sorted(kids)
        out.append(f"{path}\tdir\t{len(names)}\t"
                   + hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest())
        for n in names:
            walk(kids[n], f"{path}/{n}", out)
    else:
        out.append(_file_line(path, entry))


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", nargs="?", default=os.path.join(here, "..", "shared", "corpus"))
    ap.add_argument("--out", help="write the per-path lines here")
    args = ap.parse_args(argv)
    lines: list[str] = []
    walk(build_tree(args.source), "", lines)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    print(f"{len(lines)} paths  sha256 {hashlib.sha256(text.encode('utf-8', 'surrogateescape')).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
