"""embedded/items/: a ZIP inside a GBX shown opened, safe against hostile ZIPs."""
from __future__ import annotations

import errno
import io
import zipfile

import pytest

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.gbx.zipdir import MAX_MEMBER, zip_folder
from gbxfs.tree.model import SourceFile
from gbxfs.tree.walk import resolve


def make_zip(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name), data)
    return buf.getvalue()


def folder(data: bytes, opened=None):
    opened = [] if opened is None else opened

    def open_member(name, src):
        opened.append(name)
        return SourceFile(name, src)
    return zip_folder("items", data, lambda: data, open_member, ByteLRU(1 << 24), "k")


def read(f) -> bytes:
    return f.read(0, f.size())


def listing(d, prefix=""):
    out = {}
    for n, e in d.children().items():
        out.update(listing(e, prefix + n + "/") if e.is_dir else {prefix + n: read(e)})
    return out


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_hostile_names_stay_inside_and_nothing_is_lost():
    # error.txt is the folder's own name for what was not shown: a member named so takes error.txt~2
    data = make_zip([("../../etc/passwd", b"1"), ("/abs/x", b"2"), ("a\\b\\c.txt", b"3"),
                     ("dup.txt", b"4"), ("dup.txt", b"5"), ("f", b"6"), ("f/inside", b"7"),
                     ("./././g", b"8"), ("error.txt", b"9")])
    got = listing(folder(data))
    assert got == {"etc/passwd": b"1", "abs/x": b"2", "a/b/c.txt": b"3", "dup.txt": b"4", "dup.txt~2": b"5",
                   "f": b"6", "f~2/inside": b"7", "g": b"8", "error.txt~2": b"9"}


def test_gbx_members_are_opened_and_sizes_are_exact():
    opened = []
    d = folder(make_zip([("Items/A.Item.Gbx", b"GBX..."), ("Items/readme", b"hello")]), opened)
    assert opened == ["A.Item.Gbx"]
    f = resolve(d, "Items/readme")
    assert f.size() == 5 and read(f) == b"hello"


def test_huge_members_are_refused_and_said_so():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("small.txt", b"ok")
        z.writestr("bomb.bin", b"\0" * (MAX_MEMBER + 1))      # compresses to a few KiB
    kids = folder(buf.getvalue()).children()
    assert set(kids) == {"small.txt", "error.txt"}
    assert b"bomb.bin" in read(kids["error.txt"]) and b"not shown" in read(kids["error.txt"])


def test_a_member_past_half_the_cache_is_refused_and_said_so():
    """It could not be kept: every read would decompress it whole again (a 64 MiB
    member came at 105 kB/s with a 32 MiB cache), and four read at once took the
    daemon to 189 MB."""
    data = make_zip([("small.txt", b"ok"), ("big.bin", b"\0" * (9 << 20))])
    kids = zip_folder("items", data, lambda: data, SourceFile, ByteLRU(16 << 20), "k").children()
    assert set(kids) == {"small.txt", "error.txt"}
    assert b"big.bin: 9437184 bytes, over the limit of 8388608 per member" in read(kids["error.txt"])
    kids = zip_folder("items", data, lambda: data, SourceFile, ByteLRU(32 << 20), "k").children()
    assert set(kids) == {"small.txt", "big.bin"} and kids["big.bin"].size() == 9 << 20


def test_a_corrupt_member_answers_eio_not_wrong_bytes():
    data = bytearray(make_zip([("x.txt", b"A" * 1000)]))
    pos = data.index(b"x.txt") + len("x.txt")         # the first member's compressed data
    data[pos + 2] ^= 0xFF
    d = folder(bytes(data))
    f = d.children()["x.txt"]
    assert f.size() == 1000
    with pytest.raises(OSError) as e:
        read(f)
    assert e.value.errno == errno.EIO


def test_not_a_zip_is_an_error_file():
    kids = folder(b"PK\x03\x04garbage").children()
    assert set(kids) == {"error.txt"}


def test_corpus_items_folder_matches_the_zip(corpus):
    from gbxfs.tree.root import build_tree
    m = corpus / "boukestam+gbx-viewer/public/data/Simple TECH 1.Map.Gbx"
    emb = resolve(build_tree(str(m)), "embedded").children()
    z = zipfile.ZipFile(io.BytesIO(read(emb["items.zip"])))
    files = [i for i in z.infolist() if not i.is_dir()]
    assert files
    for info in files:
        entry = resolve(emb["items"], info.filename.replace("\\", "/"))
        assert entry.is_dir and "info.txt" in entry.children()     # a GBX folder
        assert read(entry.children()["original.gbx"]) == z.read(info)
