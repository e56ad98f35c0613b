"""ManiaPlanet/TM2020 packs (versions 6-18): cipher facts, every header and
file flag combination through writer and reader, feeds over every cipher
family, LZ4, keys."""
from __future__ import annotations

import os
import struct

import pytest

from pack6_kit import (FOLDERS, GBX, KEY, RAW, combo_files, expected, feeding_gbx, needs_lz4,
                       ref_decrypt_v12, ref_ecb16)
from pak_testkit import make_test_decls

from gbxfs.formats.pak import keyfile, packgbx
from gbxfs.tree.pak.archive6 import PackArchive
from gbxfs.formats.pak.blowfish8 import Blowfish, _pi_words
from gbxfs.formats.pak.cipher import PakKey, calc_ivxor
from gbxfs.formats.pak.cipher6 import DEFAULT_HEADER_KEY, ChainKey, header_key, pack_key
from gbxfs.formats.pak.entry6 import NO_KEY
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.stream import EncryptedStream
from gbxfs.formats.pak.writer6 import PackFile, build_pack, build_plain_header

DECLS = make_test_decls()


def _pack(version: int, header_flags: int, files=None, **kw) -> bytes:
    needs_lz4(version)
    return build_pack(files if files is not None else combo_files(PackFile), version=version, key=KEY,
                      header_flags=header_flags, folders=FOLDERS, decls=DECLS, **kw)


def _arc(data: bytes, key):
    return PackArchive(lambda o, n: data[o:o + n], len(data), key, decls=DECLS)


# -- cipher facts ------------------------------------------------------------------------------
def test_blowfish_tables_are_pi_and_16_rounds_match_pycryptodome():
    words = _pi_words()
    assert (words[0], words[17], words[18], words[-1]) == (0x243F6A88, 0x8979FB1B, 0xD1310BA6, 0x3AC372E6)
    data = os.urandom(64)
    bf = Blowfish(KEY, 16)
    ref = ref_ecb16(KEY)
    assert b"".join(ref(bf.encrypt(data)[i:i + 8]) for i in range(0, 64, 8)) == data
    assert bf.decrypt(bf.encrypt(data)) == data


def test_short_blowfish_read_routine_is_encryption_with_reversed_p():
    """The fact: version 18 readers run *encryption* with P[0..9] reversed
    after an 8-round key schedule. Our decrypt must equal that routine."""
    bf = Blowfish(KEY, 8)
    p = bf.p[:10][::-1] + bf.p[10:]
    s0, s1, s2, s3 = bf.s

    def f(x):
        return ((((s0[x >> 24] + s1[(x >> 16) & 255]) & 0xFFFFFFFF) ^ s2[(x >> 8) & 255]) + s3[x & 255]) & 0xFFFFFFFF

    def game_read(left, right):
        for i in range(8):
            left ^= p[i]
            right ^= f(left)
            left, right = right, left
        left, right = right, left
        return left ^ p[9], right ^ p[8]

    data = os.urandom(80)
    words = struct.unpack("<20I", data)
    want = b"".join(struct.pack("<II", *game_read(words[i], words[i + 1])) for i in range(0, 20, 2))
    assert bf.decrypt(data) == want
    assert Blowfish(KEY, 16).decrypt(data) != want


@pytest.mark.parametrize("version", [12, 17, 18])
def test_chained_cipher_matches_the_per_block_reference(version):
    key = ChainKey(KEY, version)
    plain = os.urandom(0x400)
    iv = os.urandom(8)
    enc = key.encrypter(iv)
    cipher = enc.encrypt(plain[:0x100])
    enc.feed(b"\x12\x34\x56\x78")                    # folds into the IV at the next page
    cipher += enc.encrypt(plain[0x100:])
    assert enc.folds == {0x100: calc_ivxor(0, b"\x12\x34\x56\x78")}
    ecb = ref_ecb16(KEY) if version < 18 else Blowfish(KEY, 8).decrypt
    assert ref_decrypt_v12(ecb, iv, cipher, enc.folds) == plain
    # the fold changes every later block, not only the first of its page
    unfolded = ref_decrypt_v12(ecb, iv, cipher, {})
    assert unfolded[0x108:] != plain[0x108:]
    dec = key.decrypter(iv)
    out = dec.decrypt(cipher[:0x100])
    dec.feed(b"\x12\x34\x56\x78")
    assert out + dec.decrypt(cipher[0x100:]) == plain


def test_key_rules():
    assert isinstance(pack_key(11, KEY), PakKey) and isinstance(pack_key(12, KEY), ChainKey)
    assert header_key(2, None) == DEFAULT_HEADER_KEY
    assert header_key(1, None) is None and header_key(1, KEY) == KEY
    assert header_key(3, KEY) == bytes(a ^ b for a, b in zip(KEY, DEFAULT_HEADER_KEY))


@pytest.mark.parametrize("version", range(6, 19))
def test_plain_header_round_trip(version):
    head = build_plain_header(version, 2, 0x4000, comment="c", title_id="T")
    h = packgbx.parse(head)
    assert h.header_size == len(head) and h.decrypt_flags == 2
    assert h.header_max_size == (0x4000 if version >= 15 else None)


# -- every flag combination ---------------------------------------------------------------------
@pytest.mark.parametrize("header_flags", [0, 1, 2, 3])
@pytest.mark.parametrize("version", range(6, 19))
def test_every_flag_combination_lists_and_reads_exactly(version, header_flags):
    data = _pack(version, header_flags)
    arc = _arc(data, KEY)
    assert len(arc.files) == 24 and arc.table_error is None
    for rec in arc.files:
        e = arc.entry(rec)
        assert e.size == len(expected(rec))
        assert e.read(0, 1 << 30) == expected(rec), rec.path
        assert e.read(1000, 333) == expected(rec)[1000:1333]
        assert b"".join(e.pieces()) == expected(rec)
    nokey = _arc(data, None)
    if header_flags & 1:          # private header: the table itself needs the key
        assert nokey.table is None and "not public" in nokey.table_error
        return
    assert [r.path for r in nokey.files] == [r.path for r in arc.files]
    for rec in nokey.files:
        e = nokey.entry(rec)
        assert e.size == len(expected(rec))
        if rec.encrypted:
            assert e.error == NO_KEY
            with pytest.raises(PakError):
                e.read(0, 10)
        else:
            assert e.read(0, 1 << 30) == expected(rec)


@pytest.mark.parametrize("version,compress", [(8, False), (8, True), (13, False), (13, True),
                                              (18, False), (18, True)])
def test_feeds_land_for_every_cipher_family(version, compress):
    # 40 children: several 4096-byte LZ4 blocks, so feeds made while parsing one
    # block land on pages fetched for a later one
    gbx = feeding_gbx(2, children=40)
    data = _pack(version, 2, [PackFile("Data/G.Clip.Gbx", gbx, compress=compress)])
    arc = _arc(data, KEY)
    e = arc.entry(arc.files[0])
    assert e.kind == "gbx" and e.read(0, 1 << 20) == gbx
    assert e.gbx.node_feeds == 41 and e.gbx.folds
    # decrypted ignoring the feeds, the entry is different: the feeds were needed
    raw = EncryptedStream(lambda o, n: data[o:o + n], pack_key(version, KEY), e.start, e.length).fetch(e.length)
    assert raw[: e.stored] != e._decrypted()[: e.stored]


def test_no_dummy_write_entry_has_no_feeds():
    data = _pack(18, 0, [PackFile("Data/G.Clip.Gbx", GBX, feeds=False)])
    arc = _arc(data, KEY)
    e = arc.entry(arc.files[0])
    assert e.kind == "raw" and e.read(0, 1 << 20) == GBX and not e._folds


def test_lz4_blocks_link_to_the_preset_dictionary_and_each_other():
    needs_lz4(18)
    from gbxfs.formats.pak.lz4blocks import deflate, inflate, preset_dictionary
    d = preset_dictionary()
    assert len(deflate(d[:600])) < 40                 # found in the preset dictionary
    block = os.urandom(4096)
    assert len(deflate(block + block)) < len(deflate(block)) + 64   # second block copies the first
    assert inflate(deflate(RAW), len(RAW)) == RAW


def test_corrupt_lz4_entry_is_an_error_not_bytes():
    data = bytearray(_pack(18, 0, [PackFile("Data/R.bin", RAW, public=True)]))
    arc = _arc(bytes(data), None)
    e = arc.entry(arc.files[0])
    data[e.start : e.start + 2] = struct.pack("<H", 0xFFFF)   # block length beyond the limit
    bad = _arc(bytes(data), None).entry(arc.files[0])
    with pytest.raises(PakError):
        bad.read(0, 10)
    assert bad.error and "LZ4" in bad.error


def test_private_table_with_a_wrong_key_does_not_decode():
    data = _pack(13, 1)
    with pytest.raises(PakError, match="does not decode"):
        _arc(data, bytes(16))


def test_missing_key_for_writer_is_refused():
    with pytest.raises(ValueError):
        build_pack([PackFile("Data/a.bin", b"x")], version=12)


def test_key_file():
    kf = keyfile.parse(b"# keys\nStadium.Pack.Gbx  " + KEY.hex().encode() + b"\nOther " + b"11" * 16 + b"\n")
    assert kf.find("stadium.pack.gbx").key == KEY and kf.find("Stadium").key == KEY
    assert kf.find("OTHER.Title.Pack.Gbx").key == b"\x11" * 16 and kf.find("x") is None
    for bad in (b"", b"name zz", b"name " + b"11" * 15, b"\xff\xfe"):
        with pytest.raises(PakError):
            keyfile.parse(bad)


def test_info_summary_without_keys():
    from gbxfs.cli.info_pak import summary
    s = summary("X.Pack.Gbx", _pack(18, 2))
    assert s["table.storage"] == "default key (public)" and s["files"] == 24
    assert (s["files.public"], s["files.need_key"]) == (16, 8) and "error" not in s
    s = summary("X.Pack.Gbx", _pack(12, 1))
    assert s["table.storage"] == "private key" and "not public" in s["table_error"] and "files" not in s


def test_class_extension_table_is_generated_and_checked():
    import subprocess
    import sys as _sys
    from corpusdata import ROOT
    from gbxfs.formats.gbx import classdb
    assert classdb.class_extension(0x03043000) == ("gbx", "Challenge.Gbx")
    assert classdb.class_extension(0x24003000, new=True) == ("gbx", "Map.Gbx")      # old id, remapped
    assert classdb.class_extension(0x09011000) == ("gbx", "Texture.Gbx")
    assert classdb.class_extension(0x09024000) == ("raw", "dds")
    assert classdb.class_extension(0x7FFFF000) is None
    gen = ROOT / "tools" / "gen_classdb.py"
    shared = ROOT.parent / "shared" / "classdb"
    if not shared.is_dir():
        pytest.skip("../shared/classdb is needed to regenerate the tables")
    res = subprocess.run([_sys.executable, str(gen), "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_class_extension_source_rejects_unknown_classes(tmp_path):
    import importlib.util
    from corpusdata import ROOT
    spec = importlib.util.spec_from_file_location("gen_classdb", ROOT / "tools" / "gen_classdb.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    bad = tmp_path / "ext.tsv"
    bad.write_text("class_name\tkind\text\text_new\nCPlugBitmapp\tgbx\tTexture.Gbx\t\n")
    with pytest.raises(ValueError, match="unknown class"):
        gen._extensions(bad, [{"class_id": "09011000", "name": "CPlugBitmap"}])


@pytest.mark.parametrize("version", (13, 18))
def test_static_error_is_what_a_new_entry_finds(version):
    """The tree asks PackArchive.static_error of a listing's files instead of
    making their entries: it must say what the entry would, for every flag
    combination, with and without the key, in a whole and in a cut pack."""
    files = combo_files(PackFile) + [PackFile("Data/empty.bin", b"", compress=True, public=True)]
    data = _pack(version, 2, files)
    cut = data[:len(data) - len(RAW) // 2]     # the last entries' data runs past the end
    seen = set()
    for pack, key in ((data, KEY), (data, None), (cut, KEY), (cut, None)):
        arc = _arc(pack, key)
        for rec in arc.files:
            want = arc.entry(rec).error
            assert arc.static_error(rec.size, rec.stored_size, rec.offset, rec.flags) == want, rec.name
            seen.add(want.split(":")[0] if want else None)
    assert {None, "pack truncated", NO_KEY.split(":")[0]} <= seen
