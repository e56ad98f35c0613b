#!/usr/bin/env python3
"""GBX parsing speed over the shared corpus (not a test: run by hand or in CI logs).

    .venv/bin/python benchmarks/gbx_parse.py [--repeat N]

Measures, for every GBX of ../shared/corpus/MANIFEST.tsv (kinds map, replay, ghost,
item, other): header-only parsing (what a directory listing needs), and the full
parse (header chunks decoded, body decompressed and walked with the declarations).
Targets (on a typical developer machine, one core):
  - headers: all corpus headers in under 0.5 s in total;
  - full parse: at least 5 MB/s of decompressed body on average, and no single
    file slower than 3 s.
Exit status 1 when a target is missed, so a regression is visible.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbxfs.formats import gbx  # noqa: E402
from gbxfs.formats.gbx.decl import registry  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
KINDS = {"map", "replay", "ghost", "item", "other"}
HEADER_TARGET_S = 0.5
BODY_TARGET_MBPS = 5.0
SLOWEST_TARGET_S = 3.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3, help="take the best of N runs")
    args = ap.parse_args()
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["kind"] in KINDS]
    files = [(r["path"], (CORPUS / r["path"]).read_bytes()) for r in rows]
    registry()  # declarations load once per process; not part of the per-file cost

    best_header = min(_time(lambda: [gbx.parse_header(d) for _, d in files]) for _ in range(args.repeat))
    per_file: dict[str, float] = {}
    body_bytes = 0
    statuses: dict[str, int] = {}
    for path, data in files:
        t = min(_time(lambda: gbx.parse(data)) for _ in range(args.repeat))
        per_file[path] = t
        g = gbx.parse(data)
        body_bytes += len(g.body_bytes or b"")
        statuses[g.body.status] = statuses.get(g.body.status, 0) + 1
    total = sum(per_file.values())
    mbps = body_bytes / total / 1e6
    slowest = sorted(per_file.items(), key=lambda kv: -kv[1])[:5]

    print(f"{len(files)} files, {sum(len(d) for _, d in files) / 1e6:.1f} MB on disk, "
          f"{body_bytes / 1e6:.1f} MB of bodies; body status {statuses}")
    print(f"headers only: {best_header:.3f} s (target < {HEADER_TARGET_S} s)")
    print(f"full parse:   {total:.3f} s, {mbps:.1f} MB/s of body (target >= {BODY_TARGET_MBPS} MB/s)")
    for path, t in slowest:
        print(f"  {t:.3f} s  {path}")
    ok = best_header < HEADER_TARGET_S and mbps >= BODY_TARGET_MBPS and slowest[0][1] < SLOWEST_TARGET_S
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    sys.exit(main())
