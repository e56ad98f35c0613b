#!/usr/bin/env python3
"""A pak whose file table is its bulk: listing it, walking it, the daemon's memory.

    .venv/bin/python benchmarks/pak_table.py [--files 1000000] [--keep DIR]
                                             [--checkout DIR ...] [--cache-mb N]
                                             [--pack-version 6..18] [--no-mount]

Writes (with the project's writer, `formats/pak/writer.many_files`, seeded) a
pak of --files entries, 1000 to a folder (a million files: about 60 MB, nearly
all of it file table), or reuses the one in --keep. With --pack-version, a
ManiaPlanet pack `Big.Pack.Gbx` of that version instead (writer6.many_pack_files:
the same entries, public, the table under the public header key; versions
15+ hold at most a 16 MiB table, about 200,000 files). Then, per --checkout (a
gbxfs source tree; default this one; give two to compare before and after
side by side under the same load):
  cli ls     `gbxfs ls Big.pak` in a child process: seconds, peak RSS
  cli info   `gbxfs info Big.pak` the same way
  mount      `gbxfs mount -f` of the folder, then
    ls 1     first `ls` of the pak, with a second `ls` started 0.2 s later
             (it waits for the same first load)
    find     `find . | wc -l` of the whole mount
    ls 3     `ls` of the pak again
  with the daemon's RSS after each step and its peak (VmHWM), next to the
  bound it should keep (cache_mb + 100 MB).
Not a test: numbers to read.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_util import unmount  # noqa: E402
from gbxfs.formats.pak.writer import many_files, write_packs  # noqa: E402
from gbxfs.formats.pak.writer6 import build_pack, many_pack_files  # noqa: E402

CHILD = """
import sys
from gbxfs.cli import main
code = main(sys.argv[1:])
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")), file=sys.stderr)
sys.exit(code)
"""


def status(pid: int, field: str) -> int:
    """A /proc/PID/status field in MB (0 once the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def build(folder: Path, files: int, version: int | None) -> Path:
    pak = folder / ("Big.pak" if version is None else "Big.Pack.Gbx")
    stamp = folder / (f".files-{files}" if version is None else f".files-{files}-v{version}")
    if not stamp.exists():
        t = time.perf_counter()
        if version is None:
            write_packs(folder, {"Big": many_files(files, seed=1)})
        else:
            pak.write_bytes(build_pack(many_pack_files(files, seed=1), version=version, header_flags=2))
        stamp.touch()
        print(f"wrote {pak} ({pak.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t:.0f} s", flush=True)
    return pak


def timed(cmd: str, cwd: str) -> tuple[float, str]:
    t = time.perf_counter()
    r = subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - t, r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()


def cli(checkout: Path, command: str, pak: Path) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    t = time.perf_counter()
    # cwd: `python -c` puts the current folder ahead of PYTHONPATH
    r = subprocess.run([sys.executable, "-c", CHILD, command, str(pak)], env=env, capture_output=True, text=True,
                       cwd=checkout)
    return time.perf_counter() - t, int(r.stderr.split()[-1]) // 1024


def mounted(checkout: Path, folder: Path, cache_mb: int | None, name: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="gbxfs-paktable-") as mp:
        cmd = [sys.executable, "-c", "import sys; from gbxfs.cli import run; sys.exit(run())",
               "mount", str(folder), mp, "-f"] + (["-o", f"cache_mb={cache_mb}"] if cache_mb else [])
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=checkout)
        try:
            deadline = time.monotonic() + 60
            while not os.path.ismount(mp):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("mount failed")
                time.sleep(0.1)
            out["rss0"] = status(proc.pid, "VmRSS")
            second: dict = {}

            def later() -> None:
                time.sleep(0.2)
                second["t"] = timed(f"ls {name} | wc -l", mp)[0]
            th = threading.Thread(target=later)
            th.start()
            out["ls1"], out["ls1_out"] = timed(f"ls {name} | wc -l", mp)
            th.join()
            out["ls2"] = second["t"]
            out["rss_ls"] = status(proc.pid, "VmRSS")
            out["find"], out["find_out"] = timed("find . | wc -l", mp)
            out["rss_find"] = status(proc.pid, "VmRSS")
            out["ls3"] = timed(f"ls {name} | wc -l", mp)[0]
            out["hwm"] = status(proc.pid, "VmHWM")
        finally:
            unmount(proc, mp)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path, help="folder for the pak (reused when it holds one of --files)")
    ap.add_argument("--checkout", action="append", type=Path)
    ap.add_argument("--cache-mb", type=int)
    ap.add_argument("--no-mount", action="store_true")
    ap.add_argument("--pack-version", type=int, help="a .Pack.Gbx of this version (6-18) instead of a .pak")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="gbxfs-paktable-src-"))
    folder.mkdir(parents=True, exist_ok=True)
    pak = build(folder, args.files, args.pack_version)
    bound = (args.cache_mb or 256) + 100
    for co in args.checkout or [ROOT]:
        co = co.resolve()
        for command in ("ls", "info"):
            secs, peak = cli(co, command, pak)
            print(f"{co}: cli `gbxfs {command}` {secs:.1f} s, peak RSS {peak} MB", flush=True)
        if args.no_mount:
            continue
        r = mounted(co, folder, args.cache_mb, pak.name)
        print(f"{co}: mount RSS {r['rss0']} MB; first ls {r['ls1']:.1f} s ({r['ls1_out']} names), second ls "
              f"(started 0.2 s later) {r['ls2']:.1f} s, RSS {r['rss_ls']} MB; find {r['find']:.1f} s "
              f"({r['find_out']} entries), RSS {r['rss_find']} MB; ls again {r['ls3']:.2f} s; "
              f"peak RSS {r['hwm']} MB (bound {bound} MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
