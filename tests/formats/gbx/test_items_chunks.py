"""Collector and item declarations: the raw chunk dumps of the corpus (kind "chunk",
bytes of one chunk cut out of real files) must be read exactly to their end; header
chunks against the body chunks that repeat them; a decoration file complete."""
from __future__ import annotations

import functools

import pytest
from corpusdata import CORPUS, manifest_rows, parsed_gbx

from gbxfs.formats.gbx.decl import registry
from gbxfs.formats.gbx.nodes import decode_bytes

pytestmark = pytest.mark.corpus

# (path suffix in the corpus, chunk id, header chunk?) for dumps that start a lookback
# state of their own (others, like 2E00100B, continue the state of the chunks before them)
DUMPS = [
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E001003.dat", 0x2E001003, True),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E001004.dat", 0x2E001004, True),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E001006H.dat", 0x2E001006, True),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E001009.dat", 0x2E001009, False),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E00100C.dat", 0x2E00100C, False),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E00100D.dat", 0x2E00100D, False),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E00100E.dat", 0x2E00100E, False),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E001010.dat", 0x2E001010, False),
    ("CGameCtnCollector.2019.11.19.1850/CGameCtnCollector+Chunk2E001011.dat", 0x2E001011, False),
    ("CGameCtnCollector.2022.7.6.1137/CGameCtnCollector+Chunk2E001004.dat", 0x2E001004, True),
    ("CGameCtnCollector.2022.7.6.1137/CGameCtnCollector+Chunk2E00100D.dat", 0x2E00100D, False),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E002000.dat", 0x2E002000, True),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E002008.dat", 0x2E002008, False),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E002009.dat", 0x2E002009, False),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E002012.dat", 0x2E002012, False),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E00201E.dat", 0x2E00201E, False),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E00201F.dat", 0x2E00201F, False),
    ("CGameItemModel.2019.11.19.1850/CGameItemModel+Chunk2E002023.dat", 0x2E002023, False),
    ("CGameItemModel.2022.7.6.1137/CGameItemModel+Chunk2E00201E.dat", 0x2E00201E, False),
    ("CGameItemModel.2022.7.6.1137/CGameItemModel+Chunk2E00201F.dat", 0x2E00201F, False),
    ("IslandConverter/0x03043043.dat", 0x03043043, False),
]


def dump_path(suffix: str):
    rows = [r for r in manifest_rows() if r["kind"] == "chunk" and r["path"].endswith(suffix)]
    assert len(rows) == 1, suffix
    return CORPUS / rows[0]["path"]


@pytest.mark.parametrize("suffix, chunk_id, header", DUMPS, ids=[d[0].rsplit("/", 1)[1] for d in DUMPS])
def test_raw_chunk_dump_is_read_to_its_end(corpus, suffix, chunk_id, header):
    decl = registry().get(chunk_id, header=header)
    assert decl is not None and decl.header == header
    decode_bytes(decl, dump_path(suffix).read_bytes())    # GbxError unless every byte is read


def test_webp_icon_matches_the_separate_webp_dump(corpus):
    icon = decode_bytes(registry().get(0x2E001004, header=True),
                        dump_path("2022.7.6.1137/CGameCtnCollector+Chunk2E001004.dat").read_bytes())
    webp = dump_path("CGameCtnCollector+Chunk2E001004.IconWebP.dat").read_bytes()
    assert (int16 := icon["iconWidth"] - 0x10000) < 0 and int16 == icon["iconHeight"] - 0x10000
    assert icon["iconData"] == webp and webp[8:12] == b"WEBP"


def test_rgba_icon_size_matches_its_dimensions(corpus):
    icon = decode_bytes(registry().get(0x2E001004, header=True),
                        dump_path("2019.11.19.1850/CGameCtnCollector+Chunk2E001004.dat").read_bytes())
    assert (icon["iconWidth"], icon["iconHeight"]) == (64, 64) and len(icon["iconData"]) == 64 * 64 * 4


@functools.lru_cache(maxsize=None)
def collectors() -> tuple:
    out = []
    for row in manifest_rows():
        if row["kind"] in ("item", "other"):
            g = parsed_gbx(row["path"])[1]
            desc = next((c for c in g.header.chunks if c.chunk_id == 0x2E001003), None)
            if desc is not None:
                out.append((row, g, desc))
    return tuple(out)


def test_collector_header_chunks_decode(corpus):
    assert len(collectors()) >= 10
    for row, g, _ in collectors():
        for c in g.header.chunks:
            if c.chunk_id >> 12 in (0x2E001, 0x2E002, 0x03038, 0x090F4):
                assert c.error is None and c.values is not None, (row["path"], f"{c.chunk_id:08X}", c.error)


def test_collector_body_repeats_the_header_desc(corpus):
    """2E001003 (header) against 2E00100B (ident), 2E001009 (page) and 2E00100C (name)."""
    checked = 0
    for row, g, desc in collectors():
        d, main = desc.values, g.body.main
        ident, page, name = (main.chunk(cid) for cid in (0x2E00100B, 0x2E001009, 0x2E00100C))
        if ident is not None:
            assert (ident.values["name"], ident.values["collection"], ident.values["author"]) == \
                (d["name"], d["collection"], d["author"]), row["path"]
            checked += 1
        if page is not None:
            assert page.values["pagePath"] == d["pageName"], row["path"]
        if name is not None and "collectorName" in d:
            assert name.values["name"] == d["collectorName"], row["path"]
    assert checked >= 8


def test_decoration_file_is_complete(corpus):
    rows = [r for r in manifest_rows() if r["path"].endswith(".TMDecoration.Gbx")]
    assert rows
    for row in rows:
        g = parsed_gbx(row["path"])[1]
        assert g.body.status == "complete", g.body.error
