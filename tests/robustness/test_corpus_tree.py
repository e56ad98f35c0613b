"""The whole tree over every corpus file at once (GBX, GP2, F1GP, chunk
dumps, the synthetic pak): every folder lists, every file reads back its
exact size, nothing is unreadable (these are real, good files), and the
original bytes come back unchanged through original.gbx / original.dat /
the pak entries."""
from __future__ import annotations

import csv
import hashlib
import shutil

import pytest
from corpusdata import CORPUS, manifest_rows
from robust_walk import deadline, walk_tree

from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree

pytestmark = [pytest.mark.corpus, pytest.mark.long]


def flat_name(path: str) -> str:
    # one folder for all: keep the file name (and its suffix, which picks the opener) last
    return path.replace("/", "__")


@pytest.fixture(scope="module")
def corpus_walk(corpus, tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus-tree")
    rows = manifest_rows()
    for r in rows:
        shutil.copyfile(CORPUS / r["path"], folder / flat_name(r["path"]))
    shutil.copytree(CORPUS / "synthetic-pak" / "Packs", folder / "Packs")
    root = build_tree(str(folder), TreeContext())

    def keep(path: str) -> bool:
        last = path.rsplit("/", 1)[-1]
        return last in ("original.gbx", "original.dat") or path.count("/") == 1 or "/Packs/" in path

    with deadline(1200):   # about 2 min on an idle machine: a hang guard with a wide margin
        report = walk_tree(root, keep=keep)
    return rows, report


def test_every_entry_lists_and_reads(corpus_walk):
    rows, report = corpus_walk
    report.assert_no_bugs("corpus tree")
    assert not report.unreadable, report.unreadable[:10]
    # every GBX became a folder with several parts: far more files than corpus files
    assert report.files > 10 * len(rows)


def test_original_bytes_survive_the_tree(corpus_walk):
    rows, report = corpus_walk
    checked = 0
    for r in rows:
        name = "/" + flat_name(r["path"])
        candidates = [name + "/original.gbx", name + "/original.dat", name]
        data = next((report.contents[c] for c in candidates if c in report.contents), None)
        assert data is not None, f"{r['path']}: neither a folder with its original nor a plain file"
        assert hashlib.sha256(data).hexdigest() == r["sha256"], r["path"]
        checked += 1
    assert checked == len(rows)


def test_gbx_and_gp2_become_folders_others_stay_files(corpus_walk):
    rows, report = corpus_walk
    for r in rows:
        name = "/" + flat_name(r["path"])
        folder = r["path"].lower().endswith(".gbx") or (
            r["kind"] == "gp2" and "(GP1)" not in r["format"])
        original = name + ("/original.gbx" if r["path"].lower().endswith(".gbx") else "/original.dat")
        assert (original in report.contents) == folder, r["path"]
        assert (name in report.contents) == (not folder), r["path"]


def test_synthetic_pak_entries_through_the_tree(corpus_walk):
    _, report = corpus_walk
    with open(CORPUS / "synthetic-pak" / "expected.tsv", newline="") as f:
        expected = list(csv.DictReader(f, delimiter="\t"))
    assert expected
    for row in expected:
        path = f"/Packs/{row['pak']}/{row['path']}"
        if row["kind"] == "gbx":
            path += "/original.gbx"
        assert path in report.contents, path
        data = report.contents[path]
        assert len(data) == int(row["size"]), path
        assert hashlib.sha256(data).hexdigest() == row["sha256"], path
