"""Pak extraction: memory stays bounded for a 100 MB entry; decrypt speed.

    .venv/bin/python benchmarks/pak_extract.py [--mb 100] [--keep DIR]

Builds (with the project's writer) a pak holding one compressed and one
stored entry of --mb MiB each, then:
1. runs `gbxfs extract` in a child process and reports its peak RSS
   (ru_maxrss) next to the interpreter's baseline RSS with gbxfs imported;
2. extracts again in-process under tracemalloc and reports the peak of
   Python allocations during extraction;
3. times raw decryption (plain_range over the stored entry) and the
   verifying inflate pass, and random 64 KiB reads after it.
Not a test: numbers to read, not assertions.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbxfs.formats.pak.packlist import derive_key  # noqa: E402
from gbxfs.formats.pak.writer import PakFile, make_key_string, write_packs  # noqa: E402
from gbxfs.tree.pak.archive import PakArchive  # noqa: E402
from gbxfs.tree.source import FileSource  # noqa: E402

MiB = 1 << 20


def payload(size: int) -> bytes:
    """Texture-like data: compresses to about a third with zlib."""
    rnd = random.Random(1)
    words = [rnd.randbytes(rnd.randint(4, 24)) for _ in range(4096)]
    out = bytearray()
    while len(out) < size:
        out += rnd.randbytes(64) + b"".join(rnd.choices(words, k=64))
    return bytes(out[:size])


# Runs a gbxfs command in a fresh interpreter and prints its own peak RSS
# (VmHWM belongs to the process's address space, so nothing of the parent's
# memory can be counted in, unlike ru_maxrss across fork/exec).
CHILD = """
import sys
from gbxfs.cli import main
code = main(sys.argv[1:]) if len(sys.argv) > 1 else 0
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")), file=sys.stderr)
sys.exit(code)
"""


def child_rss(argv: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of `gbxfs argv...` in a child process."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"{argv} failed: {proc.stderr}")
    return dt, int(proc.stderr.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--keep", help="work folder to keep (default: a temporary one)")
    args = ap.parse_args()
    size = args.mb * MiB
    work = Path(args.keep or tempfile.mkdtemp(prefix="gbxfs-bench-"))
    try:
        t = time.perf_counter()
        data = payload(size)
        write_packs(work / "Packs", {"Big": [PakFile("Big/Media/big.dds", data, level=1),
                                             PakFile("Big/Media/big.raw", data, compress=False)]})
        del data
        pak = work / "Packs/Big.pak"
        print(f"setup: {2 * args.mb} MiB of entries written in {time.perf_counter() - t:.1f} s "
              f"(pak {pak.stat().st_size / MiB:.1f} MiB)")

        _, base = child_rss([])
        dt, peak = child_rss(["extract", "-q", str(work / "Packs"), str(work / "out")])
        print(f"extract (child process): {dt:.2f} s for {2 * args.mb} MiB out, "
              f"{2 * size / MiB / dt:.0f} MiB/s; peak RSS {peak / 1024:.1f} MiB "
              f"(interpreter alone: {base / 1024:.1f} MiB)")
        shutil.rmtree(work / "out")

        from gbxfs.cli.extract import main as extract_main
        tracemalloc.start()
        extract_main(["-q", str(work / "Packs"), str(work / "out")])
        _, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"extract (tracemalloc): peak Python allocations {traced / MiB:.1f} MiB")
        shutil.rmtree(work / "out")

        src = FileSource(str(pak))
        key = derive_key(make_key_string("Big:1234"))
        arc = PakArchive(src.read_at, src.size, key)
        raw, comp = (arc.entry(r) for r in sorted(arc.files, key=lambda r: r.compressed))
        t = time.perf_counter()
        for off in range(0, raw.size, 4 * MiB):
            raw.read(off, 4 * MiB)
        dt = time.perf_counter() - t
        print(f"decrypt (stored entry, 4 MiB reads): {raw.size / MiB / dt:.0f} MiB/s")
        t = time.perf_counter()
        assert comp.check() is None
        dt = time.perf_counter() - t
        print(f"verify pass (decrypt + inflate + Adler-32): {dt:.2f} s, {comp.size / MiB / dt:.0f} MiB/s out")
        rnd = random.Random(2)
        t = time.perf_counter()
        n = 50
        for _ in range(n):
            comp.read(rnd.randrange(comp.size), 64 * 1024)
        dt = time.perf_counter() - t
        print(f"random 64 KiB reads after the pass (no cache): {dt / n * 1000:.1f} ms each")
        src.close()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
