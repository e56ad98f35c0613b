"""The GP2 track folder: recognition by content, laziness, names and exact sizes."""
from __future__ import annotations

import hashlib
import struct

import pytest

from corpusdata import CORPUS, manifest_rows
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gp2view import open_gp2, probe
from gbxfs.tree.source import BytesSource, FileSource

GP2 = [r for r in manifest_rows() if r["format"].startswith("GP2 track file")]
GP1 = [r for r in manifest_rows() if r["format"].startswith("F1GP")]
ids = lambda rows: [r["path"].rsplit("/", 1)[1] for r in rows]  # noqa: E731

# the names of docs/formats/mount.md, plus this view's extras (internal objects, the various-data
# block, and the raw sections folder)
SPEC_NAMES = {"original.dat", "info.txt", "objects.csv", "track.csv", "track_commands.csv",
              "ccline.csv", "car_setup.txt", "pitlane.csv", "pitlane_commands.csv",
              "cameras.csv", "jam_files.txt"}
EXTRA_NAMES = {"internal_objects.csv", "various.txt", "sections"}


class CountingSource:
    """A ByteSource that records how many bytes were read."""

    def __init__(self, inner):
        self.inner, self.size, self.mtime_ns = inner, inner.size, inner.mtime_ns
        self.bytes_read = 0

    def read_at(self, offset: int, size: int) -> bytes:
        out = self.inner.read_at(offset, size)
        self.bytes_read += len(out)
        return out


def _name(row):
    return row["path"].rsplit("/", 1)[1]


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_gp2_track_is_a_folder(corpus, row):
    assert probe(_name(row), FileSource(str(CORPUS / row["path"])))


@pytest.mark.parametrize("row", GP1, ids=ids(GP1))
def test_f1gp_track_stays_a_file_after_one_small_read(corpus, row):
    src = CountingSource(FileSource(str(CORPUS / row["path"])))
    assert not probe(_name(row), src)
    assert src.bytes_read <= 32


def test_other_files_are_not_gp2(corpus):
    packlist = CORPUS / "synthetic-pak" / "Packs" / "packlist.dat"
    assert not probe("packlist.dat", FileSource(str(packlist)))
    gp2 = (CORPUS / GP2[0]["path"]).read_bytes()
    assert not probe("F1CT07.gbx", BytesSource(gp2))   # GP2 tracks are .dat files
    assert probe("F1CT07.dat", BytesSource(gp2))


def test_structurally_broken_track_stays_a_file(corpus):
    data = bytearray((CORPUS / GP2[0]["path"]).read_bytes())
    track_at = struct.unpack_from("<I", data, 0x1010)[0] + 0x1020
    struct.pack_into("<H", data, track_at + 18, 7)   # the kerb kind word: only 3 or 4 exist
    assert not probe("F1CT07.DAT", BytesSource(bytes(data)))


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_folder_listing_and_sizes(corpus, row):
    src = CountingSource(FileSource(str(CORPUS / row["path"])))
    folder = open_gp2(_name(row), src, TreeContext())
    assert src.bytes_read == 0 and folder.children(wait=False) is None   # nothing decoded before listing
    kids = folder.children()
    assert set(kids) == SPEC_NAMES | EXTRA_NAMES
    original = kids["original.dat"]
    assert original.size() == int(row["size"])
    assert hashlib.sha256(original.read(0, original.size())).hexdigest() == row["sha256"]
    for name, entry in kids.items():
        if entry.is_dir:
            continue
        size = entry.size()
        assert size > 0 and len(entry.read(0, size + 100)) == size, name
        assert entry.read(size, 10) == b"", name
    body = kids["info.txt"].read(0, 1 << 20).decode()
    assert "checksum = ok" in body.splitlines()


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_sections_rebuild_original(corpus, row):
    kids = open_gp2(_name(row), FileSource(str(CORPUS / row["path"])), TreeContext()).children()
    sections = kids["sections"].children()
    names = sorted(sections)
    assert names == list(sections)   # listed in file order
    joined = b"".join(sections[n].read(0, sections[n].size()) for n in names)
    assert hashlib.sha256(joined).hexdigest() == row["sha256"]


def test_tree_shows_gp2_as_folders_and_f1gp_as_files(corpus):
    """Through the root tree and the opener registry, as a mount would."""
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve

    root = build_tree(str(CORPUS))
    for row in GP2:
        entry = resolve(root, row["path"])
        assert entry.is_dir, row["path"]
        info = resolve(root, row["path"] + "/info.txt")
        assert b"format = GP2 track" in info.read(0, 4096)
    for row in GP1:
        entry = resolve(root, row["path"])
        assert not entry.is_dir and entry.size() == int(row["size"]), row["path"]
