"""The derived files of a GBX folder (docs/formats/mount.md, "Derived files"):
mesh.obj/.mtl/.glb and mesh/, inputs.csv/inputs.txt, ghost.svg, icon.png and
.directory. Which appear comes from the header alone (the same names on every
walk, a small cache or not, no body parsed to list them); their size is
getattr's and equals the bytes read; a file that cannot be made answers EIO
and its reason is a line of the folder's error.txt that says so."""
from __future__ import annotations

import csv
import errno
import io
import random
import struct

import pytest
from corpusdata import manifest_rows
from PIL import Image

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.picture import ICON
from gbxfs.formats.gbx.writer import build_gbx
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import parse as gbx_parse
from gbxfs.tree.gbx.ghostfiles import all_nodes
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.source import BytesSource, FileSource

C = classdb.class_id
CTN_GHOST = C("CGameCtnGhost")
VALIDATION = tuple(CTN_GHOST | i for i in (0x011, 0x019, 0x025))

# (manifest path ending, derived names its folder lists)
SAMPLES = [
    ("Simple03.Mesh.gbx", {"mesh.obj", "mesh.mtl", "mesh.glb"}),
    ("Meshes/Arrow.Mesh.gbx", {"mesh.obj", "mesh.mtl", "mesh.glb"}),
    ("CPlugSolid TMF 001.Solid.Gbx", {"mesh.obj", "mesh.mtl", "mesh.glb"}),
    ("HaloTournant.Crystal.Gbx", {"mesh.obj", "mesh.mtl", "mesh.glb"}),
    ("CPlugPrefab TM2020 001.Prefab.Gbx", {"mesh.obj", "mesh.mtl", "mesh.glb"}),
    ("White/Base.ObjectInfo.gbx", {"icon.png", ".directory"}),      # an item: its mesh in mesh/
    ("Gosu_B13-Obstacle_WR.Replay.Gbx", {"ghost.svg", "inputs.csv", "inputs.txt"}),
    ("C13_bigbang1112(00'29''45).Replay.Gbx", {"ghost.svg", "inputs.csv"}),
]
DERIVED = {"mesh.obj", "mesh.mtl", "mesh.glb", "icon.png", ".directory", "ghost.svg", "inputs.csv", "inputs.txt"}


def _path(end: str) -> str:
    return next(r["path"] for r in manifest_rows() if r["path"].endswith(end))


def _open(corpus, path: str, ctx: TreeContext):
    return open_gbx(path.rsplit("/", 1)[-1], FileSource(str(corpus / path)), ctx)


def _flush(cache: ByteLRU) -> None:
    cache.put(("flush",), None, cache.max_bytes, costly=True)
    cache.discard(("flush",))


def _eio(f) -> str:
    with pytest.raises(OSError) as e:
        f.read(0, 1 << 30)
    assert e.value.errno == errno.EIO
    return str(e.value)


@pytest.mark.corpus
@pytest.mark.parametrize("end,names", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_listed_from_the_header_the_same_on_every_walk(corpus, monkeypatch, end, names):
    path = _path(end)
    walks = []
    real = gbx_parse.walk_body
    for cache_mb in (256, 16):         # 16 MiB, and flushed between walks
        ctx = TreeContext(cache=ByteLRU(cache_mb << 20))
        for _ in range(2):
            calls = []
            monkeypatch.setattr(gbx_parse, "walk_body", lambda *a, **k: calls.append(1) or real(*a, **k))
            d = _open(corpus, path, ctx)
            kids = d.children()
            assert calls == [], "listing a GBX folder parsed its body"
            assert all(kids[n].lazy_size for n in names - {".directory"})
            walks.append(sorted(kids))
            monkeypatch.setattr(gbx_parse, "walk_body", real)
            for n in sorted(names):          # read everything: the next walk lists the same
                kids[n].read(0, 1 << 30)
            if cache_mb == 16:               # every parse and rendered byte goes
                _flush(ctx.cache)
    assert all(w == walks[0] for w in walks)
    assert set(walks[0]) & DERIVED == names


@pytest.mark.corpus
@pytest.mark.parametrize("end,names", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_getattr_size_is_the_bytes_read(corpus, end, names):
    path = _path(end)
    for cache_mb in (256, 16):
        d = _open(corpus, path, TreeContext(cache=ByteLRU(cache_mb << 20)))
        kids = d.children()
        for n in sorted(names):
            size = kids[n].size()            # getattr, before any read
            data = kids[n].read(0, 1 << 30)
            assert size == len(data) > 0, n
            _flush(d.p.ctx.cache)
            assert kids[n].read(0, 1 << 30) == data, n      # made again (evicted) the same
    mesh = d.child("mesh")
    if mesh is not None:                     # every level builds: no error.txt, level 0 the root's
        kids = mesh.children()
        assert "error.txt" not in kids and {"mesh.obj", "mesh.mtl", "mesh.glb"} <= set(kids)
        if "mesh.obj" in names:
            assert kids["mesh.glb"].read(0, 1 << 30) == d.children()["mesh.glb"].read(0, 1 << 30)


@pytest.mark.corpus
def test_further_levels_of_detail_are_in_mesh_folder(corpus):
    d = _open(corpus, _path("Meshes/Arrow.Mesh.gbx"), TreeContext())
    assert "mesh" not in d.children()
    lods = d.child("mesh").children()
    assert sorted(lods) == ["mesh.glb", "mesh.lod1.glb", "mesh.lod1.mtl", "mesh.lod1.obj", "mesh.mtl", "mesh.obj",
                            "textures.txt"]
    obj = lods["mesh.lod1.obj"].read(0, 1 << 30).decode()
    assert "mtllib mesh.lod1.mtl" in obj and "level of detail 1" in obj
    assert obj != d.children()["mesh.obj"].read(0, 1 << 30).decode()


@pytest.mark.corpus
def test_a_cut_mesh_answers_eio_and_says_why(corpus):
    data = (corpus / _path("Simple03.Mesh.gbx")).read_bytes()
    d = open_gbx("cut.Mesh.Gbx", BytesSource(data[:len(data) * 2 // 3]), TreeContext())
    kids = d.children()
    assert {"mesh.obj", "mesh.mtl", "mesh.glb"} <= set(kids)
    for n in ("mesh.obj", "mesh.glb", "mesh.mtl"):
        assert "mesh/error.txt" in _eio(kids[n])
    text = d.child("mesh").children()["error.txt"].read(0, 1 << 20).decode()
    assert "mesh level of detail 0 (mesh.obj, .mtl, .glb)" in text and "no mesh in this file's body" in text
    assert "mesh.obj" not in d.child("mesh").children()


@pytest.mark.corpus
def test_an_item_finds_its_mesh_by_name(corpus):
    """An item may hold its mesh or refer to one in another file (the header cannot
    tell): mesh/ is found by name and shows the mesh, or error.txt saying there is none."""
    d = _open(corpus, _path("White/Base.ObjectInfo.gbx"), TreeContext())
    assert not {"mesh", "mesh.obj"} & set(d.children())
    kids = d.child("mesh").children()
    assert sorted(kids) == ["mesh.glb", "mesh.mtl", "mesh.obj", "textures.txt"]
    assert kids["mesh.obj"].read(0, 1 << 30).startswith(b"# CPlugSolid2Model, level of detail 0")
    elsewhere = _open(corpus, _path("MeleeUltimate/Arrow.Item.gbx"), TreeContext()).child("mesh").children()
    assert sorted(elsewhere) == ["error.txt"]
    assert "no mesh in this file's body" in elsewhere["error.txt"].read(0, 1 << 20).decode()


def _webp_icon(w: int, h: int, cut: int | None = None) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (w, h), (1, 2, 3, 255)).save(out, format="WEBP", lossless=True)
    webp = out.getvalue()[:cut]
    return struct.pack("<HHHI", w | 0x8000, h | 0x8000, 1, len(webp)) + webp


def _item(icon: bytes) -> BytesSource:
    return BytesSource(build_gbx(class_id=C("CGameItemModel"), header_chunks=[(ICON, icon, False)]))


@pytest.mark.parametrize("icon", [_webp_icon(64, 64, cut=40),                       # WebP cut short
                                  struct.pack("<HH", 64, 64) + bytes(100),          # raw: too few pixels
                                  struct.pack("<HHHI", 0xFFFF, 0xFFFF, 1, 12) + b"RIFF\xff\xff\xff\x7fWEBP"],  # huge
                         ids=["cut-webp", "short-raw", "huge"])
def test_a_hostile_icon_answers_eio_and_says_why(icon):
    d = open_gbx("x.Item.Gbx", _item(icon), TreeContext())
    kids = d.children()
    assert "icon.png" in kids and kids[".directory"].read(0, 100) == b"[Desktop Entry]\nIcon=./icon.png\n"
    assert "header/error.txt" in _eio(kids["icon.png"])
    text = kids["header"].children()["error.txt"].read(0, 1 << 20).decode()
    assert "icon.png (chunk 2E001004)" in text or "header chunk 2E001004" in text, text
    mesh = d.child("mesh").children()      # an item without a body: no mesh either, and why
    assert "mesh.obj" not in kids and "mesh.obj" not in mesh
    assert "no mesh in this file's body" in mesh["error.txt"].read(0, 1 << 20).decode()


def test_a_good_icon_is_an_upright_png():
    d = open_gbx("x.Item.Gbx", _item(_webp_icon(48, 32)), TreeContext())
    f = d.children()["icon.png"]
    im = Image.open(io.BytesIO(f.read(0, 1 << 20)))
    assert im.format == "PNG" and im.size == (48, 32) and f.size() == len(f.read(0, 1 << 20))
    assert "error.txt" not in d.children()["header"].children()


def _control_entries(path: str, corpus) -> int | None:
    """The first ghost's control entries, counted from its chunks' values."""
    from gbxfs.formats import gbx
    g = gbx.parse((corpus / path).read_bytes())
    ghost = next((n for n in all_nodes(g.body.nodes) if n.class_id == CTN_GHOST), None)
    if ghost is None:
        return None
    for cid in VALIDATION:
        c = ghost.chunk(cid)
        v = c.values.get("validation") if c is not None and c.values else None
        if v and v.get("controlEntries"):
            return len(v["controlEntries"])
    c = ghost.chunk(CTN_GHOST | 0x01D)
    if c is not None and c.values and c.values.get("inputs"):
        return -1           # TM2020 tick records (tests/formats/gbx/test_tick_inputs.py)
    return 0


@pytest.mark.corpus
def test_inputs_csv_rows_are_the_control_entries(corpus):
    with_entries = scripts = ticks = 0
    for row in manifest_rows():
        if row["kind"] not in ("replay", "ghost"):
            continue
        d = _open(corpus, row["path"], TreeContext())
        kids = d.children()
        if "inputs.csv" not in kids:            # a header that does not parse
            continue
        expected = _control_entries(row["path"], corpus)
        rows = list(csv.reader(io.StringIO(kids["inputs.csv"].read(0, 1 << 30).decode())))
        assert rows[0] == ["time_ms", "action", "value"], row["path"]
        if expected == -1:
            assert len(rows) > 1 and {r[1] for r in rows[1:]} <= {"StateBits", "SteerByte", "Accelerate", "Brake"}
            ticks += 1
            continue
        assert len(rows) - 1 == (expected or 0), row["path"]
        with_entries += bool(expected)
        if "inputs.txt" in kids:
            text = kids["inputs.txt"].read(0, 1 << 30).decode()
            assert text.startswith("# ") and kids["inputs.txt"].size() == len(text.encode())
            scripts += 1
    assert with_entries >= 20 and scripts >= 10 and ticks >= 12


@pytest.mark.corpus
@pytest.mark.parametrize("needle", ["Simple03.Mesh.gbx", "HaloTournant.Crystal.Gbx"])
def test_written_over_meshes_give_a_mesh_or_eio(corpus, needle):
    """A mesh file's body with words written over (huge counts, indices past the
    end) gives mesh files whose size is the bytes read, or EIO with the reason in
    mesh/error.txt: never another exception, and the next file is served."""
    from corpusdata import corpus_body
    body, kw = corpus_body(needle)
    rng = random.Random(needle)
    outcomes = set()
    for _ in range(16):
        at = rng.randrange(0, len(body) - 4)
        bad = body[:at] + struct.pack("<I", rng.choice([0xFFFFFFFF, 0x7FFFFFFF, 0x10000000, 3])) + body[at + 4:]
        data = build_gbx(class_id=kw["class_id"], num_nodes=kw["num_nodes"], body=bad)
        d = open_gbx("x.Gbx", BytesSource(data), TreeContext(cache=ByteLRU(64 << 20)))
        kids = d.children()
        try:
            glb = kids["mesh.glb"].read(0, 1 << 30)
        except OSError as e:
            assert e.errno == errno.EIO and "mesh/error.txt" in str(e)
            assert "mesh level of detail 0" in d.child("mesh").children()["error.txt"].read(0, 1 << 20).decode()
            outcomes.add("eio")
        else:
            assert kids["mesh.glb"].size() == len(glb) and glb[:4] == b"glTF"
            outcomes.add("mesh")
    good = open_gbx("y.Gbx", FileSource(str(corpus / _path(needle))), TreeContext())
    assert good.children()["mesh.obj"].read(0, 1 << 30).startswith(b"# ")
    assert "eio" in outcomes, outcomes
