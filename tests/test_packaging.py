"""gbxfs is whole however it is installed: the sdist and the wheel built from a
copy of the checkout carry every file the code reads, and the wheel installed
into a clean virtualenv outside the checkout runs the CLI on the corpus (and a
mount, where FUSE is available). A second virtualenv gets the dependencies of a
system without FUSE (pyproject.toml's markers, evaluated for Windows): there
pyfuse3 and trio are absent and the commands that need no mount still work.

Offline: the build uses the test extras' setuptools (--no-isolation), and the
virtualenvs get their dependencies from the ones installed with the suite
(links in a folder named by a .pth file), chosen from the wheel's own
Requires-Dist, so a dependency missing from pyproject.toml fails here."""
from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from requires import require_fuse

pytestmark = [pytest.mark.corpus, pytest.mark.long]

ROOT = Path(__file__).resolve().parent.parent
MAP = "gxnda+tmnf-gbx-reader/Circles of hell.Challenge.Gbx"
TIMEOUT = 120


def _run(*args, **kw) -> subprocess.CompletedProcess:
    res = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=TIMEOUT, **kw)
    assert res.returncode == 0, f"{args}: {res.returncode}\n{res.stdout}\n{res.stderr}"
    return res


def _copy_checkout(to: Path) -> Path:
    """The files a fresh clone has (git's list when there is one), nothing built."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        for rel in filter(None, listed.stdout.decode().split("\0")):
            if (ROOT / rel).is_file():
                (to / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / rel, to / rel)
    else:
        shutil.copytree(ROOT, to, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    return to


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """sdist, then the wheel built from that sdist (python -m build)."""
    base = tmp_path_factory.mktemp("dist")
    src = _copy_checkout(base / "src")
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", base / "out", src)
    wheel, = (base / "out").glob("gbxfs-*.whl")
    sdist, = (base / "out").glob("gbxfs-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def read_at_run_time() -> set[str]:
    """The package's files that are no Python source: the generated data and the
    chunk declarations (paths under gbxfs/)."""
    pkg = ROOT / "gbxfs"
    return {p.relative_to(ROOT).as_posix() for p in pkg.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc", ".md") and "__pycache__" not in p.parts}


def test_wheel_and_sdist_carry_every_file_the_code_reads(dist):
    needed = read_at_run_time()
    assert any(n.endswith(".chunks") for n in needed) and any(n.startswith("gbxfs/data/") for n in needed)
    in_wheel = set(zipfile.ZipFile(dist["wheel"]).namelist())
    assert needed - in_wheel == set()
    with tarfile.open(dist["sdist"]) as t:
        in_sdist = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert needed - in_sdist == set()


def _dependencies(wheel: Path, sys_platform: str) -> set[str]:
    """The distributions the wheel needs on `sys_platform`, with theirs (as installed here)."""
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    wanted = [Requirement(line.split(":", 1)[1].strip()) for line in meta.splitlines()
              if line.startswith("Requires-Dist:")]
    wanted = [r for r in wanted if r.marker is None or r.marker.evaluate({"sys_platform": sys_platform,
                                                                           "extra": ""})]
    names: set[str] = set()
    while wanted:
        r = wanted.pop()
        name = canonicalize_name(r.name)
        if name in names:
            continue
        names.add(name)
        for more in md.distribution(r.name).requires or []:
            req = Requirement(more)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                wanted.append(req)
    return names


def _venv(where: Path, wheel: Path, sys_platform: str) -> Path:
    """A virtualenv holding the wheel (installed by pip) and the dependencies it
    declares for `sys_platform`, linked from this interpreter's site-packages."""
    _run(sys.executable, "-m", "venv", "--without-pip", where)
    _run(sys.executable, "-m", "pip", "--python", where / "bin" / "python", "install", "-q", "--no-deps",
         "--no-index", wheel)
    site = Path(_run(where / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
                .stdout.strip())
    deps = where / "deps"
    deps.mkdir()
    for name in _dependencies(wheel, sys_platform):
        d = md.distribution(name)
        top = {Path(f).parts[0] for f in d.files or () if not str(f).startswith("..")}
        for part in top:
            origin = Path(d.locate_file(part))
            if origin.exists() and not (deps / part).exists():
                os.symlink(origin, deps / part)
    (site / "gbxfs-test-deps.pth").write_text(f"{deps}\n")
    return where / "bin"


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = "/usr/bin:/bin"
    return env


def _cli_works(bin_dir: Path, corpus: Path, work: Path) -> None:
    """The installed command on the corpus, run from outside the checkout."""
    env, gbxfs = _clean_env(), bin_dir / "gbxfs"
    where = _run(bin_dir / "python", "-c", "import gbxfs; print(gbxfs.__file__)", cwd=work, env=env).stdout
    assert where.startswith(str(bin_dir.parent)), where      # the installed copy, not the checkout
    packs = corpus / "synthetic-pak" / "Packs"
    assert _run(gbxfs, "--version", cwd=work, env=env).stdout.startswith("gbxfs ")
    assert "Clip0.Clip.Gbx/" in _run(gbxfs, "ls", packs / "Sample.pak/Sample/Media/Clips", cwd=work, env=env).stdout
    shown = _run(gbxfs, "cat", corpus / MAP / "info.txt", cwd=work, env=env).stdout
    assert "name = Circles of hell" in shown.splitlines()
    info = _run(gbxfs, "info", corpus / MAP, cwd=work, env=env).stdout.splitlines()
    assert {"body_compression: LZO", "body_compressed_size: 1583", "body_size: 3947",       # python-lzo,
            "body_status: complete"} <= set(info)                                               # chunks
    jpeg = subprocess.run([gbxfs, "cat", corpus / MAP / "thumbnail.jpg"], capture_output=True, cwd=work,
                          env=env, timeout=TIMEOUT)
    assert jpeg.returncode == 0 and jpeg.stdout[:2] == b"\xff\xd8"
    out = work / "extracted"
    res = _run(gbxfs, "extract", "-q", packs, out, cwd=work, env=env)
    assert "11 files written" in res.stderr and (out / "Sample.pak/Sample/Media/Textures/Tex1.dds").is_file()
    maps = work / "maps"
    maps.mkdir()
    shutil.copy(corpus / MAP, maps)
    cov = _run(gbxfs, "coverage", maps, cwd=work, env=env).stdout
    assert cov.splitlines()[1].split() == ["map", "TM", "Forever", "1", "1", "100%"]
    # the README's demo, made by the installed copy's own writers, read back through its pak and GBX views
    demo = Path(_run(gbxfs, "demo", "--build-only", work / "demo", cwd=work, env=env).stdout.strip())
    assert _run(gbxfs, "ls", demo, cwd=work, env=env).stdout.split() == [
        "Demo.pak/", "DemoMap.Challenge.Gbx/", "maps.csv", "packlist.dat"]
    clip = demo / "Demo.pak/Demo/Media/Clips/Intro0.Clip.Gbx"
    assert "body_status = complete" in _run(gbxfs, "cat", clip / "info.txt", cwd=work, env=env).stdout.splitlines()


def test_the_wheel_in_a_clean_venv_runs_the_cli_and_a_mount(dist, corpus, tmp_path):
    bin_dir = _venv(tmp_path / "venv", dist["wheel"], "linux")
    _cli_works(bin_dir, corpus, tmp_path)
    require_fuse()
    env, gbxfs, mp = _clean_env(), bin_dir / "gbxfs", tmp_path / "mnt"
    env["PATH"] = "/usr/bin:/bin:/usr/sbin:/sbin"      # fusermount3
    _run(gbxfs, corpus / "synthetic-pak" / "Packs", mp, cwd=tmp_path, env=env)
    try:
        assert sorted(os.listdir(mp)) == ["Sample.pak", "packlist.dat"]
        assert (mp / "Sample.pak/Sample/Media/Textures/Tex1.dds").stat().st_size == 32591
    finally:
        _run(gbxfs, "umount", mp, cwd=tmp_path, env=env)


def test_without_fuse_the_other_commands_work(dist, corpus, tmp_path):
    bin_dir = _venv(tmp_path / "venv", dist["wheel"], "win32")
    for absent in ("pyfuse3", "trio"):
        res = subprocess.run([bin_dir / "python", "-c", f"import {absent}"], capture_output=True,
                             env=_clean_env(), timeout=TIMEOUT)
        assert res.returncode != 0, f"{absent} is installed without FUSE"
    _cli_works(bin_dir, corpus, tmp_path)
    res = subprocess.run([bin_dir / "gbxfs", corpus / "synthetic-pak" / "Packs", tmp_path / "mnt"],
                         capture_output=True, text=True, env=_clean_env(), timeout=TIMEOUT)
    assert res.returncode == 5 and "pyfuse3" in res.stderr and not (tmp_path / "mnt").exists()
