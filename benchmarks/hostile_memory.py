#!/usr/bin/env python3
"""The daemon's memory bound (cache_mb + 100 MB) under hostile files and many readers.

    .venv/bin/python benchmarks/hostile_memory.py [--cache-mb 32] [--only thumbs,bomb,zip,readers]
                                                  [--checkout DIR ...] [--timeout S]

Each case gets a fresh `gbxfs mount -f` at the given cache_mb, then its reads,
then the daemon's peak RSS (VmHWM) next to the bound:
  thumbs   eight maps with 4096x4096 JPEG thumbnails (about 260 KB each, written
           with the project's GBX writer), their thumbnail.jpg read at once by
           eight threads, then every file of their folders
  bomb     a map of about 1 MB whose LZO body inflates to 256 MiB: every file of
           its folder read (body.bin, info.txt, error.txt)
  zip      a map embedding a ZIP of four 64 MiB members (zeros): the four
           members of items/ read at once, then the folder's other files
  readers  16 concurrent readers over every GBX folder of the corpus
           (corpus_walk.py's readers, --timeout seconds at most)
The million-entry pak is benchmarks/pak_table.py (`--cache-mb 32`). A read that
fails (EIO: the file is refused) counts as an error, not as a failure of the
bound: what is measured is the memory. Not a test: numbers to read.
"""
from __future__ import annotations

import argparse
import io
import os
import struct
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

from bench_util import ROOT, start_mount, unmount
from corpus_walk import _status, run_one

MiB = 1 << 20


def _thumbnail_chunk(jpeg: bytes) -> bytes:
    return (struct.pack("<II", 1, len(jpeg)) + b"<Thumbnail.jpg>" + jpeg + b"</Thumbnail.jpg>"
            + b"<Comments>" + struct.pack("<I", 0) + b"</Comments>")


def _big_jpeg(seed: int) -> bytes:
    from PIL import Image
    im = Image.new("RGB", (4096, 4096), (seed * 30 % 256, 80, 160))
    out = io.BytesIO()
    im.save(out, format="JPEG", quality=90)
    return out.getvalue()


def _items_chunk(zip_bytes: bytes) -> bytes:
    inner = struct.pack("<I", 0) + struct.pack("<I", len(zip_bytes)) + zip_bytes + struct.pack("<I", 0)
    return struct.pack("<III", 1, 0, len(inner)) + inner


def build(folder: Path, what: str) -> None:
    """Write the hostile files of case `what` into `folder`."""
    from gbxfs.formats.gbx.writer import build_gbx, node_body
    if what == "thumbs":
        for i in range(8):
            data = build_gbx(header_chunks=[(0x03043007, _thumbnail_chunk(_big_jpeg(i)), True)])
            (folder / f"thumb{i}.Map.Gbx").write_bytes(data)
    elif what == "bomb":
        body = node_body([(0x03043011, bytes(256 * MiB - 64), False)])
        (folder / "bomb.Map.Gbx").write_bytes(build_gbx(body_comp="C", body=body))
    elif what == "zip":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for i in range(4):
                z.writestr(f"Items/m{i}.bin", bytes(64 * MiB))
        body = node_body([(0x03043054, _items_chunk(buf.getvalue()), True)])
        (folder / "items.Map.Gbx").write_bytes(build_gbx(body=body))


def _read(path: str, counts: list[int], lock: threading.Lock) -> None:
    try:
        with open(path, "rb") as f:
            n = 0
            while chunk := f.read(1 << 17):
                n += len(chunk)
        with lock:
            counts[0] += 1
            counts[2] += n
    except OSError:
        with lock:
            counts[1] += 1


def _parallel(paths: list[str], counts: list[int]) -> None:
    lock = threading.Lock()
    threads = [threading.Thread(target=_read, args=(p, counts, lock)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _all_files(mp: str) -> list[str]:
    out = []
    for d, dirs, names in os.walk(mp):
        dirs.sort()
        out += [os.path.join(d, n) for n in sorted(names)]
    return out


def run_case(checkout: Path, what: str, cache_mb: int, src: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="gbxfs-hostile-") as mp:
        env = dict(os.environ, PYTHONPATH=str(checkout))
        cmd = [sys.executable, "-c", "import sys; from gbxfs.cli import run; sys.exit(run())",
               "mount", str(src), mp, "-f", "-o", f"cache_mb={cache_mb}"]
        proc = start_mount(cmd, mp, env)
        try:
            t0 = time.perf_counter()
            counts = [0, 0, 0]          # files read, errors, bytes
            first = {"thumbs": "thumbnail.jpg", "zip": "/items/", "bomb": "body.bin"}[what]
            files = _all_files(mp)
            _parallel([p for p in files if first in p], counts)
            for p in files:
                if first not in p:
                    _read(p, counts, threading.Lock())
            return {"seconds": time.perf_counter() - t0, "peak_mb": _status(proc.pid, "VmHWM") / 1024,
                    "out": f"{counts[0]} files ({counts[2] / MiB:.0f} MiB), {counts[1]} refused"}
        finally:
            unmount(proc, mp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", action="append", type=Path, help="gbxfs source tree (repeatable)")
    ap.add_argument("--cache-mb", type=int, default=32)
    ap.add_argument("--only", default="thumbs,bomb,zip,readers")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the readers case")
    args = ap.parse_args()
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    bound = args.cache_mb + 100
    print(f"cache_mb={args.cache_mb}; RSS bound {bound} MB")
    print("| checkout | case | seconds | reads | peak RSS MB | within bound |")
    print("|---|---|---:|---|---:|---|")
    with tempfile.TemporaryDirectory(prefix="gbxfs-hostile-src-") as tmp:
        for what in args.only.split(","):
            if what == "readers":
                rows = [(co, run_one(co, "readers", args.cache_mb, args.timeout)) for co in checkouts]
            else:
                src = Path(tmp) / what
                src.mkdir()
                build(src, what)
                rows = [(co, run_case(co, what, args.cache_mb, src)) for co in checkouts]
            for co, row in rows:
                print(f"| {co} | {what} | {row['seconds']:.1f} | {row['out']} | {row['peak_mb']:.0f} | "
                      f"{'yes' if row['peak_mb'] <= bound else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
