"""Seeded mutation fuzz of every input format through the whole tree, as a
mount walks it (robust_walk.walk_folder: every listing, size and byte).

    python tests/robustness/fuzz.py --cases 10000 --seed 24          # every format
    python tests/robustness/fuzz.py --format pack --cases 500 --seed 24
    python tests/robustness/fuzz.py --case pak:1234 --seed 24        # one case again

Formats: gbx (real GBX files, stored and LZO bodies), pak (version 3: the
corpus Sample.pak and a written one with stored GBX entries), pack (versions
6-18 in turn, written with stored GBX entries), gp2 (corpus tracks). Case i
of a format is made from Random(f"{seed}:{format}:{i}") alone, so any case
can be run again by itself. Each case mutates one sample (bit flips, bytes
and words overwritten, truncation, a slice copied elsewhere; in paks and
packs mostly inside the entries' data) and walks the folder holding it,
GBX entries as folders (even cases) or as files (odd ones).

Counted per format:
- crash: any exception escaping the tree other than OSError(EIO), the
  documented answer (ARCHITECTURE.md; robust_walk's "bug");
- hang: a case over the per-case time bound (`--seconds`);
- memory: a traced peak above robust_walk.MEMORY_LIMIT (not with --no-memory);
- wrong_verified: a pak/pack entry served with bytes other than those
  written while its label (user.pak.verification, or `verification` in its
  GBX folder's info.txt) does not say `none: ...` (must be 0);
- wrong_unproven: the same wrong bytes, labelled `none: ... no checksum in
  the format` (what an unprovable entry may do: counted, not an error);
- eio: cases where some file answered EIO (damage found).
Exit status 1 when crash, hang, memory or wrong_verified is not 0.
"""
from __future__ import annotations

import argparse
import functools
import os
import random
import struct
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (HERE.parent, HERE, HERE.parent / "formats" / "pak"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from corpusdata import CORPUS, manifest_rows  # noqa: E402
from robust_stored import PACK_VERSIONS, clips, sample_entries, sample_pak, stored_pack, stored_pak  # noqa: E402
from robust_walk import MEMORY_LIMIT, Hang, walk_folder  # noqa: E402

from gbxfs.tree.context import TreeContext  # noqa: E402
from gbxfs.tree.pak.info import PROOF_XATTR  # noqa: E402

FORMATS = ("gbx", "pak", "pack", "gp2")
CASE_SECONDS = 30.0       # per case; a case takes well under a second (a bound for hangs only)
UNPROVEN = "none:"        # how every label of bytes nothing can prove begins (formats/pak/verification.py)
INTERESTING = (0, 1, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x10000000)


@dataclass
class Sample:
    name: str                          # the mutated file's name in the folder
    data: bytes
    beside: dict[str, bytes] = field(default_factory=dict)   # other files of the folder (keys)
    entries: dict[str, bytes] = field(default_factory=dict)  # archive: entry path -> bytes written
    region: tuple[int, int] = (0, 0)   # where most mutations land (an archive's entry data)


@functools.lru_cache(maxsize=None)
def samples(fmt: str) -> tuple[Sample, ...]:
    if fmt == "gbx":
        rows = [r for r in manifest_rows() if r["kind"] in ("map", "replay") and int(r["size"]) < 24_000]
        picked = [(r["path"], (CORPUS / r["path"]).read_bytes()) for r in sorted(rows, key=lambda r: r["path"])[:4]]
        picked = [("Clip.Clip.Gbx", d) for d in clips()[:4]] + picked
        return tuple(Sample(f"S{i}." + ".".join(p.rsplit("/", 1)[-1].split(".")[-2:]), d)
                     for i, (p, d) in enumerate(picked))
    if fmt == "pak":
        pak, plist, key = sample_pak()
        out = [Sample("Sample.pak", pak, {"packlist.dat": plist}, sample_entries(), _pak_region(pak, key))]
        a = stored_pak()
        out.append(Sample(a.name, a.data, {a.key_file[0]: a.key_file[1]}, a.entries, _pak_region(a.data, a.key)))
        return tuple(out)
    if fmt == "pack":
        out = []
        for v in PACK_VERSIONS:
            a = stored_pack(v)
            out.append(Sample(a.name, a.data, {a.key_file[0]: a.key_file[1]}, a.entries, _pack_region(a.data)))
        return tuple(out)
    if fmt == "gp2":
        rows = [r for r in manifest_rows() if r["format"].startswith("GP2 track file")][:3]
        return tuple(Sample("F1CT01.DAT", (CORPUS / r["path"]).read_bytes()) for r in rows)
    raise ValueError(fmt)


def _pak_region(pak: bytes, key: bytes) -> tuple[int, int]:
    from gbxfs.tree.pak.archive import PakArchive
    h = PakArchive(lambda o, n: pak[o:o + n], len(pak), key).header
    return h.data_offset, h.meta_offset


def _pack_region(pack: bytes) -> tuple[int, int]:
    from gbxfs.tree.pak.archive6 import PackArchive
    return PackArchive(lambda o, n: pack[o:o + n], len(pack), None).data_offset, len(pack)


def mutate(rng: random.Random, s: Sample) -> bytes:
    b = bytearray(s.data)
    lo, hi = s.region

    def at() -> int:
        if hi > lo and rng.random() < 0.8:
            return rng.randrange(lo, hi)
        return rng.randrange(len(b))

    op = rng.randrange(7)
    if op <= 2:                                     # the commonest damage: a few flipped bits
        for _ in range(1 if op < 2 else rng.randint(2, 8)):
            b[at()] ^= 1 << rng.randrange(8)
    elif op == 3:
        p = at()
        b[p:p + rng.randint(1, 16)] = rng.randbytes(rng.randint(1, 16))
    elif op == 4:
        p = min(at(), len(b) - 4)
        struct.pack_into("<I", b, max(0, p), rng.choice(INTERESTING))
    elif op == 5:
        del b[rng.randrange(len(b)):]
    else:
        n = rng.randint(1, 256)
        src = rng.randrange(len(b))
        piece = b[src:src + n]
        p = at()
        b[p:p + len(piece)] = piece
    return bytes(b)


@dataclass
class Outcome:
    crash: int = 0
    hang: int = 0
    memory: int = 0
    wrong_verified: int = 0
    wrong_unproven: int = 0
    eio: int = 0
    first: list[str] = field(default_factory=list)    # the first failing cases, to run again


def _label_of(root, path: str, gbx_folder: bool) -> str | None:
    """The verification label shown for the pak entry at `path` (tree path)."""
    entry = root
    for part in path.strip("/").split("/"):
        entry = entry.child(part) if entry is not None else None
    if entry is None:
        return None
    if gbx_folder:
        info = entry.child("info.txt")
        if info is None:
            return None
        text = info.read(0, info.size()).decode("utf-8", "replace")
        return next((ln.split(" = ", 1)[1] for ln in text.splitlines() if ln.startswith("verification = ")), None)
    raw = entry.xattrs.get(PROOF_XATTR)
    return None if raw is None else bytes(raw).decode()


def run_case(fmt: str, seed: int, i: int, seconds: float = CASE_SECONDS, trace: bool = True) -> Counter:
    """One case: a Counter of the Outcome fields it adds (plus 'why' text in `first`)."""
    rng = random.Random(f"{seed}:{fmt}:{i}")
    pool = samples(fmt)
    s = pool[rng.randrange(len(pool))]
    data = mutate(rng, s)
    folders = i % 2 == 0
    ctx = TreeContext(gbx_mode="folder" if folders else "file")
    got: Counter = Counter()

    def inspect(root, report) -> None:
        for path, want in s.entries.items():
            shown = f"/{s.name}/{path}"
            is_gbx = folders and path.lower().endswith(".gbx")
            served = report.contents.get(shown + "/original.gbx" if is_gbx else shown)
            if served is None or served == want:
                continue
            label = _label_of(root, shown, is_gbx)
            if label is not None and label.startswith(UNPROVEN):
                got["wrong_unproven"] += 1
            else:
                got["wrong_verified"] += 1
                got["why:" + f"{path} served {len(served)} wrong bytes labelled {label!r}"] += 1

    keep = (lambda p: True) if s.entries else None
    try:
        report, peak = walk_folder({s.name: data, **s.beside}, seconds=seconds, keep=keep, ctx=ctx, inspect=inspect,
                                    trace=trace)
    except Hang as e:
        got["hang"] += 1
        got[f"why:{e}"] += 1
        return got
    if report.bugs:
        got["crash"] += 1
        got["why:" + report.problems()[:600]] += 1
    if peak > MEMORY_LIMIT:
        got["memory"] += 1
        got[f"why:traced peak {peak >> 20} MiB"] += 1
    if report.unreadable:
        got["eio"] += 1
    return got


def run(fmt: str, cases: int, seed: int, *, start: int = 0, seconds: float = CASE_SECONDS,
        trace: bool = True, progress=None) -> Outcome:
    out = Outcome()
    for i in range(start, start + cases):
        got = run_case(fmt, seed, i, seconds, trace)
        for k, n in got.items():
            if k.startswith("why:"):
                if len(out.first) < 10:
                    out.first.append(f"{fmt}:{i}: {k[4:]}")
            else:
                setattr(out, k, getattr(out, k) + n)
        if progress is not None:
            progress(fmt, i - start + 1, out)
    return out


def failed(o: Outcome) -> bool:
    return bool(o.crash or o.hang or o.memory or o.wrong_verified)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=FORMATS + ("all",), default="all")
    ap.add_argument("--cases", type=int, default=10_000, help="cases per format")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--seconds", type=float, default=CASE_SECONDS, help="per-case time bound")
    ap.add_argument("--no-memory", action="store_true",
                    help="do not trace memory (about twice as fast; the memory column stays 0)")
    ap.add_argument("--case", help="FORMAT:INDEX: run that one case and print what it found")
    args = ap.parse_args(argv)
    if args.case:
        fmt, _, idx = args.case.partition(":")
        print(dict(run_case(fmt, args.seed, int(idx), args.seconds, not args.no_memory)))
        return 0
    bad = False
    for fmt in FORMATS if args.format == "all" else (args.format,):
        t0 = time.monotonic()

        def progress(fmt, done, o, t0=t0):
            if done % 500 == 0:
                print(f"  {fmt} {done} cases, {time.monotonic() - t0:.0f} s: {_counts(o)}", flush=True)
        o = run(fmt, args.cases, args.seed, start=args.start, seconds=args.seconds,
                trace=not args.no_memory, progress=progress)
        print(f"{fmt}: {args.cases} cases (seed {args.seed}, from {args.start}) in "
              f"{time.monotonic() - t0:.0f} s: {_counts(o)}", flush=True)
        for line in o.first:
            print(f"    {line}")
        bad |= failed(o)
    return 1 if bad else 0


def _counts(o: Outcome) -> str:
    return ", ".join(f"{k} {getattr(o, k)}" for k in ("crash", "hang", "memory", "wrong_verified",
                                                      "wrong_unproven", "eio"))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main(sys.argv[1:]))
