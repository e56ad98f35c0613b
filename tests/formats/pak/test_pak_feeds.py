"""Embedded GBX feeds, checked against the offset-level reference models of
pak_testkit (not against the reader itself): where each ivXor fold lands,
and that the writer's ciphertext is exactly Nadeo CBC with those folds."""
from __future__ import annotations

import zlib

import pytest
from pak_testkit import (CLIP, TRACK, GbxBuilder, random_body, calc_ivxor_seed, feed_bytes, leaf_track,
                         model_folds_compressed, model_folds_stored, make_test_decls, reference_encrypt)

from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.cipher import align8
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import PakFile, build_pak

KS = b"00112233445566778899AABBCCDDEEFF"
KEY = derive_key(KS)
DECLS = make_test_decls()


def _pak(gbx: bytes, compress: bool, **kw):
    f = PakFile("Test/Media/Thing.Clip.Gbx", gbx, compress=compress, **kw)
    data = build_pak([f], KS, decls=DECLS)
    arc = PakArchive(lambda o, n: data[o:o + n], len(data), KEY, decls=DECLS)
    return data, arc, arc.entry(arc.files[0])


def check(g: GbxBuilder, compress: bool) -> tuple[dict, object]:
    """Write + read one entry; assert bytes, feed count, fold positions and
    ciphertext against the models. Returns (model folds, entry)."""
    gbx = g.bytes()
    data, arc, e = _pak(gbx, compress)
    assert e.check() is None, e.error
    assert e.kind == "gbx"
    assert e.read(0, e.size) == gbx
    assert e.gbx.node_feeds == g.node_feeds
    assert e.gbx.chunk_feeds == len(g.feeds) - g.node_feeds
    stored = zlib.compress(gbx, 9) if compress else gbx
    if compress:
        folds, _ = model_folds_compressed(stored, g.feeds)
    else:
        folds = model_folds_stored(len(gbx), g.feeds)
    assert dict(e.gbx.folds) == folds
    start = arc.header.data_offset + e.rec.offset
    iv = data[start:start + 8]
    assert data[start + 8:start + 8 + align8(len(stored))] == reference_encrypt(KEY, iv, stored, folds)
    return folds, e


def one_child_at(class_id_end: int) -> GbxBuilder:
    g = GbxBuilder()
    g.chunk(0x03079F01).pad_until(class_id_end, after=4 + 8).u32(1)
    leaf_track(g, 1)
    assert g.feeds[-1][0] == class_id_end
    return g.pad(0x200).end()   # the tail keeps the entry going past 0x300


@pytest.mark.parametrize("end", [0x1FF, 0x200, 0x201])
def test_stored_feed_lands_on_first_block_of_next_fetched_page(end):
    folds, _ = check(one_child_at(end), compress=False)
    main = calc_ivxor_seed(0, feed_bytes(CLIP))
    child = calc_ivxor_seed(0, feed_bytes(TRACK))
    # the main node feeds at body start (page 0 already fetched): lands on page 1
    # a class id ending exactly at 0x200 feeds before page 2 is fetched: lands at 0x200
    where = 0x200 if end <= 0x200 else 0x300
    assert folds == {0x100: main, where: child}


def test_several_feeds_folded_into_one_page():
    g = GbxBuilder()
    g.chunk(0x03079F01).pad_until(0x108).u32(4)
    for i in range(1, 4):
        leaf_track(g, i)
    g.new_node(4, TRACK).chunk(0x03078F02).pad(3).chunk_feed(0xDEADBEEF).end()
    g.pad_until(0x400, after=4).end()
    fed = [f for f in g.feeds if 0x100 < f[0] <= 0x200]
    assert len(fed) == 5      # 4 node feeds + 1 in-chunk feed, all inside page 1
    folds, e = check(g, compress=False)
    acc = 0
    for _, b in fed:
        acc = calc_ivxor_seed(acc, b)
    assert folds[0x200] == acc
    assert e.gbx.chunk_feeds == 1 and e.gbx.node_feeds == 5


def test_back_reference_and_null_reference_do_not_feed():
    g = GbxBuilder()
    g.chunk(0x03079F01).pad(40).u32(5)
    leaf_track(g, 1, pad=300)
    g.back_ref(1)
    g.null_ref()
    g.new_node(2, TRACK).chunk(0x03078F01).pad(200).u32(3).back_ref(1).null_ref().back_ref(2).end()
    g.back_ref(2)
    g.u32(0).end()
    assert len(g.feeds) == 3   # main, node 1, node 2
    for compress in (False, True):
        _, e = check(g, compress)
        assert e.gbx.node_feeds == 3 and e.gbx.parse_status == "complete"


def _spread_body(pads: list[int]) -> GbxBuilder:
    g = GbxBuilder(header_pad=100)
    g.chunk(0x03079F01).pad(3000).u32(len(pads))
    for i, p in enumerate(pads, 1):
        leaf_track(g, i, pad=p)
    return g.u32(0).end()


def test_compressed_feed_in_a_refill_that_reads_no_new_page():
    g = _spread_body([500, 900, 1500, 700, 2500, 300, 4000, 650, 800, 5000])
    stored = zlib.compress(g.bytes(), 9)
    folds, log = model_folds_compressed(stored, g.feeds)
    # the scenario really occurs: a feed pending at a refill that needs no page
    assert any(pending and fetched == 0 for _, fetched, pending in log)
    got, _ = check(g, compress=True)
    assert got == folds and folds


def _random_body(seed: int, children: int) -> GbxBuilder:
    return random_body(seed, children)


def test_compressed_feeds_on_page_starts_and_folded():
    folds, _ = check(_random_body(5, 12), compress=True)
    assert len(folds) >= 4


def test_no_dummy_write_flag_disables_feeds():
    g = one_child_at(0x200)
    gbx = g.bytes()
    data, arc, e = _pak(gbx, False, feeds=False)
    assert e.rec.flags & 0x100000000 and e.kind == "raw"
    assert e.read(0, e.size) == gbx
    start = arc.header.data_offset + e.rec.offset
    assert data[start + 8:start + 8 + align8(len(gbx))] == reference_encrypt(KEY, data[start:start + 8], gbx, {})


def test_stored_gbx_with_unknown_chunk_is_unverifiable_but_header_browsable():
    g = one_child_at(0x200)
    data, _, _ = _pak(g.bytes(), False)
    from gbxfs.formats.gbx.decl import Registry
    from pak_testkit import TEST_DECLS_TEXT
    partial = Registry.from_texts([("t.chunks", TEST_DECLS_TEXT.split("03078F01")[0])])
    arc = PakArchive(lambda o, n: data[o:o + n], len(data), KEY, decls=partial)
    e = arc.entry(arc.files[0])
    assert e.check() is not None and "03078F01" in e.error
    with pytest.raises(PakError, match="03078F01"):
        e.read(0, 10)
    assert arc.metadata().headers[0] == g.bytes()[:g.body_offset - 4]


def _partial_archive(data):
    from gbxfs.formats.gbx.decl import Registry
    from pak_testkit import TEST_DECLS_TEXT
    partial = Registry.from_texts([("t.chunks", TEST_DECLS_TEXT.split("03078F01")[0])])
    return PakArchive(lambda o, n: data[o:o + n], len(data), KEY, decls=partial)


def test_compressed_gbx_whose_parse_stops_is_recovered_by_feed_search():
    """The parse stops at the first child's unknown chunk; the search finds the
    later feeds and zlib's Adler-32 proves them (recover.py)."""
    g = _random_body(6, 8)
    data, _, _ = _pak(g.bytes(), True)
    arc = _partial_archive(data)
    e = arc.entry(arc.files[0])
    assert e.check() is None, e.error
    assert e.gbx.recovered and e.proof == "recovered (Adler-32 verified)"
    assert e.gbx.parse_status != "complete"
    assert e.read(0, e.size) == g.bytes()
    assert b"".join(e.pieces()) == g.bytes()


def test_compressed_gbx_whose_feeds_cannot_be_found_fails_adler():
    """Without the feed search (as for packs) the same entry fails zlib's check."""
    g = _random_body(6, 8)
    data, _, _ = _pak(g.bytes(), True)
    arc = _partial_archive(data)
    e = arc.entry(arc.files[0])
    e.feed_search = False
    err = e.check()
    assert err is not None and ("zlib" in err or "inflate" in err), err
    assert e.proof is None
