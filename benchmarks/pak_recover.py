"""Feed search on the hidden-class set (tests/formats/pak/hidden_kit.py): for every
corpus class with chunk declarations, the smallest corpus files holding it (body
stored uncompressed) go into a compressed pak written by our writer, and are read
back by a reader whose declarations lack that class.

Prints: entries, how many the parse's own feeds verify, how many need the search,
how many it recovers (Adler-32 verified), wrong bytes (must be 0), and the time
and attempts per searched entry.

    .venv/bin/python benchmarks/pak_recover.py [--per-class N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "formats" / "pak")]

from hidden_kit import cases, read_back  # noqa: E402

from gbxfs.formats.gbx import classdb  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-class", type=int, default=2)
    args = ap.parse_args()
    all_cases = cases(args.per_class)
    by_parse = wrong = 0
    searched: list[tuple[float, int, int, bool]] = []   # seconds, size, attempts, recovered
    for case in all_cases:
        t = time.perf_counter()
        e, data = read_back(case)
        dt = time.perf_counter() - t
        if data is not None and data != case.data:
            wrong += 1
        rec = e.gbx.recovery if e.gbx is not None else None
        if rec is None:
            by_parse += data is not None
            continue
        searched.append((dt, len(case.data), rec.attempts, rec.data is not None, case.chunk_feed_after))
        if rec.data is None:
            print(f"  EIO  {classdb.class_name(case.hidden)}  {case.path}: {rec.reason}"
                  + ("  (a chunk feeds from its data past the stop)" if case.chunk_feed_after else ""))
    node_only = [s for s in searched if not s[4]]
    ok = sum(1 for s in node_only if s[3])
    print(f"entries {len(all_cases)} ({len({c.hidden for c in all_cases})} classes), verified by parse {by_parse}, "
          f"searched {len(searched)}; missing feeds all node reads: {len(node_only)}, recovered {ok} "
          f"({100 * ok / max(1, len(node_only)):.1f}%); with a chunk feeding from its data past the stop: "
          f"{len(searched) - len(node_only)}, recovered {sum(1 for s in searched if s[3] and s[4])}; "
          f"wrong bytes {wrong}")
    if searched:
        times = [s[0] for s in searched]
        print(f"time per searched entry: median {statistics.median(times) * 1000:.0f} ms, "
              f"mean {statistics.mean(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
              f"({max(searched)[1]} bytes); attempts median {statistics.median(s[2] for s in searched)}, "
              f"max {max(s[2] for s in searched)}")


if __name__ == "__main__":
    main()
