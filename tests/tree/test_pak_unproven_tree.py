"""What the tree says of entries no checksum can prove (formats/pak/verification.py):
the GBX folder's info.txt and the user.pak.verification xattr say
`none: stored, no checksum in the format` (never verified), .pak-info.txt and
pack-info.txt count them, a damaged stored entry is served as it decrypts
under that label, and verified_only turns every such entry into EIO."""
from __future__ import annotations

import errno

import pytest
from robust_stored import SAMPLE, clips, sample_pak, stored_pack
from robust_walk import walk_folder

from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.verification import ADLER32, NONE_LZ4, NONE_STORED
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak.info import PROOF_XATTR
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve

pytestmark = pytest.mark.corpus
CLIPS = "Sample.pak/Sample/Media/Clips"


def _text(f) -> str:
    return f.read(0, f.size()).decode()


def _tree(mode: str = "folder", **kw):
    return build_tree(str(SAMPLE), TreeContext(gbx_mode=mode, **kw))


def test_stored_gbx_folder_says_none_compressed_says_adler(corpus):
    root = _tree()
    stored, packed = resolve(root, f"{CLIPS}/Clip5.Clip.Gbx"), resolve(root, f"{CLIPS}/Clip4.Clip.Gbx")
    assert f"verification = {NONE_STORED}" in _text(stored.child("info.txt")).splitlines()
    assert f"verification = {ADLER32}" in _text(packed.child("info.txt")).splitlines()
    assert stored.xattrs[PROOF_XATTR] == NONE_STORED.encode()
    assert packed.xattrs[PROOF_XATTR] == ADLER32.encode()
    info = _text(resolve(root, "Sample.pak/.pak-info.txt")).splitlines()
    assert f"verification.stored = {NONE_STORED} (1 files)" in info
    assert f"verification.compressed = {ADLER32} when read (10 files)" in info


def test_plain_files_carry_the_label(corpus):
    root = _tree("file")
    stored, tex = resolve(root, f"{CLIPS}/Clip5.Clip.Gbx"), resolve(root, "Sample.pak/Sample/Media/Textures/Tex0.dds")
    assert stored.xattrs[PROOF_XATTR] == NONE_STORED.encode()      # known from the table alone
    assert PROOF_XATTR not in tex.xattrs                           # not read yet: nothing proven
    tex.read(0, tex.size())
    assert tex.xattrs[PROOF_XATTR] == ADLER32.encode()


@pytest.mark.parametrize("mode", ["folder", "file"])
def test_verified_only_refuses_stored_entries_only(corpus, mode):
    root = _tree(mode, verified_only=True)
    clip5 = resolve(root, f"{CLIPS}/Clip5.Clip.Gbx")
    original = clip5.child("original.gbx") if mode == "folder" else clip5
    with pytest.raises(OSError) as e:
        original.read(0, original.size())
    assert e.value.errno == errno.EIO
    assert original.error and "verified_only" in original.error     # FUSE answers EIO from then on
    packed = resolve(root, f"{CLIPS}/Clip4.Clip.Gbx")
    packed = packed.child("original.gbx") if mode == "folder" else packed
    assert packed.read(0, packed.size()) == clips()[4]


def test_damaged_stored_entry_is_served_labelled_none_or_refused(corpus):
    """A flip inside the stored entry's body that its parse still accepts (the
    first such bit, found with the formats layer): the bytes served differ,
    and say so; verified_only refuses them."""
    pak = (SAMPLE / "Sample.pak").read_bytes()
    files = {"packlist.dat": (SAMPLE / "packlist.dat").read_bytes()}
    _, _, key = sample_pak()
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), key)
    entry = arc.entry(arc.files[5])
    for bit in range((entry.start + 64) * 8, (entry.start + entry.length) * 8):
        bad = bytearray(pak)
        bad[bit // 8] ^= 1 << (bit % 8)
        e = PakArchive(lambda o, n: bad[o:o + n], len(bad), key).entry(arc.files[5])
        try:
            if e.read(0, e.size) != clips()[5]:
                break
        except PakError:
            continue
    files["Sample.pak"] = bytes(bad)
    seen = {}

    def inspect(root, report):
        f = resolve(root, f"{CLIPS}/Clip5.Clip.Gbx")
        seen["label"] = f.xattrs.get(PROOF_XATTR)
        seen["data"] = report.contents.get(f"/{CLIPS}/Clip5.Clip.Gbx")
    for verified_only in (False, True):
        report, _ = walk_folder(files, keep=lambda p: True, inspect=inspect,
                                ctx=TreeContext(gbx_mode="file", verified_only=verified_only), trace=False)
        assert not report.bugs
        if verified_only:
            assert seen["data"] is None and any("Clip5" in p for p, _ in report.unreadable)
        else:
            assert seen["data"] is not None and seen["data"] != clips()[5]
            assert seen["label"] == NONE_STORED.encode()


@pytest.mark.parametrize("version", [8, 13, 18])
def test_pack_info_counts_unprovable_files(corpus, version):
    a = stored_pack(version)
    files = a.files()
    texts = {}

    def inspect(root, report):
        texts["info"] = _text(resolve(root, f"{a.name}/pack-info.txt"))
        texts["stored"] = resolve(root, f"{a.name}/Data/Raw/stored.bin").xattrs.get(PROOF_XATTR)
    walk_folder(files, inspect=inspect, trace=False)
    lines = texts["info"].splitlines()
    assert f"verification.stored = {NONE_STORED} (3 files)" in lines
    packed = NONE_LZ4 if version >= 18 else f"{ADLER32} when read"
    assert f"verification.compressed = {packed} (2 files)" in lines
    assert texts["stored"] == NONE_STORED.encode()
