#!/usr/bin/env python3
"""Where a mount's memory goes while concurrent readers read the corpus.

    .venv/bin/python benchmarks/mount_memory.py [--cache-mb 48] [--readers 16] [--timeout 120]
                                                [--checkout DIR] [--tracemalloc] [--env K=V ...]

Mounts the corpus (as corpus_walk.py does) with a daemon that samples itself
every 0.2 s: RSS (anonymous), glibc's heap (mallinfo2: bytes in use, free
bytes kept in the arenas, mmapped bytes), the cache's bytes per rank, the
bytes held for body walks in flight (ByteLRU.making), and how many body
reads, body walks and chunk renders run at that moment. Then N readers read
every GBX folder (corpus_walk.py's readers). Prints the sample at the
daemon's peak RSS, the largest of each figure, and files per minute.

--tracemalloc also traces Python allocations in the daemon (slow) and prints,
at the traced peak, the allocation sites holding the most. --env sets
variables for the daemon only (e.g. MALLOC_ARENA_MAX=1). Not a test: run by hand.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_util import CORPUS, ROOT, start_mount, unmount  # noqa: E402

MIB = 1 << 20


# -- the daemon side -------------------------------------------------------------------
def _mallinfo():
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                     "uordblks", "fordblks", "keepcost")]
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return lambda: {}
    fn.restype = MallInfo2

    def get():
        m = fn()
        return {"heap_used": m.uordblks, "heap_free": m.fordblks, "mmapped": m.hblkhd}
    return get


def _status() -> dict:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "VmHWM", "Threads"):
                out[k] = int(v.split()[0]) * (1024 if k != "Threads" else 1)
    return out


def _smaps() -> dict:
    """RSS of anonymous mappings by kind: the brk heap, pymalloc's 1 MiB arenas,
    other anonymous mappings (glibc thread arenas, large blocks, stacks)."""
    out = {"rss_brk": 0, "rss_pyarenas": 0, "rss_anon_other": 0, "n_pyarenas": 0}
    kind = None
    with open("/proc/self/smaps") as f:
        for line in f:
            first = line.split(None, 6)
            if "-" in first[0] and len(first) >= 5 and not first[0].endswith(":"):
                lo, hi = (int(x, 16) for x in first[0].split("-"))
                name = first[5].strip() if len(first) > 5 else ""
                if name == "[heap]":
                    kind = "rss_brk"
                elif name:
                    kind = None
                elif hi - lo == 1 << 20:
                    kind = "rss_pyarenas"
                    out["n_pyarenas"] += 1
                else:
                    kind = "rss_anon_other"
            elif first[0] == "Rss:" and kind:
                out[kind] += int(first[1]) * 1024
    return out


def _pymalloc(tmp: str) -> dict:
    """pymalloc's arenas (sys._debugmallocstats, which writes to fd 2: redirected
    to a file for the call)."""
    import re
    with open(tmp, "w+b") as f:
        saved = os.dup(2)
        try:
            os.dup2(f.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read().decode(errors="replace")
    out = {}
    for key, pat in (("py_arenas", r"# arenas allocated current\s*=\s*([\d,]+)"),
                     ("py_used", r"# bytes in allocated blocks\s*=\s*([\d,]+)"),
                     ("py_avail", r"# bytes in available blocks\s*=\s*([\d,]+)"),
                     ("py_free_pools", r"(\d[\d,]*) unused pools \*")):
        m = re.search(pat, text)
        if m:
            out[key] = int(m.group(1).replace(",", ""))
    if "py_free_pools" in out:
        out["py_free_pools"] *= 16384
    return out


def _census() -> list:
    """Live objects the collector tracks, by type: count and shallow bytes (the
    untracked ones they hold, such as ints, floats and strings, not counted)."""
    import gc
    by: dict[str, list[int]] = {}
    for o in gc.get_objects():
        t = type(o)
        row = by.setdefault(f"{t.__module__}.{t.__qualname__}", [0, 0])
        row[0] += 1
        row[1] += sys.getsizeof(o)
    return sorted(([k, n, b] for k, (n, b) in by.items()), key=lambda r: -r[2])[:25]


def _reach(cache) -> list:
    """Bytes reachable (sys.getsizeof of every object, tracked or not) from, in
    turn: the cache's values, the FUSE inode table, the worker threads' frames,
    then whatever else the collector tracks; not through modules, classes,
    functions, the cache or the table themselves (their baseline is "other")."""
    import gc
    import threading
    import types
    from gbxfs.fuse.inodes import InodeTable
    from gbxfs.tree.cache import ByteLRU
    stop = (types.ModuleType, type, types.FunctionType, types.CodeType, ByteLRU, InodeTable,
            types.BuiltinFunctionType)
    seen: set = set()

    kinds: dict[str, list[int]] = {}

    def total(roots, count_kinds=False) -> tuple[int, int]:
        n = size = 0
        stack = list(roots)
        while stack:
            o = stack.pop()
            if id(o) in seen:
                continue
            seen.add(id(o))
            n += 1
            b = sys.getsizeof(o)
            size += b
            if count_kinds:
                row = kinds.setdefault(f"  of which {type(o).__module__}.{type(o).__qualname__}", [0, 0])
                row[0] += 1
                row[1] += b
            stack.extend(r for r in gc.get_referents(o) if not isinstance(r, stop))
        return n, size
    seen.add(id(cache._items))
    out = [["cache values", *total([v for v, _, _ in list(cache._items.values())])]]
    tables = [o for o in gc.get_objects() if type(o) is InodeTable]
    for t in tables:
        seen.add(id(t))
    out.append(["inode table", *total([vars(t) if hasattr(t, "__dict__") else t for t in tables])])
    me = threading.get_ident()
    out.append(["thread frames", *total([f for k, f in sys._current_frames().items() if k != me])])
    by: dict[str, list[int]] = {}
    for o in gc.get_objects():
        if id(o) in seen:
            continue
        t = type(o)
        n, size = total([o], t.__name__ in ("cell", "ParsedBody"))
        row = by.setdefault(f"other, from {t.__module__}.{t.__qualname__}", [0, 0])
        row[0] += n
        row[1] += size
    out += sorted(([k, n, b] for k, (n, b) in by.items()), key=lambda r: -r[2])[:12]
    out += sorted(([k, n, b] for k, (n, b) in kinds.items()), key=lambda r: -r[2])[:20]
    return out


def serve(argv: list[str], log_path: str, trace: bool) -> int:
    """Run `gbxfs mount argv` in this process with the probes installed."""
    import threading
    import tracemalloc

    from gbxfs.formats.gbx import body as gbx_body
    from gbxfs.tree import cache as cache_mod
    from gbxfs.tree.gbx import digest, parse as gbx_parse

    caches: list = []
    busy = {"reads": 0, "walks": 0, "renders": 0}
    lock = threading.Lock()

    def counting(name, fn):
        def wrapped(*a, **k):
            with lock:
                busy[name] += 1
            try:
                return fn(*a, **k)
            finally:
                with lock:
                    busy[name] -= 1
        return wrapped

    gbx_parse.walk_body = counting("walks", gbx_parse.walk_body)
    gbx_parse.GbxParse._read_body = counting("reads", gbx_parse.GbxParse._read_body)
    digest.render = counting("renders", digest.render)
    init = cache_mod.ByteLRU.__init__

    def register(self, *a, **k):
        init(self, *a, **k)
        caches.append(self)
    cache_mod.ByteLRU.__init__ = register
    _ = gbx_body
    if trace:
        tracemalloc.start(4)
    mallinfo = _mallinfo()
    peak = {"rss": 0, "traced": 0, "next": 0.0}

    def sample():
        next_py, last_py, done_census, t_start, last_rss = 0.0, {}, [], time.monotonic(), [0]
        with open(log_path, "w") as log:
            while True:
                s = {"t": time.monotonic(), **_status(), **mallinfo(), **_smaps(), **dict(busy)}
                if time.monotonic() > next_py:
                    if os.environ.get("BENCH_GC_COLLECT"):
                        import gc
                        t0 = time.perf_counter()
                        s["gc_found"] = gc.collect()
                        s["gc_s"] = time.perf_counter() - t0
                    s.update(_pymalloc(log_path + ".py"))     # nothing while tracemalloc traces
                    s["py_arenas"] = s.get("py_arenas", 0) * MIB
                    s.update((k, 0) for k in ("py_used", "py_avail", "py_free_pools") if k not in s)
                    next_py = time.monotonic() + float(os.environ.get("BENCH_PY_EVERY", "2"))
                    last_py.update((k, s[k]) for k in ("py_arenas", "py_used", "py_avail", "py_free_pools"))
                s.update((k, v) for k, v in last_py.items() if k not in s)
                if caches:
                    c = caches[0]
                    s.update(cache=c.current_bytes, cheap=c.rank_bytes(0), costly=c.rank_bytes(1),
                             durable=c.rank_bytes(2), in_flight=getattr(c, "_in_flight", 0),
                             bound=getattr(c, "bound", c.max_bytes))
                if trace:
                    cur, top = tracemalloc.get_traced_memory()
                    s["traced"] = cur
                    if (cur > peak["traced"] * 1.05 or time.monotonic() > peak["next"]) and cur > 32 * MIB:
                        peak["traced"] = max(cur, peak["traced"])
                        peak["next"] = time.monotonic() + 60
                        snap = tracemalloc.take_snapshot()
                        stats = snap.statistics("lineno")[:16] + snap.statistics("traceback")[:8]
                        s["top"] = [[st.size, [f"{fr.filename.rsplit('/', 3)[-1]}:{fr.lineno}"
                                               for fr in st.traceback]] for st in stats]
                if s["VmRSS"] > last_rss[0] + 8 * MIB:     # a jump: what every thread is doing
                    import traceback
                    s["stacks"] = [[f"{fr.filename.rsplit('/', 2)[-1]}:{fr.lineno} {fr.name}"
                                    for fr in traceback.extract_stack(f)[-7:]]
                                   for f in sys._current_frames().values()]
                last_rss[0] = s["VmRSS"]
                reach_at = float(os.environ.get("BENCH_REACH", "0") or 0)
                if reach_at and s["t"] - t_start > reach_at and caches and "reach" not in done_census:
                    done_census.append("reach")
                    s["reach"] = _reach(caches[0])
                census_at = float(os.environ.get("BENCH_CENSUS", "0") or 0)
                if census_at and s["t"] - t_start > census_at and 1 not in done_census:
                    done_census.append(1)
                    s["census"] = _census()
                log.write(json.dumps(s) + "\n")
                log.flush()
                time.sleep(0.2)
    threading.Thread(target=sample, daemon=True).start()
    from gbxfs.cli import main as run
    return run(["mount", *argv])


# -- the driver side -------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--serve", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    ap.add_argument("--log", help=argparse.SUPPRESS)
    ap.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cache-mb", type=int, default=48)
    ap.add_argument("--readers", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--checkout", type=Path, default=ROOT)
    ap.add_argument("--tracemalloc", action="store_true")
    ap.add_argument("--samples", help="keep the daemon's samples (JSON lines) in this file")
    ap.add_argument("--timeline", action="store_true", help="print about 60 samples over time")
    ap.add_argument("--env", action="append", default=[], help="K=V for the daemon")
    ap.add_argument("-o", dest="options", action="append", default=[], help="more mount options")
    args = ap.parse_args()
    if args.serve is not None:
        return serve(args.serve, args.log, args.trace)

    from corpus_walk import _readers
    env = dict(os.environ, PYTHONPATH=str(args.checkout.resolve()))
    env.update(kv.split("=", 1) for kv in args.env)
    with tempfile.TemporaryDirectory(prefix="gbxfs-mem-") as tmp:
        mp, log = os.path.join(tmp, "mnt"), args.samples or os.path.join(tmp, "samples.jsonl")
        os.mkdir(mp)
        cmd = [sys.executable, __file__, "--log", log] + ["--trace"] * args.tracemalloc + [
            "--serve", str(CORPUS), mp, "-f", "-o", ",".join([f"cache_mb={args.cache_mb}", *args.options])]
        proc = start_mount(cmd, mp, env)
        started = time.monotonic()
        try:
            out, _ = _readers(mp, args.readers, args.timeout)
        finally:
            unmount(proc, mp)
        samples = [json.loads(ln) for ln in open(log) if ln.strip()]
    report(samples, args, out, started)
    return 0


def report(samples: list[dict], args, out: str, started: float) -> None:
    bound = args.cache_mb + 100
    if args.timeline:
        print("  s    RSS brk other  pyarenas used  heap used/free  cache (cheap costly durable)  bound  in flight  reads walks renders")
        for s in samples[::max(1, len(samples) // 60)]:
            print(f"{s['t'] - started:5.0f} {s['VmRSS'] / MIB:6.0f} {s['rss_brk'] / MIB:3.0f}"
                  f" {s['rss_anon_other'] / MIB:5.0f} {s.get('py_arenas', 0) / MIB:5.0f} {s.get('py_used', 0) / MIB:5.0f}"
                  f"   {s['heap_used'] / MIB:7.0f} {s['heap_free'] / MIB:5.0f}"
                  f"  {s.get('cache', 0) / MIB:6.1f} ({s.get('cheap', 0) / MIB:.0f} {s.get('costly', 0) / MIB:.0f}"
                  f" {s.get('durable', 0) / MIB:.0f})  {s.get('bound', 0) / MIB:5.1f}  {s.get('in_flight', 0) / MIB:8.0f}  {s['reads']} {s['walks']} {s['renders']}")
    print(f"{args.checkout} {' '.join(args.env + args.options)}: cache_mb={args.cache_mb}, {args.readers} readers: {out}")
    top = max(samples, key=lambda s: s["VmRSS"])
    keys = ["VmRSS", "RssAnon", "rss_brk", "rss_anon_other", "py_arenas", "py_used", "py_avail", "py_free_pools",
            "heap_used", "heap_free",
            "mmapped", "traced", "cache", "cheap", "costly",
            "durable", "bound", "in_flight"]
    print(f"peak RSS {top['VmHWM'] / MIB:.0f} MiB (bound {bound} MB); sample at the largest RSS seen:")
    print("  " + ", ".join(f"{k} {top[k] / MIB:.1f}" for k in keys if k in top)
          + f"; reads {top['reads']}, walks {top['walks']}, renders {top['renders']}, threads {top['Threads']}")
    print("largest of each: " + ", ".join(f"{k} {max(s.get(k, 0) for s in samples) / MIB:.1f}" for k in keys)
          + ", " + ", ".join(f"{k} {max(s[k] for s in samples)}" for k in ("reads", "walks", "renders", "Threads")))
    for s in samples:
        if "reach" in s:
            print(f"reachable at {s['t'] - started:.0f} s (RSS {s['VmRSS'] / MIB:.0f} MiB, cache counts"
                  f" {s.get('cache', 0) / MIB:.1f} MiB, pymalloc used {s.get('py_used', 0) / MIB:.0f} MiB):")
            for name, n, b in s["reach"]:
                print(f"  {b / MIB:7.1f} MiB {n:9d}  {name}")
        if "census" in s:
            print(f"objects at {s['t'] - started:.0f} s (tracked by the collector, shallow sizes):")
            for name, n, b in s["census"]:
                print(f"  {b / MIB:7.1f} MiB {n:9d}  {name}")
    jumps = [s for s in samples if "stacks" in s and s["VmRSS"] > 100 * MIB]
    for s in jumps[:3]:
        print(f"RSS jump to {s['VmRSS'] / MIB:.0f} MiB at {s['t'] - started:.0f} s; threads at work:")
        for st in s["stacks"]:
            if any("gbxfs" in fr or ".chunks" in fr for fr in st):
                print("   " + " > ".join(st))
    traced = [s for s in samples if "top" in s]
    for s in ([max(traced, key=lambda s: s["traced"]), traced[-1]] if traced else []):
        print(f"traced allocations at {s['t'] - started:.0f} s: {s['traced'] / MIB:.1f} MiB, the largest sites:")
        for size, frames in s["top"]:
            print(f"  {size / MIB:7.1f} MiB  " + " < ".join(frames))


if __name__ == "__main__":
    sys.exit(main())
