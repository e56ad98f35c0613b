"""packlist.dat: keys, names, signature (gbxfs.formats.pak.packlist)."""
from __future__ import annotations

import hashlib

import pytest

from gbxfs.formats.pak import packlist
from gbxfs.formats.pak.errors import PakError


def test_sample_packlist(corpus):
    pl = packlist.parse((corpus / "synthetic-pak/Packs/packlist.dat").read_bytes())
    assert pl.version == 1 and pl.signature_ok
    assert [e.name for e in pl.entries] == ["Sample"]
    e = pl.entries[0]
    assert len(e.key_string) == 32 and e.key_string.isalnum()
    assert e.key == hashlib.md5(e.key_string + b"NadeoPak").digest()


def test_build_parse_roundtrip_and_case_insensitive_lookup():
    ks1, ks2 = b"0123456789ABCDEF0123456789ABCDEF", b"FEDCBA9876543210FEDCBA9876543210"
    data = packlist.build([("Stadium", ks1), ("Island", ks2)], salt=4000000000)
    pl = packlist.parse(data)
    assert pl.signature_ok and pl.salt == 4000000000
    assert pl.find("stadium.PAK").key_string == ks1
    assert pl.find("ISLAND").key == hashlib.md5(ks2 + b"NadeoPak").digest()
    assert pl.find("Bay") is None


def test_names_and_keys_are_masked_on_disk():
    ks = b"0123456789ABCDEF0123456789ABCDEF"
    data = packlist.build([("Stadium", ks)], salt=7)
    assert b"Stadium" not in data and ks not in data


def test_bad_signature_is_reported_not_refused():
    data = bytearray(packlist.build([("Stadium", b"A" * 32)], salt=1))
    data[-1] ^= 1
    pl = packlist.parse(bytes(data))
    assert not pl.signature_ok
    assert pl.find("stadium").key_string == b"A" * 32


def test_salt_changes_the_masks():
    a = packlist.build([("Stadium", b"A" * 32)], salt=1)
    b = packlist.build([("Stadium", b"A" * 32)], salt=2)
    assert a[10:] != b[10:]
    assert packlist.parse(b).find("stadium").key_string == b"A" * 32


@pytest.mark.parametrize("cut", [0, 5, 20, 40])
def test_truncated_packlist_is_a_clear_error(cut):
    data = packlist.build([("Stadium", b"A" * 32), ("Bay", b"B" * 32)], salt=1)
    with pytest.raises(PakError):
        packlist.parse(data[:cut])


def test_count_larger_than_data_is_an_error():
    data = bytearray(packlist.build([("Stadium", b"A" * 32)], salt=1))
    data[1] = 200
    with pytest.raises(PakError, match="truncated"):
        packlist.parse(bytes(data))


def test_extra_bytes_before_signature_are_an_error():
    data = packlist.build([("Stadium", b"A" * 32)], salt=1)
    with pytest.raises(PakError, match="unexpected"):
        packlist.parse(data[:-16] + b"xx" + data[-16:])
