"""The human summaries: info.txt's first lines, maps.csv / replays.csv in every
folder holding maps or replays (real folders and pak folders), $-code stripping."""
from __future__ import annotations

import csv
import io
import shutil
from types import SimpleNamespace

import pytest

from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import parse as gbx_parse
from gbxfs.tree.gbx.summary import REPLAY, strip_codes, summary
from gbxfs.tree.pak.entries import PakEntryFile
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve

TRACKS = "adrien-obrecht+GbxParser/Benchmark/Tracks"
REPLAYS = "adrien-obrecht+GbxParser/Benchmark/Replays"


def text(entry) -> str:
    return entry.read(0, entry.size()).decode("utf-8")


def pairs(data: str) -> dict[str, str]:
    out = {}
    for line in data.splitlines():
        if " = " in line and not line.startswith(" "):
            k, v = line.split(" = ", 1)
            out.setdefault(k, v)
    return out


def rows(entry) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text(entry))))


def header_dump(gbx_dir, chunk_prefix: str) -> dict[str, str]:
    header = gbx_dir.children()["header"].children()
    name = next(n for n in header if n.startswith(chunk_prefix) and n.endswith(".txt"))
    return {k: v.strip('"') for k, v in pairs(text(header[name])).items()}


@pytest.mark.parametrize("s, plain", [
    ("$o$i$a0aK$a06a$a30ck", "Kack"), ("$$5 off", "$5 off"), ("$l[http://x.y]link$l", "link"),
    ("plain", "plain"), ("$fffG$7f0osu", "Gosu"), ("$g$z$sA$", "A"),
])
def test_strip_codes(s, plain):
    assert strip_codes(s) == plain


def test_map_info_starts_with_the_summary(corpus):
    root = build_tree(str(corpus / TRACKS))
    for name, m in root.children().items():
        if not name.endswith(".Gbx"):
            continue
        info = text(m.children()["info.txt"])
        assert info.startswith("name = "), name
        got = pairs(info)
        desc, common = header_dump(m, "03043002"), header_dump(m, "03043003")
        assert got["name"] == common["mapName"] and got["map_uid"] == common["mapUid"]
        assert got["name_plain"] == strip_codes(common["mapName"]) and "$" not in got["name_plain"]
        assert got["author"] == common["mapAuthor"] and got["environment"] == common["environment"]
        for medal in ("bronze", "silver", "gold", "author"):
            stored = int(desc[f"{medal}Time"])
            assert got[f"{medal}_ms"] == (str(stored) if stored >= 0 else "unset")
        # the summary comes before the container facts
        assert list(got).index("map_uid") < list(got).index("file_size")


def test_replay_info_has_player_time_and_checkpoints(corpus):
    root = build_tree(str(corpus / REPLAYS))
    r = root.children()["Bruno_B13-Obstacle.Replay.gbx"]
    got = pairs(text(r.children()["info.txt"]))
    version = header_dump(r, "03093000")
    assert got["player"] == version["nickname"].lstrip("\ufeff")
    assert not got["player"].startswith("\ufeff")          # the BOM is dropped from decoded values
    assert got["login"] == version["login"] and got["race_time_ms"] == version["raceTime"]
    ghost = pairs(text(r.children()["ghost.txt"]))
    assert got["checkpoints_ms"] == ghost["checkpoints_ms"]
    assert got["checkpoints_ms"].split(", ")[-1] == got["race_time_ms"]


def test_bom_stays_in_the_bin(corpus):
    r = resolve(build_tree(str(corpus / REPLAYS)), "Bruno_B13-Obstacle.Replay.gbx/header")
    raw = next(f for n, f in r.children().items() if n.startswith("03093000") and n.endswith(".bin"))
    assert b"\xef\xbb\xbf" in raw.read(0, raw.size())


def test_maps_csv_one_row_per_map(corpus):
    root = build_tree(str(corpus / TRACKS))
    kids = root.children()
    assert "maps.csv" in kids and "replays.csv" not in kids
    maps = [n for n in kids if n.lower().endswith(".challenge.gbx")]
    table = rows(kids["maps.csv"])
    assert [r["file"] for r in table] == maps
    assert kids["maps.csv"].size() == len(kids["maps.csv"].read(0, 1 << 20))
    for r in table:
        info = pairs(text(kids[r["file"]].children()["info.txt"]))
        for col in ("name", "name_plain", "author", "environment", "map_uid", "author_ms", "gold_ms"):
            assert r[col] == info.get(col, "").replace("unset", ""), (r["file"], col)


def test_maps_csv_reads_no_body_and_carries_no_status(corpus, tmp_path, monkeypatch):
    """The index is made of headers alone (a folder of 20,000 maps indexes in seconds):
    the status, which needs the body, is info.txt's, not a column."""
    shutil.copytree(corpus / TRACKS, tmp_path / "t")
    bodies = []
    real = gbx_parse.read_body
    monkeypatch.setattr(gbx_parse, "read_body", lambda *a, **k: bodies.append(a) or real(*a, **k))
    kids = build_tree(str(tmp_path / "t"), TreeContext()).children()
    table = rows(kids["maps.csv"])
    assert table and "status" not in table[0]
    assert bodies == []
    text(kids[table[0]["file"]].children()["info.txt"])       # what does read a body
    assert len(bodies) == 1


def test_replays_csv(corpus):
    kids = build_tree(str(corpus / REPLAYS)).children()
    assert "replays.csv" in kids and "maps.csv" not in kids
    table = rows(kids["replays.csv"])
    assert len(table) == sum(1 for n in kids if n.lower().endswith(".replay.gbx"))
    for r in table:
        info = pairs(text(kids[r["file"]].children()["info.txt"]))
        assert (r["player"], r["race_time_ms"], r["login"]) == (info["player"], info["race_time_ms"], info["login"])


def test_no_index_without_gbx_and_source_files_never_hidden(corpus, tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a.txt").write_text("a")
    assert set(build_tree(str(tmp_path / "plain")).children()) == {"a.txt"}
    shutil.copytree(corpus / TRACKS, tmp_path / "t")
    (tmp_path / "t" / "maps.csv").write_text("mine\n")
    (tmp_path / "t" / "maps~2.csv").write_text("mine too\n")
    kids = build_tree(str(tmp_path / "t")).children()
    assert text(kids["maps.csv"]) == "mine\n" and text(kids["maps~2.csv"]) == "mine too\n"
    assert text(kids["maps~3.csv"]).startswith("file,name,")


def test_pak_folders_get_the_index(corpus, tmp_path):
    files = [PakFile(f"Tracks/{p.name}", p.read_bytes()) for p in sorted((corpus / TRACKS).iterdir())]
    files.append(PakFile("Tracks/maps.csv", b"an archive file\n"))
    files.append(PakFile("Other/readme.txt", b"no maps here\n"))
    write_packs(tmp_path, {"M": files})
    pak = build_tree(str(tmp_path)).children()["M.pak"]
    tracks = pak.children()["Tracks"].children()
    assert set(pak.children()["Other"].children()) == {"readme.txt"}
    assert isinstance(tracks["maps.csv"], PakEntryFile) and text(tracks["maps.csv"]) == "an archive file\n"
    index = tracks["maps~2.csv"]
    # listed from the metadata section alone: no entry was decrypted for the listing
    assert not [n for n, d in tracks.items() if n.endswith(".Gbx") and d._entry.checked]
    table = rows(index)      # the status column needs each entry's bytes
    assert [r["file"] for r in table] == [f.path.split("/")[-1] for f in files[:len(table)]]
    loose = rows(build_tree(str(corpus / TRACKS)).children()["maps.csv"])
    assert table == loose


def test_ghost_info_from_its_ghost(corpus):
    folder = corpus / "BigBang1112+gbx-net/Tests/GBX.NET.Tests/Files/Gbx/CGameCtnGhost"
    kids = build_tree(str(folder)).children()
    ghosts = [n for n in kids if n.lower().endswith(".ghost.gbx")]
    assert ghosts and [r["file"] for r in rows(kids["replays.csv"])] == ghosts
    assert all(r["kind"] == "ghost" for r in rows(kids["replays.csv"]))
    checked = 0
    for n in ghosts:
        info = pairs(text(kids[n].children()["info.txt"]))
        ghost = pairs(text(kids[n].children()["ghost.txt"]))
        for field in ("player", "race_time_ms", "checkpoints_ms"):       # one name in both files
            if field in ghost and ghost[field] != "unset":
                assert info[field] == ghost[field], (n, field)
                checked += 1
    assert checked >= 3



GBXNET = "BigBang1112+gbx-net"
# replays and ghosts of every generation in the corpus: TM1.0 .. TM2020
REPLAY_FOLDERS = [REPLAYS, f"{GBXNET}/Tests/GBX.NET.Tests/Files/Gbx/CGameCtnReplayRecord",
                  f"{GBXNET}/Tests/GBX.NET.Tests/Files/Gbx/CGameCtnGhost",
                  *(f"{GBXNET}/ExampleFiles/Replays/{g}" for g in (
                      "0_TrackMania", "1_TrackMania Sunrise", "3_TrackMania Nations ESWC",
                      "5_TrackMania Forever", "6_TrackMania 2", "7_TrackMania Turbo"))]


def header_field_names(gbx_dir) -> set[str]:
    """Every field name the decoded header chunks show (nested ones too)."""
    names = set()
    for n, f in gbx_dir.children()["header"].children().items():
        if n.endswith(".txt"):
            names |= {line.split(" = ", 1)[0].strip() for line in text(f).splitlines() if " = " in line}
    return names


@pytest.mark.parametrize("folder", REPLAY_FOLDERS)
def test_replays_csv_has_no_checkpoint_column_as_no_header_carries_them(corpus, folder):
    kids = build_tree(str(corpus / folder), TreeContext()).children()
    table = rows(kids["replays.csv"])
    assert table and all("checkpoints_ms" not in r for r in table)
    for r in table:      # the index is made of headers: none has a checkpoint field
        assert not [n for n in header_field_names(kids[r["file"]]) if "checkpoint" in n.lower()], r["file"]


def test_replay_player_is_the_headers(corpus):
    """A replay's player is its header's driver when the header carries one, not its
    first ghost's (they differ in replays whose ghosts are other players')."""
    checked = 0
    for folder in REPLAY_FOLDERS:
        checked += _header_players(corpus / folder)
    assert checked >= 10


def _header_players(folder) -> int:
    kids = build_tree(str(folder)).children()
    table = {r["file"]: r for r in rows(kids["replays.csv"])}
    checked = 0
    for name, r in table.items():
        if r["kind"] != "replay":
            continue
        header = kids[name].children()["header"].children()
        if not any(n.startswith("03093000") and n.endswith(".txt") for n in header):
            continue
        nick = header_dump(kids[name], "03093000").get("nickname", "").lstrip("\ufeff")
        if not nick:
            continue
        assert pairs(text(kids[name].children()["info.txt"]))["player"] == nick == r["player"], name
        checked += 1
    return checked


def test_header_player_before_the_ghosts():
    header = SimpleNamespace(class_id=REPLAY, _gbxfs_decoded=True,
                             chunks=[SimpleNamespace(values={"version": 6, "nickname": "driver"})])
    got = summary(header, {"player": "someone else", "login": "other", "race_time_ms": 7})
    assert got["player"] == "driver" and got["login"] == "other" and got["race_time_ms"] == 7
