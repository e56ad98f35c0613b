"""The GBX folder view (docs/formats/mount.md) on corpus files: names, sizes, thumbnails,
ghost files, embedded maps, laziness, and files that cannot be read."""
from __future__ import annotations

import io
import threading
import time

import pytest

from gbxfs.tree.gbx import parse as gbx_parse
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.model import Dir
from gbxfs.tree.walk import resolve
from gbxfs.tree.source import BytesSource, FileSource
from corpusdata import manifest_rows

pytestmark = pytest.mark.corpus


def _first(kind: str, needle: str = "") -> str:
    return next(r["path"] for r in manifest_rows() if r["kind"] == kind and needle in r["path"])


def _open(corpus, path: str, ctx: TreeContext | None = None):
    return open_gbx(path.rsplit("/", 1)[-1], FileSource(str(corpus / path)), ctx or TreeContext())


def _walk(d: Dir, prefix=""):
    for name, e in d.children().items():
        yield prefix + name, e
        if e.is_dir:
            yield from _walk(e, prefix + name + "/")


def test_map_folder_names(corpus):
    d = _open(corpus, _first("map", "A01-Race"))
    kids = d.children()
    assert {"original.gbx", "info.txt", "header", "body", "thumbnail.jpg"} <= set(kids)
    assert "embedded" not in kids and d.child("embedded").is_dir      # made from the body: found by name
    header = kids["header"].children()
    assert {"03043002.TmDesc.txt", "03043002.TmDesc.bin", "03043005.Community.xml",
            "03043007.Thumbnail.bin"} <= set(header)
    assert header["03043002.TmDesc.bin"].xattrs["user.gbx.chunk_id"] == b"03043002"
    nodes = kids["body"].child("nodes").children()
    assert "000.CGameCtnChallenge" in nodes
    assert nodes["000.CGameCtnChallenge"].xattrs["user.gbx.class_id"] == b"03043000"
    assert d.xattrs["user.gbx.class_id"] == b"03043000"
    assert "error.txt" not in d.children()          # this map parses completely


def test_replay_folder_ghosts_and_embedded_map(corpus):
    d = _open(corpus, _first("replay", "Bruno_B13"))
    kids = d.children()
    assert {"ghost.csv", "ghost.txt"} <= set(kids) and not {"ghosts", "embedded"} & set(kids)
    ghosts = d.child("ghosts").children()
    assert sorted(ghosts) == ["0.csv", "0.txt", "1.csv", "1.txt", "2.csv", "2.txt", "3.csv", "3.txt"]
    assert kids["ghost.csv"].read(0, 1 << 20) == ghosts["0.csv"].read(0, 1 << 20)
    txt = kids["ghost.txt"].read(0, 4096).decode()
    assert "race_time_ms = 24940" in txt and "checkpoints_ms = 8030, 14690, 20950, 24940" in txt
    emb = d.child("embedded").children()
    assert list(emb) == ["map.Gbx"]
    inner = emb["map.Gbx"].children()
    assert inner["original.gbx"].read(0, 3) == b"GBX"
    assert inner["info.txt"].read(0, 4096).decode().count("class_name = CGameCtnChallenge") == 1


def test_ghost_file_folder(corpus):
    d = _open(corpus, _first("ghost", "p00001_19538"))
    kids = d.children()
    assert {"ghost.csv", "ghost.txt"} <= set(kids) and "ghosts" not in kids
    csv = kids["ghost.csv"].read(0, 1 << 22).decode().splitlines()
    assert csv[0].startswith("time_ms,x_m,y_m,z_m,qx,qy,qz,qw,speed_mps,vx_mps,vy_mps,vz_mps")
    assert len(csv) > 300
    assert "race_time_ms = 19538" in kids["ghost.txt"].read(0, 4096).decode()


def test_exact_sizes(corpus):
    for path in (_first("map", "A01-Race"), _first("replay", "TMNESWC 001"), _first("ghost", "human_23013")):
        for name, e in _walk(_open(corpus, path)):
            if not e.is_dir and not e.error:
                data = e.read(0, 1 << 26)
                assert e.size() == len(data), (path, name)


def test_thumbnail_is_upright_jpeg(corpus):
    from PIL import Image, ImageChops, ImageStat
    from gbxfs.formats.gbx.thumbnail import split_thumbnail_chunk
    d = _open(corpus, _first("map", "A01-Race"))
    jpeg = d.children()["thumbnail.jpg"].read(0, 1 << 22)
    assert jpeg[:2] == b"\xff\xd8"
    stored_raw = d.children()["header"].children()["03043007.Thumbnail.bin"].read(0, 1 << 22)
    stored, _ = split_thumbnail_chunk(stored_raw)
    up = Image.open(io.BytesIO(jpeg)).convert("RGB")
    st = Image.open(io.BytesIO(stored)).convert("RGB")
    assert up.size == st.size
    flipped_back = ImageChops.difference(up.transpose(Image.Transpose.FLIP_TOP_BOTTOM), st)
    unflipped = ImageChops.difference(up, st)
    assert max(ImageStat.Stat(flipped_back).mean) < 2          # same picture, upside down
    assert max(ImageStat.Stat(unflipped).mean) > 10 * max(ImageStat.Stat(flipped_back).mean)


def test_thumbnail_files_carry_their_chunk_s_id_and_offset(corpus):
    d = _open(corpus, _first("map", "A01-Race"))
    kids = d.children()
    chunk = kids["header"].children()["03043007.Thumbnail.bin"].xattrs     # the chunk's own file says where
    assert chunk["user.gbx.chunk_id"] == b"03043007" and int(chunk["user.gbx.offset"]) > 0
    for name in ("thumbnail.jpg", "comments.txt"):
        if name in kids:
            assert kids[name].xattrs == {k: chunk[k] for k in ("user.gbx.chunk_id", "user.gbx.offset")}, name


def test_body_nodes_found_by_name_not_listed(corpus):
    """body/ lists body.bin and nodes.txt; nodes/ (two files per chunk of every
    node) is reached by name only, so whole-folder walks skip it, and nodes.txt
    names each of its folders."""
    d = _open(corpus, _first("map", "A01-Race"))
    body = d.children()["body"]
    assert set(body.children()) == {"body.bin", "nodes.txt"}
    assert set(body.peek()) == {"body.bin", "nodes.txt"}
    nodes = body.child("nodes")
    assert nodes is not None and nodes.is_dir and body.child("nope") is None
    index = body.children()["nodes.txt"]
    text = index.read(0, index.size()).decode()
    listed = [ln for ln in text.splitlines() if ln and not ln.startswith("#") and " = " not in ln]
    assert listed == list(nodes.children())
    assert f"nodes = {len(listed)}" in text and "body_status = complete" in text
    names = [p for p, _ in _walk(d)]
    assert not any("/nodes/" in p or p.endswith("body/nodes") for p in names)
    assert resolve(d, "body/nodes/000.CGameCtnChallenge").is_dir


def test_listing_parses_the_header_only(corpus, monkeypatch):
    calls = []
    real = gbx_parse.read_body
    monkeypatch.setattr(gbx_parse, "read_body", lambda *a, **k: calls.append(1) or real(*a, **k))
    walks = []
    real_walk = gbx_parse.walk_body
    monkeypatch.setattr(gbx_parse, "walk_body", lambda *a, **k: walks.append(1) or real_walk(*a, **k))
    d = _open(corpus, _first("replay", "Bruno_B13"))
    names = set(d.children())
    assert {"ghost.csv", "ghost.txt", "info.txt", "body"} <= names
    d.children()["header"].children()
    assert set(d.children()["body"].children()) == {"body.bin", "nodes.txt"}
    assert d.children()["body"].children()["body.bin"].size() > 0      # the size the file declares
    # what needs the body tells a listing to leave its size to getattr
    assert all(d.children()[n].lazy_size for n in ("info.txt", "ghost.csv", "ghost.txt"))
    assert d.children()["body"].children()["nodes.txt"].lazy_size
    assert calls == [] and walks == []                   # listing: header only, body/ included
    d.children()["ghost.txt"].size()
    assert calls == walks == [1]                         # first body use parses it
    body_bin = d.children()["body"].children()["body.bin"]
    assert len(body_bin.read(0, 1 << 24)) == body_bin.size()
    d.children()["body"].child("nodes").children()
    d.child("ghosts").children()
    d.child("embedded").children()
    assert walks == [1]                                  # ... once (cached)
    assert set(d.children()) == names                    # and the listing is the same


def test_concurrent_first_reads_parse_the_body_once(corpus, monkeypatch):
    """Four threads read info.txt of a map at once: one body parse, and all four
    get the same bytes. The parse holds on until all four threads asked for
    the body's digest (info.txt is rendered from it, and the digest from the
    parse), so the threads do overlap whatever the scheduler does."""
    ctx = TreeContext()
    d = _open(corpus, _first("map", "A01-Race"), ctx)
    key = ("gbx.body", d.p.source)
    digest = ("gbx.digest", d.p.source)
    calls = []
    real = gbx_parse.read_body

    def counting_read_body(*a, **k):
        calls.append(1)
        deadline = time.monotonic() + 60
        while ctx.cache.makers(digest) < 4:
            assert time.monotonic() < deadline, "the other three readers never asked for the body"
            time.sleep(0.01)
        return real(*a, **k)

    monkeypatch.setattr(gbx_parse, "read_body", counting_read_body)
    info = d.children()["info.txt"]
    results: list[bytes] = []
    errors: list[BaseException] = []

    def reader():
        try:
            results.append(info.read(0, 1 << 16))
        except BaseException as e:   # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert len(results) == 4 and len(set(results)) == 1 and b"body_status" in results[0]
    assert calls == [1]
    assert ctx.cache.makers(key) == 0 and ctx.cache.makers(digest) == 0


def test_truncated_file_explains_itself(corpus):
    data = (corpus / _first("replay", "Bruno_B13")).read_bytes()
    d = open_gbx("cut.Replay.Gbx", BytesSource(data[: len(data) // 2]), TreeContext())
    before = set(d.children())
    assert "error.txt" not in before                     # the header is whole
    body = d.children()["body"].children()                # the body is cut short
    assert set(body) == {"error.txt"}
    text = body["error.txt"].read(0, 1 << 16).decode()
    assert "offset" in text and "why:" in text
    assert body["error.txt"].xattrs["user.gbxfs.error"]
    d.children()["info.txt"].size()                      # the parse, made for info.txt
    assert set(d.children()) == before                   # does not change the listing
    assert d.children()["original.gbx"].size() == len(data) // 2


def test_not_a_gbx_still_shows_original(corpus):
    d = open_gbx("junk.Gbx", BytesSource(b"not a gbx at all"), TreeContext())
    kids = d.children()
    assert kids["original.gbx"].read(0, 100) == b"not a gbx at all"
    assert "error.txt" in kids and "header" not in kids


def test_unverifiable_pak_entry_keeps_its_header(corpus):
    data = (corpus / _first("map", "A01-Race")).read_bytes()
    from gbxfs.formats.gbx.header import parse_header
    header_bytes = data[: parse_header(data).header_end]
    d = open_gbx("x.Challenge.Gbx", BytesSource(b""), TreeContext(), header_bytes=header_bytes,
                 error="Adler-32 mismatch")
    kids = d.children()
    assert kids["original.gbx"].error == "Adler-32 mismatch"
    assert "03043002.TmDesc.txt" in kids["header"].children()
    assert kids["thumbnail.jpg"].read(0, 2) == b"\xff\xd8"
    assert "Adler-32 mismatch" in kids["error.txt"].read(0, 4096).decode()
    assert kids["body"].children() == {}


def test_map_embedded_items_zip_matches_its_item_list(corpus):
    """embedded/items.zip is the stored ZIP (CRCs check), and its members are the
    items the chunk lists (two places in 03043054: the metas and the ZIP)."""
    import zipfile
    d = _open(corpus, _first("map", "Simple TECH 1.Map"))
    emb = d.child("embedded").children()
    z = zipfile.ZipFile(io.BytesIO(emb["items.zip"].read(0, 1 << 24)))
    assert z.testzip() is None
    members = {m.replace("/", "\\") for m in z.namelist()}
    text = emb["items.txt"].read(0, 1 << 16).decode()
    import json                        # .txt values are JSON strings
    listed = [json.loads(line.split(" = ", 1)[1]) for line in text.splitlines()
              if line.strip().startswith("name = ")]
    assert listed and all(("Items\\" + name) in members for name in listed)
    assert all(m.replace("\\", "/") in text for m in members)


def test_node_walk_problems_are_in_body_nodes_error_txt(corpus):
    """A body read whole whose node walk stops: body/nodes/error.txt says what, where
    and why, nodes.txt points to it, and no listing above changes."""
    d = _open(corpus, _first("other", "IslandSeaWaySupport.TMEDRoad"))
    top, body = set(d.children()), set(d.children()["body"].children())
    nodes = d.children()["body"].child("nodes").children()
    text = nodes["error.txt"].read(0, 1 << 16).decode()
    assert text.startswith("what: ") and "where: " in text and "why: " in text
    index = d.children()["body"].children()["nodes.txt"]
    assert "body/nodes/error.txt" in index.read(0, index.size()).decode()
    d.children()["info.txt"].size()
    assert set(d.children()) == top and set(d.children()["body"].children()) == body
    assert "error.txt" not in top and "error.txt" not in body


def test_a_replay_inside_a_pak_finds_its_unlisted_folders(corpus, tmp_path):
    """A GBX folder inside a pak finds embedded/ and ghosts/ by name too, and tells
    tools that walk everything about them (`unlisted`)."""
    from gbxfs.formats.pak.writer import PakFile, write_packs
    from gbxfs.tree.root import build_tree
    data = (corpus / _first("replay", "Bruno_B13")).read_bytes()
    write_packs(tmp_path, {"R": [PakFile("Replays/a.Replay.Gbx", data)]})
    d = resolve(build_tree(str(tmp_path)), "R.pak/Replays/a.Replay.Gbx")
    # mesh/ is a name any GBX folder may find (a replay finds none there)
    assert "ghosts" not in d.children() and set(d.unlisted) == {"ghosts", "embedded", "mesh"}
    assert d.child("mesh") is None
    assert sorted(d.child("ghosts").children())[:2] == ["0.csv", "0.txt"]
    assert list(d.child("embedded").children()) == ["map.Gbx"]
