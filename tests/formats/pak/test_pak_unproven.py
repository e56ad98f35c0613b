"""Entries no checksum can prove, under single-bit flips (formats/pak/verification.py).

A stored GBX entry's parse finds its feeds, but a damaged float or string
parses as well, and a flip in its first block makes it no GBX at all (then
it is read as a stored raw file). So the scan below holds each entry to what
it can honestly claim:
- stored (and version 18 LZ4) entries: served as they decrypt, wrong or not,
  but always labelled `none: ... no checksum in the format`, never verified;
  with verified_only they are refused (PakError, EIO in the tree);
- compressed (zlib) entries: damaged, they answer PakError (zlib or its
  Adler-32 fails) or, when the flip changed nothing zlib reads (the unused
  bits of its last byte), exactly the bytes written.
The flips are every bit of each entry's first 8 bytes (the first cipher
block, where the GBX magic sits) plus a seeded sample of the rest.
"""
from __future__ import annotations

import random

import pytest
from robust_stored import PACK_VERSIONS, clips, sample_pak, stored_pack, stored_pak

from gbxfs.tree.pak.archive import PakArchive
from gbxfs.tree.pak.archive6 import PackArchive
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.verification import NONE_LZ4, NONE_STORED

pytestmark = pytest.mark.corpus
SAMPLED = 64       # seeded flips per entry after its first block


def _flips(start: int, length: int, seed: str) -> list[int]:
    """Bit positions (byte * 8 + bit) inside [start, start + length)."""
    head = list(range(start * 8, (start + min(8, length)) * 8))
    rest = range((start + 8) * 8, (start + length) * 8)
    rng = random.Random(seed)
    return head + (rng.sample(rest, min(SAMPLED, len(rest))) if len(rest) else [])


def _scan(make_archive, data: bytes, index: int, want: bytes, seed: str) -> dict[str, int]:
    """Flip each chosen bit of entry `index` and read it back whole; the
    counts of each outcome. Fails on wrong bytes not labelled unprovable."""
    arc = make_archive(data)
    rec = arc.files[index]
    e = arc.entry(rec)
    start, length = e.start, e.length
    unproven = e.unproven
    out = {"error": 0, "same": 0, "wrong": 0}
    for bit in _flips(start, length, seed):
        bad = bytearray(data)
        bad[bit // 8] ^= 1 << (bit % 8)
        arc = make_archive(bytes(bad))
        e = arc.entry(arc.files[index])
        try:
            got = e.read(0, rec.size)
        except PakError:
            out["error"] += 1
            assert e.proof is None
            continue
        if got == want:
            out["same"] += 1
        else:
            out["wrong"] += 1
            assert unproven is not None, f"{rec.name}: flip {bit} served wrong bytes under {e.proof!r}"
        assert e.proof == unproven or unproven is None and e.proof.startswith(("verified", "recovered"))
        assert not (unproven and e.proof.startswith("verified")), e.proof
        # the same damaged entry, for a reader that wants proven bytes only: refused
        strict = make_archive(bytes(bad), verified_only=True).entry(arc.files[index])
        if unproven is not None:
            with pytest.raises(PakError, match="verified_only"):
                strict.read(0, rec.size)
    return out


def _pak(key):
    return lambda data, **kw: PakArchive(lambda o, n: data[o:o + n], len(data), key, **kw)


def _pack(key):
    return lambda data, **kw: PackArchive(lambda o, n: data[o:o + n], len(data), key, **kw)


def test_sample_pak_stored_gbx_entry_is_never_called_verified(corpus):
    pak, _, key = sample_pak()
    arc = _pak(key)(pak)
    index = next(i for i in range(len(arc.files)) if not arc.files[i].compressed)
    assert arc.files[index].name == "Clip5.Clip.Gbx"
    out = _scan(_pak(key), pak, index, clips()[5], "sample")
    # today's damage, named: bytes served wrong (labelled none), first-block flips among them
    assert out["wrong"] > 30 and out["wrong"] + out["error"] + out["same"] == len(_flips(0, 712, "sample"))


def test_written_pak_every_entry(corpus):
    a = stored_pak()
    arc = _pak(a.key)(a.data)
    for i in range(len(arc.files)):
        rec = arc.files[i]
        want = a.entries["/".join(rec.parts)]
        out = _scan(_pak(a.key), a.data, i, want, f"fuzz:{rec.name}")
        if rec.compressed:
            assert out["wrong"] == 0 and out["error"] > 0.9 * sum(out.values()), (rec.name, out)
        else:
            assert out["wrong"] > 0, (rec.name, out)


@pytest.mark.parametrize("version", PACK_VERSIONS)
def test_pack_every_entry(corpus, version):
    a = stored_pack(version)
    arc = _pack(a.key)(a.data)
    for i in range(len(arc.files)):
        rec = arc.files[i]
        want = a.entries["/".join(rec.parts)]
        out = _scan(_pack(a.key), a.data, i, want, f"v{version}:{rec.name}")
        e = arc.entry(rec)
        if rec.compressed and version < 18:
            assert e.unproven is None
            assert out["wrong"] == 0 and out["error"] > 0.9 * sum(out.values()), (rec.name, out)
        else:
            assert e.unproven == (NONE_LZ4 if rec.compressed else NONE_STORED)
