#!/usr/bin/env python3
"""GBX full parse vs pygbx, side by side in one run, on the TMF-era maps and replays.

    .venv/bin/python benchmarks/parse_speed.py [--rounds 7] [--venv DIR]

Files: the corpus manifest's maps and replays of the TrackMania 1.0 - Forever era
(the header XML's `exever` below 3, or no XML at all: TM 1.0 files have none) that
pygbx parses without raising. ManiaPlanet/TM2 files are left out: pygbx stops at the
first chunk it does not know there, so the comparison would be of different work.

pygbx 0.3 (the version pyproject's `bench` extra pins) runs in a benchmark-only
virtual environment that this script creates (default `~/.cache/gbxfs-bench/pygbx`),
never in gbxfs's own: a worker process there answers one timed round at a time, and
the rounds alternate with gbxfs's rounds in this process, so both see the same load.
Both get the same bytes in memory. Times are CPU seconds of the process
(`time.process_time`), best of --rounds; a shared machine disturbs them less than
wall time. The call counts (cProfile, one round each) do not depend on load at all.

What is compared: gbxfs `gbx.parse` decodes the header chunks, decompresses the
body and walks every node, decoding every chunk it has a declaration for (replays:
their ghosts, and the embedded map's bytes kept raw); pygbx reads the header chunks
it knows, the body's known chunks (a map's block list, a replay's ghosts and its
embedded map, parsed again) and skips skippable chunks without decoding them.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import logging
import os
import pstats
import re
import subprocess
import sys
import time
import venv
from pathlib import Path

PEER = "pygbx==0.3"
DEFAULT_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gbxfs-bench" / "pygbx"
_EXEVER = re.compile(rb'exever="([^"]*)"')


def _rounds_of(parse, files: list[bytes], out) -> None:
    """Worker loop: one timed round per input line, the CPU seconds as one output line."""
    for line in sys.stdin:
        if line.strip() == "calls":
            prof = cProfile.Profile()
            prof.enable()
            for d in files:
                parse(d)
            prof.disable()
            out.write(f"{pstats.Stats(prof).total_calls}\n")
        else:
            t = time.process_time()
            for d in files:
                parse(d)
            out.write(f"{time.process_time() - t}\n")
        out.flush()


def peer_worker(list_file: str) -> None:
    """Runs inside the benchmark venv: pygbx only, no gbxfs import."""
    logging.disable(logging.CRITICAL)     # pygbx logs what it cannot read
    import pygbx
    files = [Path(p).read_bytes() for p in Path(list_file).read_text(encoding="utf-8").splitlines() if p]
    ok = []
    for d in files:
        try:
            pygbx.Gbx(d)
            ok.append(True)
        except Exception:   # noqa: BLE001 - a file pygbx cannot read is left out of both sides
            ok.append(False)
    sys.stdout.write(json.dumps(ok) + "\n")
    sys.stdout.flush()
    _rounds_of(pygbx.Gbx, [d for d, good in zip(files, ok) if good], sys.stdout)


def ensure_venv(path: Path) -> Path:
    py = path / "bin" / "python"
    if not py.exists():
        print(f"creating the benchmark-only venv {path} with {PEER}", file=sys.stderr)
        venv.create(path, with_pip=True)
    check = subprocess.run([str(py), "-c", "import pygbx"], capture_output=True)
    if check.returncode != 0:
        subprocess.run([str(py), "-m", "pip", "install", "-q", PEER], check=True)
    return py


def tmf_era(rows: list[dict], corpus: Path) -> list[Path]:
    out = []
    for r in rows:
        if r["kind"] not in ("map", "replay"):
            continue
        data = (corpus / r["path"]).read_bytes()
        if data[:3] != b"GBX":
            continue
        m = _EXEVER.search(data[:65536])
        if m is None or m.group(1)[:1] in (b"0", b"1", b"2"):
            out.append(corpus / r["path"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    ap.add_argument("--peer-worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peer_worker:
        peer_worker(args.peer_worker)
        return

    from bench_util import CORPUS, MB, manifest

    from gbxfs.formats import gbx
    from gbxfs.formats.gbx.decl import registry

    paths = tmf_era(manifest(), CORPUS)
    py = ensure_venv(args.venv)
    list_file = args.venv / "files.txt"
    list_file.write_text("\n".join(str(p) for p in paths) + "\n", encoding="utf-8")
    worker = subprocess.Popen([str(py), str(Path(__file__).resolve()), "--peer-worker", str(list_file)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ok = json.loads(worker.stdout.readline())
    files = [p.read_bytes() for p, good in zip(paths, ok) if good]
    maps = sum(1 for p, good in zip(paths, ok) if good and ".replay." not in p.name.lower())

    def peer(cmd: str) -> float:
        worker.stdin.write(cmd + "\n")
        worker.stdin.flush()
        return float(worker.stdout.readline())

    registry()
    for d in files:             # declarations load (and their decoders are written) once per process
        gbx.parse(d)
    ours, theirs = [], []
    for _ in range(args.rounds):
        t = time.process_time()
        for d in files:
            gbx.parse(d)
        ours.append(time.process_time() - t)
        theirs.append(peer("time"))
    prof = cProfile.Profile()
    prof.enable()
    for d in files:
        gbx.parse(d)
    prof.disable()
    our_calls, their_calls = pstats.Stats(prof).total_calls, peer("calls")
    worker.stdin.close()
    worker.wait()

    size = sum(len(d) for d in files)
    g, p = min(ours), min(theirs)
    print(f"TMF-era maps and replays: {len(files)} files ({maps} maps, {len(files) - maps} replays), "
          f"{size / MB:.1f} MB; {len(paths) - len(files)} left out (pygbx raises)")
    print(f"{'':24}{'gbxfs':>10}{'pygbx':>10}{'gbxfs/pygbx':>13}")
    print(f"{'CPU s, best of ' + str(args.rounds):24}{g:10.3f}{p:10.3f}{g / p:13.2f}")
    print(f"{'CPU s, median':24}{sorted(ours)[len(ours) // 2]:10.3f}{sorted(theirs)[len(theirs) // 2]:10.3f}"
          f"{sorted(ours)[len(ours) // 2] / sorted(theirs)[len(theirs) // 2]:13.2f}")
    print(f"{'function calls':24}{our_calls:10d}{int(their_calls):10d}{our_calls / their_calls:13.2f}")
    print(f"speed relative to pygbx: {p / g:.2f}x (above 1: gbxfs is faster)")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
