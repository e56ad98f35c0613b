"""Class data: the committed tables are exactly what tools/gen_classdb.py generates,
and the lookups follow the shared tables' rules."""
from __future__ import annotations

import importlib.util

import pytest
from corpusdata import ROOT

from gbxfs.formats.gbx import classdb


def _generator():
    spec = importlib.util.spec_from_file_location("gen_classdb", ROOT / "tools" / "gen_classdb.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.corpus
def test_committed_data_matches_a_regeneration(shared):
    files = _generator().generate(shared / "classdb")
    assert set(files) == {p.name for p in (ROOT / "gbxfs" / "data").glob("classdb_*.tsv")}
    for name, text in files.items():
        assert (ROOT / "gbxfs" / "data" / name).read_text(encoding="utf-8") == text, f"{name} is stale"


def test_names_and_remapping():
    assert classdb.class_name(0x03043000) == "CGameCtnChallenge"
    assert classdb.remap(0x24003000) == 0x03043000
    assert classdb.remap(0x24003002) == 0x03043002          # chunk ids keep their low 12 bits
    assert classdb.class_name(0x24003000) == "CGameCtnChallenge"
    assert classdb.class_name(0x2407E000) == "CGameCtnReplayRecord"
    assert classdb.remap(0x03043002) == 0x03043002          # current ids are unchanged
    assert classdb.class_name(0x7FFFF000) is None


def test_chunk_names_by_kind():
    assert classdb.chunk_name(0x03033001, header=True) == "desc"
    assert classdb.chunk_info(0x03033001, header=True) == (False, "desc")
    assert classdb.chunk_name(0x01001000) is None           # known chunk without a name
    assert classdb.chunk_info(0x7FFFF001) is None


def test_feed_ids_follow_the_table():
    # default rule: unwrap(parent(class)); CControlText special case; CPlugCurveSimpleNod
    assert classdb.feed_id(0x03079000) == 0x01001000        # CGameCtnMediaClip: parent CMwNod
    assert classdb.feed_id(0x09185000) == 0x01001000
    assert classdb.feed_id(0x7FFFF000) is None


def test_feed_table_follows_the_documented_rule():
    # classdb/README.md: feed_id(class) = unwrap(parent(class)), with CPlugCurveSimpleNod
    # (09185000) the one listed exception; the CControlText case is inside the tables.
    exceptions = {0x09185000}
    feeds = classdb._feeds()
    assert len(feeds) > 400
    for cid, feed in feeds.items():
        if cid not in exceptions:
            assert classdb.unwrap(classdb.parent(cid)) == feed, f"{cid:08X}"


def test_class_id_by_name_is_the_current_id():
    assert classdb.class_id("CGameCtnChallenge") == 0x03043000
    # an old id the wrap table remaps is never the answer: CGameCtnCollector 0301A000 -> 2E001000
    assert classdb.class_id("CGameCtnCollector") == 0x2E001000
    for cid, name in classdb._names().items():
        if cid not in classdb._wrap() and len(classdb._ids()[name]) == 1:
            assert classdb.class_id(name) == cid
            assert classdb.class_name(cid) == name


def test_class_id_refuses_unknown_and_ambiguous_names():
    with pytest.raises(KeyError, match="unknown"):
        classdb.class_id("CNoSuchClass")
    ambiguous = next(n for n, ids in classdb._ids().items() if len(ids) > 1)
    with pytest.raises(KeyError, match="ambiguous"):
        classdb.class_id(ambiguous)


def _tiny_source(tmp_path, feed_name):
    tables = {
        "classes.tsv": "class_id\tname\tengine_name\n01001000\tCMwNod\t\n090EC000\t\tPlug\n09999000\t\tPlug\n",
        "wrap.tsv": "old_id\tnew_id\n", "unwrap.tsv": "new_id\toldest_id\n",
        "parents.tsv": "class_id\tclass_name\tparent_id\tparent_name\n090EC000\tCPlugVehiclePhyTunings\t01001000\tCMwNod\n",
        "chunk_names.tsv": "chunk_id\tclass_name\tchunk_name_or_empty\tskippable\theader\n",
        "feed_ids.tsv": f"class_id\tclass_name\tparent_id\tfeed_id\trule\n090EC000\t{feed_name}\t01001000\t01001000\tparent\n",
    }
    for name, text in tables.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    ext = tmp_path / "ext.tsv"
    ext.write_text("class_name\tkind\text\text_new\nCPlugVehiclePhyTunings\tgbx\tVehicleTunings.Gbx\t\n")
    return tmp_path, ext


def test_an_unnamed_class_takes_the_name_the_class_tables_give(tmp_path):
    source, ext = _tiny_source(tmp_path, "CPlugVehiclePhyTunings")
    files = _generator().generate(source, ext)
    rows = [ln.split("\t") for ln in files["classdb_classes.tsv"].splitlines()[2:]]
    # 09999000 is named by no table: it stays out, as before
    assert rows == [["01001000", "CMwNod"], ["090EC000", "CPlugVehiclePhyTunings"]]
    assert "090EC000\tgbx\tVehicleTunings.Gbx" in files["classdb_extensions.tsv"]


def test_an_unnamed_class_named_two_ways_is_an_error(tmp_path):
    source, ext = _tiny_source(tmp_path, "CPlugVehiclePhyTuningz")
    with pytest.raises(ValueError, match="090EC000"):
        _generator().generate(source, ext)


def test_the_vehicle_tunings_class_is_named():
    assert classdb.class_name(0x090EC000) == "CPlugVehiclePhyTunings"
    assert classdb.class_name(0x0A030000) == "CPlugVehiclePhyTunings"   # its old id
