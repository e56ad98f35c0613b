"""`gbxfs info` on GP2 tracks agrees with FORMAT.md §12 (via the GP2 oracle) and
rejects F1GP tracks with the bad-input exit code."""
from __future__ import annotations

import json

import pytest

from corpusdata import CORPUS
from gbxfs.cli import EXIT_BAD_INPUT, EXIT_OK, main
from gp2_oracle import gp1_rows, gp2_rows, number_and_extra, track_oracle

GP2 = [r["path"] for r in gp2_rows()]
GP1 = [r["path"] for r in gp1_rows()]


def _info(capsys, *paths):
    code = main(["info", "--json", *paths])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.usefixtures("corpus")
def test_info_on_every_gp2_track_matches_the_track_folder(capsys):
    expected = track_oracle()  # FORMAT.md §12, an independent source
    assert GP2, "the corpus has GP2 tracks"
    code, out = _info(capsys, *(str(CORPUS / p) for p in GP2))
    assert code == EXIT_OK
    checked = 0
    for s in out:
        exp = expected[s["path"].rsplit("/", 1)[-1]]
        checked += 1
        assert s["file_type"] == "gp2"
        assert s["checksum"] == exp["checksum"]
        assert s["sectors"] == number_and_extra(exp["sectors (+cmd-only)"])[0]
        assert s["length_m"] == exp["metres"]
        assert s["laps"] == int(exp["laps"])
        assert s["objects"] == int(exp["objects"])
        assert s["cameras"] == int(exp["cameras"])
        assert s["jam_files"] == number_and_extra(exp["jams (count field)"])[0]
    assert checked == len(GP2) == len(expected)


@pytest.mark.usefixtures("corpus")
def test_info_rejects_f1gp_tracks(capsys):
    assert GP1
    code, out = _info(capsys, *(str(CORPUS / p) for p in GP1))
    assert code == EXIT_BAD_INPUT
    assert len(out) == len(GP1) and all(s.get("error") and s.get("file_type") != "gp2" for s in out)
