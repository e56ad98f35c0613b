#!/usr/bin/env python3
"""One digest of everything the GBX parser makes of a folder of files.

For every GBX file under DIR (found by its magic bytes, as `gbxfs coverage` does), the
file is parsed with `gbxfs.formats.gbx.parse` and everything observable is hashed: the
header fields, every header and body chunk (id, offsets, sizes, raw bytes, decoded
values in a canonical form and as their `.txt` dump, error text, name), every node
(class, slot, end marker, error), the body status, and the ghosts' ghost.txt/ghost.csv.
Prints one line `<digest>  <files> files`; `--out FILE` writes one line per file
(`<digest>  <path>`), so that two runs can be compared with `diff`.

Used to check that a refactoring leaves the parser's output unchanged: run it
before and after, compare the digests.

Usage: tools/corpus_digest.py [DIR] [--out FILE]     (DIR defaults to the corpus beside the checkout)
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbxfs.formats import gbx  # noqa: E402
from gbxfs.formats.gbx.dump import dump_values  # noqa: E402
from gbxfs.formats.gbx.model import Labeled, NodeRef  # noqa: E402


def _ghost_renderers() -> Any:
    """The tree's ghost module (its home moves with the tree's layout)."""
    for name in ("gbxfs.tree.gbx.ghostfiles", "gbxfs.tree.gbx_ghostfiles"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def canon(v: Any, out: list[str]) -> None:
    """A canonical text of a decoded value: types included, floats exact."""
    t = type(v)
    if t is dict:
        out.append("{")
        for k, x in v.items():
            out.append(repr(k))
            canon(x, out)
        out.append("}")
    elif t is list or t is tuple:
        out.append("[" if t is list else "(")
        for x in v:
            canon(x, out)
        out.append("]")
    elif isinstance(v, Labeled):
        out.append(f"L{int(v)}:{v.label}")
    elif t is float:
        out.append(f"f{v.hex()}")
    elif isinstance(v, (bytes, bytearray, memoryview)):
        out.append(f"b{hashlib.sha256(bytes(v)).hexdigest()}")
    elif isinstance(v, NodeRef):
        out.append(f"R{v.kind}:{v.index}:{v}")
    else:
        out.append(f"{t.__name__}:{v!r}")


def chunk_text(c: Any) -> str:
    parts = [f"{c.chunk_id:08X} off={c.offset} size={c.size} skip={c.skippable} raw_id={c.raw_id} "
             f"heavy={c.heavy} header={c.header} name={c.name} raw={hashlib.sha256(c.raw).hexdigest()}"]
    if c.values is not None:
        out: list[str] = []
        canon(c.values, out)
        parts.append(hashlib.sha256("\x00".join(out).encode("utf-8", "surrogatepass")).hexdigest())
        parts.append(dump_values(c.values))
    parts.append(f"error={c.error}")
    return "\n".join(parts)


def file_text(data: bytes) -> str:
    try:
        g = gbx.parse(data)
    except gbx.GbxError as e:
        return f"header error: {e}"
    h = g.header
    lines = [f"v{h.version} {h.format_bytes} class={h.raw_class_id:08X}/{h.class_id:08X} "
             f"nodes={h.num_nodes} body_offset={h.body_offset}"]
    if h.refs is not None:
        lines.append(repr(sorted((k, v.__dict__) for k, v in h.refs.by_node_index().items())))
    lines += [chunk_text(c) for c in h.chunks]
    b = g.body
    lines.append(f"body {b.status} size={b.size} read={b.read} error={b.error}")
    for n in b.nodes:
        lines.append(f"node {n.index} {n.class_id:08X} raw={n.raw_class_id} complete={n.complete} error={n.error}")
        lines += [chunk_text(c) for c in n.chunks]
    ghosts = _ghost_renderers()
    if ghosts is not None and b.nodes:
        for gh in ghosts.find_ghosts(b.nodes):
            lines.append(ghosts.render_ghost_txt(gh).decode("utf-8", "replace"))
            lines.append(hashlib.sha256(ghosts.render_ghost_csv(gh)).hexdigest())
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    ap.add_argument("--out", help="write one digest per file here")
    args = ap.parse_args(argv)
    root = Path(args.dir)
    total = hashlib.sha256()
    per_file = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        data = path.read_bytes()
        if data[:3] != b"GBX":
            continue
        rel = path.relative_to(root).as_posix()
        d = hashlib.sha256(file_text(data).encode("utf-8", "surrogatepass")).hexdigest()
        per_file.append(f"{d}  {rel}")
        total.update(f"{d}  {rel}\n".encode())
    if args.out:
        Path(args.out).write_text("\n".join(per_file) + "\n", encoding="utf-8")
    print(f"{total.hexdigest()}  {len(per_file)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
