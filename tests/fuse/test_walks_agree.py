"""Every walk of a mount lists the same entries (docs/formats/mount.md, "A GBX
folder"): a GBX folder is listed from its header alone, so `find` on a fresh
mount, before any body was parsed, shows the names, types and sizes a second
`find` shows after every body was parsed and, with a small cache, evicted
again. `cp -r`, `tar` and `rsync` then copy the same tree on every run."""
from __future__ import annotations

import shutil
from pathlib import Path
import subprocess

import pytest
from corpusdata import manifest_rows
from mountkit import TIMEOUT

pytestmark = [pytest.mark.mount, pytest.mark.corpus]

WALK_TIMEOUT = 20 * TIMEOUT     # a guard against hangs only: two walks of the corpus, sizes included


def _find(mp: str, fmt: str) -> tuple[list[str], list[str]]:
    """find's lines, sorted, and its complaints (a file whose bytes cannot be made
    answers EIO, its stat included: the same on every walk)."""
    r = subprocess.run(["find", mp, "-printf", fmt], capture_output=True, text=True, timeout=WALK_TIMEOUT,
                       errors="surrogateescape")
    assert r.returncode == 0 or "Input/output error" in r.stderr, r.stderr[-2000:]
    return sorted(r.stdout.split("\0")[:-1]), sorted(r.stderr.splitlines())


def test_two_finds_of_a_fresh_mount_list_the_same_entries(mounter, corpus, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(corpus, src / "corpus", symlinks=True)
    # files whose bodies do not parse: their problems must not change a listing once known
    for kind in ("map", "replay"):
        row = next(r for r in manifest_rows() if r["kind"] == kind)
        data = (corpus / row["path"]).read_bytes()
        (src / f"cut.{kind}.Gbx").write_bytes(data[:len(data) * 2 // 3])
    # 16 MiB: smaller than the corpus's parses, so the second walk finds them evicted
    mp = mounter.mount(src, "cache_mb=16")
    names_first, quiet = _find(mp, r"%P\t%y\0")          # no stat: nothing but listings
    first, errors = _find(mp, r"%P\t%y\t%s\0")           # every file stat-ed: its size from getattr
    second, again = _find(mp, r"%P\t%y\t%s\0")
    assert len(first) > 3000 and quiet == []
    assert first == second and errors == again
    # the names a walk that stats nothing sees, and those stat-ed (EIO: no size printed)
    shown = sorted([line.rsplit("\t", 1)[0] for line in first]
                   + [f"{e.split(mp + '/', 1)[1].split('’', 1)[0]}\tf" for e in errors])
    assert shown == names_first
    # EIO: a body that does not read, or a mesh that cannot be made (a crystal whose
    # parse outweighs the 16 MiB cache), its reason in the error.txt of mesh/
    derived = ("/body/body.bin", "/mesh.obj", "/mesh.mtl", "/mesh.glb")
    assert all(e.endswith("’: Input/output error") and e.split("’")[0].endswith(derived) for e in errors), \
        [e for e in errors if not e.split("’")[0].endswith(derived)]
    for e in errors:
        path = e.split(mp + "/", 1)[1].split("’", 1)[0]
        if path.endswith(derived[1:]):
            why = (Path(mp) / path).parent / "mesh" / "error.txt"
            assert "mesh level of detail 0" in why.read_text(), path
    # a cut file's folder walked twice in a row (its parse still cached the second
    # time): the lines the whole walks gave
    for kind in ("map", "replay"):
        top = f"cut.{kind}.Gbx"
        mine = [line for line in first if line.split("\t")[0] == top or line.startswith(top + "/")]
        for _ in range(2):
            lines, _errors = _find(f"{mp}/{top}", r"%P\t%y\t%s\0")
            assert sorted(top + ("/" + line if not line.startswith("\t") else line) for line in lines) == mine
    # a GBX folder's info.txt (made from the body) is sized from the first walk on
    info = [line for line in first if line.split("\t")[0].lower().endswith(".gbx/info.txt")]
    assert len(info) > 100 and all(int(line.rsplit("\t", 1)[1]) > 0 for line in info)
