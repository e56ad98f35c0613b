#!/usr/bin/env python3
"""GBX parse throughput over the corpus, and the ratio to pygbx where it parses.

    .venv/bin/python benchmarks/bench_parse.py [--repeat 3]

gbxfs: `gbxfs.formats.gbx.parse` (header chunks decoded, body decompressed
and walked with every declaration) over every GBX of the corpus manifest;
files/s and MB/s of file bytes and of decompressed body bytes.

Peer: pygbx (PyPI, `pip install -e .[bench]`), a pure-Python GBX parser for
TrackMania Forever/United-era challenges and replays. Compared on the maps it
supports: those where pygbx raises nothing and reads the same (non-zero)
number of blocks as gbxfs, so both really read the block list. Both get the
same bytes in memory, best of --repeat runs per file. The ratio is gbxfs
time / pygbx time: above 1 means gbxfs is slower. pygbx reads the header and
the map's block list and skips the rest of the body, while gbxfs decodes
every chunk (and node) it has a declaration for: the ratio is the price of
decoding everything, not the same work done slower or faster.
"""
from __future__ import annotations

import argparse
import logging

from bench_util import CORPUS, GBX_KINDS, MB, Table, best_of, manifest


def _pygbx():
    try:
        import pygbx
        return pygbx
    except ImportError:
        return None


def pygbx_blocks(pygbx, data: bytes) -> int | None:
    """How many blocks pygbx reads from a map (None: it raised or found no map)."""
    try:
        g = pygbx.Gbx(data)
    except Exception:
        return None
    ch = g.get_class_by_id(pygbx.GbxType.CHALLENGE) or g.get_class_by_id(pygbx.GbxType.CHALLENGE_OLD)
    return len(ch.blocks) if ch is not None else None


def gbxfs_blocks(g) -> int | None:
    c = g.body.nodes[0].chunk(0x0304301F) if g.body.nodes else None
    return len(c.values.get("blocks") or []) if c is not None and c.values else None


def run(repeat: int = 3) -> list[Table]:
    from gbxfs.formats import gbx
    from gbxfs.formats.gbx.decl import registry

    rows = [r for r in manifest() if r["kind"] in GBX_KINDS]
    files = [(r["path"], (CORPUS / r["path"]).read_bytes()) for r in rows]
    registry()     # declarations are loaded once per process
    total_bytes = sum(len(d) for _, d in files)
    body_bytes = 0
    t_full = t_head = 0.0
    per_file: dict[str, float] = {}
    blocks: dict[str, int | None] = {}
    for path, data in files:
        g = gbx.parse(data)
        body_bytes += len(g.body_bytes or b"")
        blocks[path] = gbxfs_blocks(g)
        per_file[path] = best_of(repeat, lambda: gbx.parse(data))
        t_full += per_file[path]
        t_head += best_of(repeat, lambda: gbx.parse_header(data))

    t = Table("GBX parse throughput (corpus, in memory, best of %d per file)" % repeat,
              ["what", "files", "MB (file)", "seconds", "files/s", "MB/s file", "MB/s body"])
    t.add("gbxfs header only", len(files), total_bytes / MB, t_head, len(files) / t_head, total_bytes / MB / t_head, "-")
    t.add("gbxfs full parse", len(files), total_bytes / MB, t_full, len(files) / t_full, total_bytes / MB / t_full,
          body_bytes / MB / t_full)
    t.notes.append(f"decompressed body bytes: {body_bytes / MB:.1f} MB; slowest file "
                   f"{max(per_file.values()):.2f} s ({max(per_file, key=per_file.get).rsplit('/', 1)[-1]})")

    tables = [t]
    pygbx = _pygbx()
    peer = Table("Peer: pygbx on the maps it supports (same block count as gbxfs)",
                 ["what", "maps", "MB (file)", "gbxfs s", "pygbx s", "ratio gbxfs/pygbx"])
    if pygbx is None:
        peer.notes.append("pygbx not installed (pip install -e .[bench]); no peer numbers")
    else:
        logging.disable(logging.CRITICAL)     # pygbx logs what it cannot read
        try:
            maps = [(p, d) for p, d in files if p in blocks and _kind(rows, p) == "map"]
            ok = [(p, d) for p, d in maps if blocks[p] and pygbx_blocks(pygbx, d) == blocks[p]]
            ours = sum(per_file[p] for p, _ in ok)
            theirs = sum(best_of(repeat, lambda d=d: pygbx.Gbx(d)) for _, d in ok)
            peer.add("full parse", len(ok), sum(len(d) for _, d in ok) / MB, ours, theirs, ours / theirs)
        finally:
            logging.disable(logging.NOTSET)
        peer.notes.append(f"{len(ok)} of {len(maps)} corpus maps; on the others pygbx raises or reads "
                          f"another block count (ManiaPlanet, TM2020 and other newer maps)")
    tables.append(peer)
    return tables


def _kind(rows: list[dict], path: str) -> str:
    return next(r["kind"] for r in rows if r["path"] == path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for t in run(args.repeat):
        print(t.render())


if __name__ == "__main__":
    main()
