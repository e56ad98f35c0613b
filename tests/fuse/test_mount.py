"""Real mounts of a folder holding the synthetic sample pak, corpus files and
broken files, checked with ordinary tools (ls, find, du, stat, cp, grep)
against the same tree walked without FUSE."""
from __future__ import annotations

import errno
import filecmp
import hashlib
import os
import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mountkit import gbxfs, server_pids
from gbxfs.fuse.mountinfo import find_mount
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import Dir
from gbxfs.tree.root import build_tree

pytestmark = [pytest.mark.mount, pytest.mark.corpus]

MAPS = [
    "gxnda+tmnf-gbx-reader/Circles of hell.Challenge.Gbx",
    "adrien-obrecht+GbxParser/EHEMC Tracks/%Incendiary%EHEMC__Jumpstart%08-19_12§27%.Challenge.Gbx",
    "adrien-obrecht+GbxParser/EHEMC Tracks/%justdoitlater%track4%08-25_11§35%.Challenge.Gbx",
]
REPLAY = "adrien-obrecht+GbxParser/Benchmark/Replays/gospodinbruno_B13-Obstacle.Replay.gbx"
GP2 = "codemeyer+Arg2Data/TestData/tracks/GP2-F1CT07.DAT"


def _broken_pak(folder: Path) -> None:
    """Broken.pak: three entries, the middle one with a flipped ciphertext byte."""
    from gbxfs.formats.pak import packlist
    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.writer import PakFile, make_key_string, write_packs

    rnd = random.Random(7)
    files = [PakFile("Broken/Media/good.txt", b"good " * 2000),
             PakFile("Broken/Media/bad.bin", bytes(rnd.getrandbits(8) for _ in range(20000))),
             PakFile("Broken/Media/also_good.txt", b"fine " * 3000)]
    ks = make_key_string("broken")
    paths = write_packs(folder, {"Broken": files}, key_strings={"Broken": ks})
    data = bytearray(paths["Broken"].read_bytes())
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), packlist.derive_key(ks))
    rec = next(r for r in arc.files if r.parts[-1] == "bad.bin")
    data[arc.header.data_offset + rec.offset + 8 + rec.stored_size // 2] ^= 0x55
    paths["Broken"].write_bytes(bytes(data))
    (folder / "NoKey.pak").write_bytes(b"NadeoPak" + (3).to_bytes(4, "little") + bytes(200))


@pytest.fixture(scope="module")
def source(corpus, tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("source")
    (src / "notes.txt").write_text("plain files pass through\n")
    shutil.copytree(corpus / "synthetic-pak" / "Packs", src / "Packs")
    # modes follow the source, and a copy of the corpus may be writable: the pak whose
    # modes test_stat_attributes_and_stable_inodes checks is made read-only here
    os.chmod(src / "Packs" / "Sample.pak", 0o444)
    _broken_pak(src / "Corrupt")
    (src / "Maps").mkdir()
    for m in MAPS + [REPLAY]:
        shutil.copy(corpus / m, src / "Maps" / Path(m).name)
    whole = (corpus / MAPS[0]).read_bytes()
    (src / "Maps" / "Truncated.Challenge.Gbx").write_bytes(whole[:-100])   # header whole, body cut
    (src / "Maps" / "Garbage.Gbx").write_bytes(b"GBX" + bytes(range(256)) * 4)
    (src / "Tracks").mkdir()
    shutil.copy(corpus / GP2, src / "Tracks" / "F1CT07.DAT")
    return src


def reference(src: Path | Dir, gbx: str = "folder") -> dict[str, object]:
    """Every path of the tree (a folder's, or a tree already built), walked
    without FUSE: path -> Dir or file size."""
    out: dict[str, object] = {}

    def visit(entry, path):
        if isinstance(entry, Dir):
            out[path] = Dir
            for name, child in entry.children().items():
                visit(child, f"{path}/{name}" if path else name)
        else:
            out[path] = entry.size()

    visit(src if isinstance(src, Dir) else build_tree(str(src), TreeContext(gbx_mode=gbx)), "")
    return out


def mounted_paths(mp: str) -> dict[str, object]:
    out: dict[str, object] = {}
    res = subprocess.run(["find", mp, "-printf", "%y %s %P\\0"], capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    for item in res.stdout.split(b"\0"):
        if item:
            kind, size, path = item.decode().split(" ", 2)
            out[path] = Dir if kind == "d" else int(size)
    return out


@pytest.fixture(scope="module")
def settled(source) -> dict[str, object]:
    """The reference listing once every folder was listed (errors found on the way included)."""
    tree = build_tree(str(source))
    reference(tree)
    return reference(tree)


@pytest.fixture(scope="module")
def mp(module_mounter, source) -> str:
    return module_mounter.mount(source)


def test_find_lists_exactly_the_tree_with_exact_sizes(mp, settled):
    # listing a GBX body may reveal an error (error.txt appears in its folder):
    # compare second passes, when both trees have seen everything once
    mounted_paths(mp)
    got, want = mounted_paths(mp), settled
    assert got == want
    assert "Packs/Sample.pak/Sample/Media/Clips/Clip0.Clip.Gbx/original.gbx" in got
    assert "Tracks/F1CT07.DAT/track.csv" in got
    assert got["Packs/Sample.pak/Sample/Media/Textures/Tex1.dds"] == 32591


def test_ls_lR_and_du(mp, settled):
    res = subprocess.run(["ls", "-lR", mp], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "Clip0.Clip.Gbx" in res.stdout and "thumbnail.jpg" in res.stdout
    assert "?" not in "".join(line[:10] for line in res.stdout.splitlines())   # every entry stat-ed
    du = subprocess.run(["du", "-sb", mp], capture_output=True, text=True, timeout=120)
    assert du.returncode == 0, du.stderr
    files = [v for v in settled.values() if v is not Dir]
    total = sum(files)
    assert int(du.stdout.split()[0]) == total
    blocks = subprocess.run(["du", "-s", "-B512", mp], capture_output=True, text=True, timeout=120)
    assert int(blocks.stdout.split()[0]) == sum((s + 511) // 512 for s in files)


def test_stat_attributes_and_inode_numbers(mp, source):
    rel = "Packs/Sample.pak/Sample/Media/Clips/Clip3.Clip.Gbx/original.gbx"
    st = os.stat(os.path.join(mp, rel))
    assert st.st_size == 4022 and oct(st.st_mode) == oct(0o100444)
    assert st.st_blksize == 128 * 1024
    assert st.st_mtime_ns == os.stat(source / "Packs" / "Sample.pak").st_mtime_ns
    d = os.stat(os.path.join(mp, "Packs/Sample.pak"))
    assert oct(d.st_mode) == oct(0o40555)
    out = subprocess.run(["stat", "-c", "%s %a %i", os.path.join(mp, rel)], capture_output=True, text=True)
    assert out.stdout.split() == ["4022", "444", str(st.st_ino)]
    # the number a listing gives (readdirplus) is the one a lookup gives, for files and folders
    folder, name = os.path.split(os.path.join(mp, rel))
    assert {e.name: e.inode() for e in os.scandir(folder)}[name] == st.st_ino
    assert {e.name: e.inode() for e in os.scandir(mp)}["Maps"] == os.stat(os.path.join(mp, "Maps")).st_ino


def test_cp_r_gives_the_bytes_of_gbxfs_extract(module_mounter, source, tmp_path):
    plain = module_mounter.mount(source, "gbx=file")
    copied, extracted = tmp_path / "copied", tmp_path / "extracted"
    res = subprocess.run(["cp", "-r", os.path.join(plain, "Packs"), str(copied)], capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    ex = gbxfs("extract", str(source / "Packs"), str(extracted))
    assert ex.returncode == 0, ex.stderr

    def files(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}

    only_in_mount = files(copied) - files(extracted)
    assert only_in_mount == {"Sample.pak/.pak-info.txt", "packlist.dat"}
    common = sorted(files(extracted))
    assert len(common) == 11
    match, mismatch, errors = filecmp.cmpfiles(copied, extracted, common, shallow=False)
    assert (mismatch, errors) == ([], [])


def test_grep_over_header_dumps_matches_the_cli(mp, source):
    res = subprocess.run(["grep", "-r", "authorTime =", os.path.join(mp, "Maps")],
                         capture_output=True, text=True, timeout=120)
    lines = sorted(res.stdout.splitlines())
    hits = {Path(line.split(":", 1)[0]).relative_to(mp).parts[1] for line in lines}
    assert {Path(m).name for m in MAPS} <= hits
    for line in lines:
        path, text = line.split(":", 1)
        rel = os.path.relpath(path, mp)
        cli = gbxfs("cat", str(source / rel))
        assert cli.returncode == 0 and text in cli.stdout.splitlines()


def test_grep_r_finds_each_map_field_once_and_body_nodes_by_name(mp):
    """grep -r over the mount finds a map's authorTime once, in header/: the
    body nodes (which repeat it) are not listed, but open by name."""
    res = subprocess.run(["grep", "-r", "authorTime", os.path.join(mp, "Maps")],
                         capture_output=True, text=True, timeout=120)
    for m in MAPS:
        name = Path(m).name
        mine = [ln for ln in res.stdout.splitlines() if f"/Maps/{name}/" in ln]
        assert len(mine) == 1 and f"/Maps/{name}/header/" in mine[0], mine
    body = os.path.join(mp, "Maps", Path(MAPS[0]).name, "body")
    assert sorted(os.listdir(body)) == ["body.bin", "nodes.txt"]
    nodes = os.listdir(os.path.join(body, "nodes"))
    assert "000.CGameCtnChallenge" in nodes
    with open(os.path.join(body, "nodes.txt")) as f:
        assert set(nodes) <= set(f.read().split())
    found = subprocess.run(["grep", "-rl", "authorTime", os.path.join(body, "nodes")],
                           capture_output=True, text=True, timeout=120)
    assert found.returncode == 0 and found.stdout     # the body dump is there for who asks


def _hash_all(mp: str, paths: list[str]) -> dict[str, str]:
    out = {}
    for rel in paths:
        try:
            with open(os.path.join(mp, rel), "rb") as f:
                out[rel] = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            out[rel] = f"errno {e.errno}"
    return out


def test_eight_concurrent_readers_see_the_sequential_bytes(module_mounter, source, corpus):
    fresh = module_mounter.mount(source)        # nothing cached yet: readers race on first parses
    # files that exist from the start (not the error.txt a parse may add meanwhile)
    paths = sorted(p for p, v in reference(source).items() if v is not Dir)
    orders = []
    for i in range(8):
        order = list(paths)
        random.Random(i).shuffle(order)
        orders.append(order)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda order: _hash_all(fresh, order), orders))
    sequential = _hash_all(fresh, paths)
    assert all(r == sequential for r in results)
    # and the bytes are the real ones
    expected = {}
    for row in (corpus / "synthetic-pak" / "expected.tsv").read_text().splitlines()[1:]:
        _, path, size, sha, _, _ = row.split("\t")
        if path.lower().endswith(".gbx"):
            path += "/original.gbx"
        expected[f"Packs/Sample.pak/{path}"] = sha
    assert {k: sequential[k] for k in expected} == expected
    assert sequential["Corrupt/Broken.pak/Broken/Media/bad.bin"] == f"errno {errno.EIO}"


def test_broken_files_stay_contained(mp, source):
    base = os.path.join(mp, "Corrupt", "Broken.pak", "Broken", "Media")
    with pytest.raises(OSError) as e:
        with open(os.path.join(base, "bad.bin"), "rb") as f:
            f.read()
    assert e.value.errno == errno.EIO
    assert open(os.path.join(base, "good.txt"), "rb").read() == b"good " * 2000
    assert open(os.path.join(base, "also_good.txt"), "rb").read() == b"fine " * 3000
    assert "bad.bin" in open(os.path.join(base, "error.txt")).read()
    assert os.getxattr(base, "user.gbxfs.error")
    nokey = os.listdir(os.path.join(mp, "Corrupt", "NoKey.pak"))
    assert "error.txt" in nokey
    trunc = os.path.join(mp, "Maps", "Truncated.Challenge.Gbx")
    assert "header" in os.listdir(trunc)
    assert len(os.listdir(os.path.join(trunc, "header"))) > 4
    # a loose file's original.gbx is the file as it is on disk, cut or not
    assert open(os.path.join(trunc, "original.gbx"), "rb").read() == (source / "Maps" / "Truncated.Challenge.Gbx").read_bytes()
    # the body is cut short: body/ says so at once, and nothing changes the listing
    before = os.listdir(trunc)
    assert os.listdir(os.path.join(trunc, "body")) == ["error.txt"]
    assert "offset" in open(os.path.join(trunc, "body", "error.txt")).read()
    assert os.listdir(trunc) == before and "error.txt" not in before
    assert os.listdir(os.path.join(mp, "Maps", "Garbage.Gbx"))
    # the server is alive and everything else still answers
    assert find_mount(mp) is not None and server_pids(mp)
    assert open(os.path.join(mp, "notes.txt")).read() == "plain files pass through\n"
    assert len(open(os.path.join(mp, "Maps", Path(MAPS[0]).name, "thumbnail.jpg"), "rb").read()) > 1000


def test_xattrs_through_the_kernel(mp):
    gbx = os.path.join(mp, "Maps", Path(MAPS[0]).name)
    assert os.getxattr(gbx, "user.gbx.class_id") == b"03043000"
    chunk = os.path.join(gbx, "header", "03043002.TmDesc.txt")
    assert os.getxattr(chunk, "user.gbx.chunk_id") == b"03043002"
    assert "user.gbx.offset" in os.listxattr(chunk)
    with pytest.raises(OSError) as e:
        os.getxattr(chunk, "user.gbx.nothing")
    assert e.value.errno == errno.ENODATA


def test_writes_answer_erofs(mp):
    target = os.path.join(mp, "notes.txt")
    attempts = [
        lambda: open(target, "ab"),
        lambda: open(os.path.join(mp, "new.txt"), "wb"),
        lambda: os.mkdir(os.path.join(mp, "d")),
        lambda: os.unlink(target),
        lambda: os.rename(target, os.path.join(mp, "moved")),
        lambda: os.symlink("x", os.path.join(mp, "l")),
        lambda: os.link(target, os.path.join(mp, "h")),
        lambda: os.chmod(target, 0o644),
        lambda: os.utime(target),
        lambda: os.truncate(target, 0),
        lambda: os.setxattr(target, "user.x", b"1"),
        lambda: os.rmdir(os.path.join(mp, "Maps")),
    ]
    for attempt in attempts:
        with pytest.raises(OSError) as e:
            attempt()
        assert e.value.errno == errno.EROFS
    assert open(target).read() == "plain files pass through\n"
