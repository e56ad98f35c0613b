#!/usr/bin/env python3
"""How far what a body walk holds runs ahead of its count (tree/gbx/cost.py).

    PYTHONPATH=. .venv/bin/python benchmarks/walk_excess.py [--no-charge] [--limit-mb N] [NAME ...]

Walks each corpus body (NAME: the end of a manifest path; default: the files with
one huge chunk) with the tree's WalkBudget, tracing allocations (tracemalloc),
and prints the largest excess of what was held over the count so far, read at
every chunk end and every charge. --no-charge walks as before the generated
decoders' charges (chunk by chunk only). --limit-mb stops the walks there and
prints the count at the stop and the peak held. Slow (tracemalloc): minutes.
"""
from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from corpusdata import corpus_body  # noqa: E402

from gbxfs.formats.gbx.nodes import walk_body  # noqa: E402
from gbxfs.tree.gbx.cost import TooLarge, WalkBudget  # noqa: E402

MIB = 1 << 20
FILES = ("Fall 2021 - 16.Map.Gbx", "Cpexport#1.Crystal.Gbx", "Cpexport#2.Crystal.Gbx", "Duplication.Crystal.Gbx",
         "HaloTournant.Crystal.Gbx", "goth.Map.Gbx")


def excess(body: bytes, kw: dict, charge: bool, limit: int) -> tuple[int, int, int | None, int]:
    """(largest excess, count, count at a stop or None, peak held) of one traced walk."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    budget = WalkBudget(limit, min(limit, 4 * MIB))
    worst = 0
    top = 0

    def look() -> None:
        nonlocal worst, top
        peak = tracemalloc.get_traced_memory()[1] - base
        top = max(top, peak)
        worst = max(worst, peak - budget.total - budget.pending)
        tracemalloc.reset_peak()

    def on_chunk(c) -> None:
        look()
        budget.on_chunk(c)

    def on_charge(r, n: int) -> None:
        look()
        budget.charge(r, n)

    stopped = None
    try:
        walk_body(body, on_chunk=on_chunk, charge=on_charge if charge else None, **kw)
    except TooLarge as e:
        stopped = e.cost
    look()
    tracemalloc.stop()
    return worst, budget.total, stopped, top


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", default=list(FILES))
    ap.add_argument("--no-charge", action="store_true")
    ap.add_argument("--limit-mb", type=int, default=None)
    args = ap.parse_args()
    limit = args.limit_mb * MIB if args.limit_mb else 1 << 40
    for name in args.names:
        body, kw = corpus_body(name)
        walk_body(body, **kw)               # declarations compiled, classes looked up
        worst, total, stopped, top = excess(body, kw, not args.no_charge, limit)
        end = f"stopped at {stopped / MIB:.1f} MiB counted" if stopped is not None else f"counted {total / MIB:.1f} MiB"
        print(f"{name}: body {len(body) / MIB:.1f} MiB, {end}, held at most {top / MIB:.1f} MiB, "
              f"largest excess over the count {worst / MIB:.1f} MiB")


if __name__ == "__main__":
    main()
