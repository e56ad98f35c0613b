"""A source changed on disk after the tree saw it: never old sizes with new
bytes, never mixed bytes. Reads of a changed file answer EIO; a lookup
re-checks the file and gives a new entry (dropping what was derived)."""
from __future__ import annotations

import csv
import errno
import io
import os
import shutil

import pytest

from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree
from gbxfs.tree.source import FileSource
from gbxfs.tree.walk import resolve


def test_a_file_rewritten_in_place_while_open_answers_eio(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"a" * 100)
    src = FileSource(str(p))
    assert src.read_at(0, 10) == b"a" * 10          # the descriptor stays open
    st = os.stat(p)
    with open(p, "r+b") as f:                       # same inode, same size, new bytes
        f.write(b"b" * 100)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with pytest.raises(OSError) as e:
        src.read_at(0, 10)
    assert e.value.errno == errno.EIO
    src.close()


def test_a_pak_changed_under_a_read_answers_eio(tmp_path):
    write_packs(tmp_path, {"X": [PakFile("A/raw.bin", b"r" * 4000, compress=False)]})
    tree = build_tree(str(tmp_path / "X.pak"), TreeContext(gbx_mode="file"))
    f = resolve(tree, "A/raw.bin")
    assert f.read(0, 100) == b"r" * 100
    pak = tmp_path / "X.pak"
    data = bytearray(pak.read_bytes())
    data[-5] ^= 0xFF                                # rewritten in place
    with open(pak, "r+b") as out:
        out.write(data)
    st = os.stat(pak)
    os.utime(pak, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with pytest.raises(OSError) as e:
        f.read(0, 100)
    assert e.value.errno == errno.EIO


def test_a_lookup_sees_an_appended_file_with_its_new_size(tmp_path):
    (tmp_path / "log.txt").write_bytes(b"one\n")
    tree = build_tree(str(tmp_path), TreeContext())
    old = tree.child("log.txt")
    assert old.size() == 4
    with open(tmp_path / "log.txt", "ab") as f:     # the folder's mtime does not change
        f.write(b"two\n")
    new = tree.child("log.txt")
    assert new is not old and new.size() == 8 and new.read(0, 8) == b"one\ntwo\n"
    os.unlink(tmp_path / "log.txt")
    assert tree.child("log.txt") is None


def test_a_file_shown_as_a_folder_rewritten_in_place_gets_a_new_entry(tmp_path):
    # cp over a pak keeps its inode and the folder's mtime: the lookup must still see it
    write_packs(tmp_path, {"X": [PakFile("A/raw.bin", b"old", compress=False)]})
    tree = build_tree(str(tmp_path), TreeContext())
    old = tree.child("X.pak")
    assert old.is_dir and resolve(old, "A/raw.bin").read(0, 10) == b"old"
    ino = os.stat(tmp_path / "X.pak").st_ino
    newer = tmp_path / "new"
    newer.mkdir()
    write_packs(newer, {"X": [PakFile("A/raw.bin", b"new bytes", compress=False)]})
    with open(tmp_path / "X.pak", "r+b") as f:        # in place, as cp does
        f.truncate(0)
        f.write((newer / "X.pak").read_bytes())
    assert os.stat(tmp_path / "X.pak").st_ino == ino
    new = tree.child("X.pak")
    assert new is not old and resolve(new, "A/raw.bin").read(0, 20) == b"new bytes"
    assert tree.child("X.pak") is new                  # unchanged since: the same entry


def test_a_rewrite_that_puts_size_and_mtime_back_is_still_seen(tmp_path):
    p = tmp_path / "X.pak"
    write_packs(tmp_path, {"X": [PakFile("A/raw.bin", b"one", compress=False)]})
    tree = build_tree(str(tmp_path), TreeContext())
    old = tree.child("X.pak")
    f = resolve(old, "A/raw.bin")
    assert f.read(0, 3) == b"one"
    other = tmp_path / "o"
    other.mkdir()
    write_packs(other, {"X": [PakFile("A/raw.bin", b"two", compress=False)]})
    data = (other / "X.pak").read_bytes()
    st = os.stat(p)
    assert len(data) == st.st_size
    with open(p, "r+b") as out:
        out.write(data)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))     # the old mtime: only the ctime tells
    with pytest.raises(OSError) as e:
        f.read(0, 3)
    assert e.value.errno == errno.EIO
    new = tree.child("X.pak")
    assert new is not old and resolve(new, "A/raw.bin").read(0, 3) == b"two"


def test_a_changed_map_looked_up_keeps_the_listing_and_renews_its_index_row(corpus, tmp_path):
    # the lookups after a change that touches many files at once (hard links whose
    # ctime moved) replace one entry each: the same listing, its names in the same
    # order, and maps.csv made again with the new file's row
    tracks = sorted((corpus / "adrien-obrecht+GbxParser/Benchmark/Tracks").iterdir())[:3]
    for p in tracks:
        shutil.copy(p, tmp_path / p.name)
    tree = build_tree(str(tmp_path), TreeContext())
    kids = tree.children()
    names = list(kids)
    first, second = tracks[0].name, tracks[1].name
    old, old_index = kids[first], kids["maps.csv"]
    before = old_index.read(0, old_index.size()).decode()
    assert f"\n{first}," in before
    shutil.copy(tmp_path / second, tmp_path / first)     # in place: the folder's mtime is kept
    new = tree.child(first)
    assert new is not old and tree.children() is kids and list(kids) == names
    index = kids["maps.csv"]
    assert index is not old_index and tree.child(second) is kids[second]
    after = dict(csv_rows(index))
    assert after[first] == {**dict(csv_rows(index))[second], "file": first}
    assert after[first] != dict(csv_rows(old_index))[first]


def csv_rows(entry):
    for row in csv.DictReader(io.StringIO(entry.read(0, entry.size()).decode())):
        yield row["file"], row
