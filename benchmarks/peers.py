#!/usr/bin/env python3
"""gbxfs against the archive mounters people know, on a game-sized Packs folder.

    .venv/bin/python benchmarks/run.py --peers [--scale 1.0] [--keep DIR]

Builds (seeded, once per scale; kept under --keep, default a temp folder) a
Packs folder of 12 version 3 paks written by gbxfs's own writer: 30,000
files at scale 1 (nine in ten raw, most compressed; one in ten a small GBX
whose node feeds ivXor), about 200 MB, plus the same files as one deflate
zip. Mounts the paks with `gbxfs -o gbx=file` (each GBX entry a plain file,
so both trees hold the same files) and the zip with ratarmount and fuse-zip
(whichever are installed: benchmarks/README.md says how, never into the
product's environment), and times for each, one after the other:

  mount     from starting the daemon until the mount point lists something
  find      `find MP | wc -l` of the whole tree, right after mounting
  read      `tar cf - . | wc -c` in MP (every byte, cold daemon caches)
  peak RSS  the daemon's VmHWM after the read

and, for gbxfs alone, the first `ls -l` of a folder of 50 small paks (20
files each) right after mounting it with the default options: each pak is a
folder, and nothing of a pak may be decrypted just to list the folder.

The fourth column, "limit", is the same pak bytes decrypted and inflated in
process with one whole-buffer pycryptodome and zlib call per entry, on 2
threads (both release the GIL): what no reader of these paks can beat.
Ratios are to ratarmount. Not a test: run by hand; the machine's load moves
single figures, ratios from one run are steadier.
"""
from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbxfs.formats.gbx import writer as gbx_writer  # noqa: E402
from bench_util import unmount  # noqa: E402
from gbxfs.formats.pak.writer import PakFile, write_packs  # noqa: E402

BENCH_VENV = Path(__file__).resolve().parent / ".venv"
PAKS = 12
FILES = 30_000
SEED = 12
MIN_SIZE, MAX_SIZE = 100, 40_000     # log-uniform: mean ~6.7 KB, ~200 MB at scale 1
GBX_CLASS = 0x03079000               # a media clip: its node feeds ivXor
GBX_CHUNK = 0x03079FF0               # skippable, unknown: carries the payload
FIFTY_PAKS, FIFTY_FILES = 50, 20     # the first-ls figure's folder

# 16 symbols per byte: compresses about 2:1, like the game's textures and sounds
_NIBBLES = bytes(0x41 + (i & 0x0F) for i in range(256))


def _payload(rnd: random.Random, size: int) -> bytes:
    return rnd.randbytes(size).translate(_NIBBLES)


def _gbx(rnd: random.Random, size: int) -> bytes:
    body = gbx_writer.node_body([(GBX_CHUNK, _payload(rnd, size), True)])
    return gbx_writer.build_gbx(class_id=GBX_CLASS, body=body, num_nodes=1, body_comp="U",
                                header_chunks=[], empty_user_data=True)


def plan(scale: float) -> dict[str, list[PakFile]]:
    rnd = random.Random(SEED)
    n = max(PAKS, int(FILES * scale))
    paks: dict[str, list[PakFile]] = {f"Pack{p:02}": [] for p in range(PAKS)}
    for i in range(n):
        name = f"Pack{i % PAKS:02}"
        size = int(math.exp(rnd.uniform(math.log(MIN_SIZE), math.log(MAX_SIZE))))
        folder = f"{name}/Media/Dir{rnd.randrange(40):02}/Sub{rnd.randrange(8)}"
        if i % 10 == 9:
            paks[name].append(PakFile(f"{folder}/F{i:05}.Clip.Gbx", _gbx(rnd, size), level=6))
        else:
            paks[name].append(PakFile(f"{folder}/F{i:05}.dat", _payload(rnd, size),
                                      compress=i % 10 != 0, level=6))
    return paks


def build(folder: Path, scale: float) -> tuple[Path, Path, int, int]:
    """The Packs folder and the zip (made once per scale): (packs, zip, files, bytes)."""
    packs, zpath = folder / f"packs-{scale:g}", folder / f"same-{scale:g}.zip"
    done = folder / f"built-{scale:g}"
    paks = plan(scale)
    count = sum(len(v) for v in paks.values())
    total = sum(len(f.data) for v in paks.values() for f in v)
    if done.exists():
        return packs, zpath, count, total
    shutil.rmtree(packs, ignore_errors=True)
    write_packs(packs, paks, salt=SEED)
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for name, files in paks.items():
            for f in files:
                # the path gbxfs shows: <pak>.pak/<path inside the pak>
                z.writestr(f"{name}.pak/{f.path}", f.data)
    done.write_text("ok\n")
    return packs, zpath, count, total


def build_fifty(folder: Path) -> Path:
    """50 small paks and their packlist.dat (made once): the first-ls figure."""
    out, done = folder / "fifty-paks", folder / "built-fifty"
    if not done.exists():
        rnd = random.Random(SEED + 50)
        paks = {f"Fifty{p:02}": [PakFile(f"Fifty{p:02}/Data/F{i:02}.dat", _payload(rnd, rnd.randrange(100, 4000)))
                                 for i in range(FIFTY_FILES)] for p in range(FIFTY_PAKS)}
        shutil.rmtree(out, ignore_errors=True)
        write_packs(out, paks, salt=SEED)
        done.write_text("ok\n")
    return out


def first_ls(folder: Path, mp: Path) -> dict:
    """Mount `folder` with gbxfs's defaults, wait until it answers a stat, then time
    the first `ls -l` (wall and daemon CPU)."""
    argv = [sys.executable, "-c", "import sys; from gbxfs.cli import main; sys.exit(main())",
            "mount", "-f", str(folder), str(mp)]
    proc = subprocess.Popen(argv, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        t0 = time.perf_counter()
        while not os.path.ismount(mp):
            if proc.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError(f"gbxfs did not mount: {proc.stderr.read().decode(errors='replace')[-500:]}")
            time.sleep(0.005)
        os.stat(mp)
        cpu = _cpu_s(proc.pid)
        took, out = _sh("ls -l . | wc -l", str(mp))
        return {"ls": took, "ls cpu": _cpu_s(proc.pid) - cpu, "lines": int(out)}
    finally:
        unmount(proc, mp)


# -- the in-process limit ---------------------------------------------------------

def limit_seconds(packs: Path) -> float:
    """Decrypt + inflate every entry of every pak, one whole-buffer C call each, 2 threads."""
    import zlib

    from Crypto.Cipher import Blowfish

    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.cipher import apply_folds, swap32
    from gbxfs.formats.pak.packlist import derive_key
    from gbxfs.formats.pak.writer import make_key_string
    from gbxfs.tree.source import FileSource

    jobs = []
    for pak in sorted(packs.glob("*.pak")):
        src = FileSource(str(pak))
        arc = PakArchive(src.read_at, src.size, derive_key(make_key_string(f"{pak.stem}:{SEED}")))
        swapped = swap32(arc.key.key)
        for rec in arc.files:
            e = arc.entry(rec)
            if e.kind == "gbx":   # its ivXor folds come from a parse: made here, not timed
                e.check()
            jobs.append((str(pak), e.start, e.length, rec.compressed, swapped, e._folds))

    def one(job) -> int:
        path, start, length, compressed, key, folds = job
        with open(path, "rb") as fh:
            fh.seek(start)
            raw = fh.read(8 + length)
        plain = swap32(Blowfish.new(key, Blowfish.MODE_CBC, iv=swap32(raw[:8])).decrypt(swap32(raw[8:])))
        plain = apply_folds(plain, 0, folds)
        return len(zlib.decompress(plain) if compressed else plain)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        for _ in pool.map(one, jobs, chunksize=64):
            pass
    return time.perf_counter() - t0


# -- mounting -----------------------------------------------------------------------

def _tool(name: str) -> str | None:
    for d in (BENCH_VENV / "bin", ROOT / ".venv" / "bin", Path(sys.executable).parent):
        if (d / name).exists():
            return str(d / name)
    return shutil.which(name)


def mounters(packs: Path, zpath: Path) -> list[tuple[str, list[str]]]:
    gbxfs = [sys.executable, "-c", "import sys; from gbxfs.cli import main; sys.exit(main())"]
    out = [("gbxfs", gbxfs + ["mount", "-f", "-o", "gbx=file", str(packs)])]
    if _tool("ratarmount"):
        out.append(("ratarmount", [_tool("ratarmount"), "-f", str(zpath)]))
    for name in ("fuse-zip", "fuse-archive"):
        if _tool(name):
            out.append((name, [_tool(name), "-f", "-r", str(zpath)] if name == "fuse-zip"
                        else [_tool(name), "-f", str(zpath)]))
            break
    return out


def _family(pid: int) -> list[int]:
    """`pid` and its children still alive (a mounter may fork)."""
    kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [int(p) for p in kids]


def _hwm_kb(pid: int) -> int:
    """Peak RSS of `pid` and its children that are still alive (a mounter may fork)."""
    total = 0
    for p in _family(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of `pid` (all its threads) and its children alive."""
    total = 0.0
    for p in _family(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def _sh(cmd: str, cwd: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t0, out.strip()


def measure(name: str, argv: list[str], mp: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv + [str(mp)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not (os.path.ismount(mp) and os.listdir(mp)):
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited: {proc.stderr.read().decode(errors='replace')[-500:]}")
            if time.perf_counter() - t0 > 120:
                raise RuntimeError(f"{name} did not mount in 120 s")
            time.sleep(0.005)
        res = {"mount": time.perf_counter() - t0}
        cpu = _cpu_s(proc.pid)
        try:
            res["find"], files = _sh("find . | wc -l", str(mp))
            res["entries"] = int(files)
        except subprocess.CalledProcessError as e:
            res["find"], res["entries"] = None, f"failed ({e.returncode})"
        res["find cpu"], cpu = _cpu_s(proc.pid) - cpu, _cpu_s(proc.pid)
        try:
            res["read"], nbytes = _sh("tar cf - . | wc -c", str(mp))
            res["tar bytes"] = int(nbytes)
        except subprocess.CalledProcessError as e:
            res["read"], res["tar bytes"] = None, f"failed ({e.returncode})"
        res["read cpu"] = _cpu_s(proc.pid) - cpu
        res["rss"] = _hwm_kb(proc.pid) / 1024
        return res
    finally:
        unmount(proc, mp)


def _cell(v, ref) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    ratio = f" ({v / ref:.2f}x)" if isinstance(ref, (int, float)) and ref else ""
    return f"{v:.2f}{ratio}"


def run(scale: float = 1.0, keep: str | None = None) -> str:
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="gbxfs-peers-"))
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    packs, zpath, count, total = build(folder, scale)
    built = time.perf_counter() - t0
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="gbxfs-peers-mp-") as mpd:
        for name, argv in mounters(packs, zpath):
            mp = Path(mpd) / name
            mp.mkdir()
            try:
                results[name] = measure(name, argv, mp)
            except (RuntimeError, subprocess.CalledProcessError) as e:
                results[name] = {"error": str(e)}
        mp = Path(mpd) / "fifty"
        mp.mkdir()
        try:
            fifty = first_ls(build_fifty(folder), mp)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            fifty = {"error": str(e)}
    limit = limit_seconds(packs)   # wall time on 2 threads; about its CPU time on an idle machine
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    ref = results.get("ratarmount", {})
    names = list(results)
    lines = [f"Packs folder: {PAKS} paks, {count} files, {total / 1e6:.0f} MB "
             f"(scale {scale:g}; built or found in {built:.0f} s); zip {zpath.name}", "",
             "| figure | " + " | ".join(names) + " | in-process limit |",
             "|---|" + "---|" * (len(names) + 1)]
    for key, label, unit in (("mount", "mount until first listing", "s"), ("find", "`find` of the whole tree", "s"),
                             ("find cpu", "daemon CPU during `find`", "s"),
                             ("read", "read every byte (`tar cf - . \\| wc -c`)", "s"),
                             ("read cpu", "daemon CPU during the read", "s"),
                             ("rss", "daemon peak RSS", "MB")):
        cells = [_cell(results[n].get(key), ref.get(key)) if "error" not in results[n] else "error"
                 for n in names]
        lim = _cell(limit, ref.get(key)) if key == "read" else "-"
        lines.append(f"| {label} ({unit}) | " + " | ".join(cells) + f" | {lim} |")
    lines.append("| entries found / tar bytes | " + " | ".join(
        f"{results[n].get('entries', '-')} / {results[n].get('tar bytes', '-')}" for n in names) + " | - |")
    for n in names:
        if "error" in results[n]:
            lines.append(f"\n{n}: {results[n]['error']}")
    if "error" in fifty:
        lines.append(f"\nfirst ls of {FIFTY_PAKS} paks: {fifty['error']}")
    else:
        lines.append(f"\ngbxfs, first `ls -l` of a folder of {FIFTY_PAKS} paks ({fifty['lines'] - 1} entries): "
                     f"{fifty['ls']:.3f} s, daemon CPU {fifty['ls cpu']:.2f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--keep")
    a = ap.parse_args(argv)
    print(run(a.scale, a.keep), flush=True)


if __name__ == "__main__":
    main()
