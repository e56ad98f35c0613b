"""`gbxfs info`: summaries, JSON, exit codes, and no traceback on bad input."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from corpusdata import ROOT, manifest_rows

from gbxfs.cli import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, main

REPLAY = next((r["path"] for r in manifest_rows() if r["kind"] == "replay" and "BUCR" in r["format"]), None)


@pytest.fixture()
def replay(corpus):
    return corpus / REPLAY


@pytest.mark.corpus
def test_text_summary(replay, capsys):
    assert main(["info", str(replay)]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"path: {replay}" in out
    assert "class_id: 03093000\nclass_name: CGameCtnReplayRecord\n" in out
    assert "header_version: 6\nformat: BUCR\n" in out
    assert "body_compression: LZO\n" in out and "body_status: " in out


@pytest.mark.corpus
@pytest.mark.parametrize("needle", ["replay_kacky_7241.Replay.Gbx", "human_23013.Ghost.Gbx", "map2.Map.Gbx",
                                    "IslandSeaWaySupport.TMEDRoad.Gbx"])
def test_text_says_what_info_txt_says_under_its_names(needle, corpus, capsys):
    """One name for one fact: every line `gbxfs info` prints (but its path) is a line
    of the file's info.txt, with the same value."""
    from corpusdata import corpus_path
    from gbxfs.tree.root import build_tree
    path = corpus / corpus_path(needle)
    info = build_tree(str(path)).children()["info.txt"]
    tree = dict(line.split(" = ", 1) for line in info.read(0, info.size()).decode().splitlines())
    main(["info", str(path)])
    text = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines()
                if line and not line.startswith(" "))
    assert text.pop("path") == str(path)
    assert {k: v for k, v in text.items() if tree.get(k) != v} == {}
    assert {"class_id", "status", "body_size"} <= set(text)


@pytest.mark.corpus
def test_info_shows_the_summary_of_the_tree(replay, capsys):
    """The player, time and checkpoints `gbxfs info` prints are info.txt's."""
    from gbxfs.tree.root import build_tree
    info = build_tree(str(replay)).children()["info.txt"]
    tree = dict(line.split(" = ", 1) for line in info.read(0, info.size()).decode().splitlines())
    assert main(["info", "--json", str(replay)]) == EXIT_OK
    s = json.loads(capsys.readouterr().out)[0]["summary"]
    assert s["player"] == tree["player"] and str(s["race_time_ms"]) == tree["race_time_ms"]
    assert ", ".join(map(str, s["checkpoints_ms"])) == tree["checkpoints_ms"]
    assert main(["info", str(replay)]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"player: {tree['player']}\n" in out and f"checkpoints: {tree['checkpoints']}\n" in out


@pytest.mark.corpus
def test_json_summary_for_several_files(replay, tmp_path, capsys):
    bad = tmp_path / "bad.Gbx"
    bad.write_bytes(replay.read_bytes()[:200])
    code = main(["info", "--json", str(replay), str(bad)])
    assert code == EXIT_BAD_INPUT
    out = json.loads(capsys.readouterr().out)
    assert [o["path"] for o in out] == [str(replay), str(bad)]
    s = out[0]
    assert s["class_id"] == "03093000" and s["class_name"] == "CGameCtnReplayRecord"
    assert s["header_version"] == 6 and s["format"] == "BUCR"
    assert s["header_chunks"][0]["id"] == "03093000" and s["header_chunks"][0]["size"] > 0
    assert s["num_nodes"] >= 1 and s["external_refs"] == []
    assert s["body_compression"] == "LZO" and s["body_size"] > s["body_compressed_size"] > 0
    assert s["body_status"] == "complete"
    assert "userDataSize" in out[1]["error"]


def test_garbage_and_missing_files(tmp_path, capsys):
    garbage = tmp_path / "x.Gbx"
    garbage.write_bytes(b"GBX\x06\x00BUCR" + bytes(7))
    assert main(["info", str(garbage)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gbxfs: {garbage}: ")
    assert main(["info", str(tmp_path / "nope.Gbx")]) == EXIT_NOT_FOUND
    other = tmp_path / "x.txt"
    other.write_bytes(b"hello")
    assert main(["info", "--json", str(other)]) == EXIT_BAD_INPUT
    assert json.loads(capsys.readouterr().out)[0]["error"] == "not a GBX, pak or GP2 file"


def test_truncated_body_is_bad_input(tmp_path, capsys):
    from gbxfs.formats.gbx.writer import build_gbx, node_body
    data = build_gbx(class_id=0x01001000, body_comp="C", body=node_body([(0x01001000, bytes(4), False)]))
    f = tmp_path / "t.Gbx"
    f.write_bytes(data[:-2])
    assert main(["info", "--json", str(f)]) == EXIT_BAD_INPUT
    s = json.loads(capsys.readouterr().out)[0]
    assert s["body_status"] == "failed" and "exceeds" in s["body_error"]
    f.write_bytes(data)
    assert main(["info", str(f)]) == EXIT_OK
    assert "body_status: complete" in capsys.readouterr().out


def test_no_traceback_from_the_real_command(tmp_path):
    f = tmp_path / "trunc.Gbx"
    f.write_bytes(b"GBX\x06\x00BUCR\x00\x30\x04\x03\xff\xff\xff\x7f")
    env = dict(os.environ)
    env.pop("GBXFS_DEBUG", None)
    p = subprocess.run([sys.executable, "-m", "gbxfs", "info", "--json", str(f)], capture_output=True,
                       text=True, cwd=ROOT, env=env)
    assert p.returncode == EXIT_BAD_INPUT
    assert "Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1
    assert json.loads(p.stdout)[0]["error"]


def test_usage_errors(capsys):
    assert main(["info"]) == 2


@pytest.mark.corpus
def test_samples_are_named_as_in_ghost_txt(corpus, capsys):
    """`gbxfs info --samples` tells a ghost's samples under the names of its ghost.txt."""
    from corpusdata import corpus_path
    from gbxfs.tree.root import build_tree
    path = corpus / corpus_path("human_23013.Ghost.Gbx")
    txt = build_tree(str(path)).children()["ghost.txt"]
    tree = dict(line.split(" = ", 1) for line in txt.read(0, txt.size()).decode().splitlines())
    assert main(["info", "--json", "--samples", str(path)]) == EXIT_OK
    ghost, = json.loads(capsys.readouterr().out)[0]["ghosts"]
    shown = {k: str(v) for k, v in ghost.items() if k != "node"}
    assert shown == {k: tree[k] for k in ("sample_encoding", "samples", "first_sample_ms", "last_sample_ms")}
