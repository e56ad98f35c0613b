"""Hostile input: mutated headers and bodies give GbxError (or parse), never another
exception, a hang or a huge allocation. Bounded example counts keep this fast."""
from __future__ import annotations

import pytest
from corpusdata import CORPUS, manifest_rows
from gbxfs.formats.gbx.writer import build_gbx, node_body
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbxfs.formats import gbx
from gbxfs.formats.gbx.errors import GbxError

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)


def _small_corpus_files(limit: int = 8, max_size: int = 40_000) -> list[bytes]:
    rows = [r for r in manifest_rows() if r["kind"] in {"map", "replay", "ghost", "item", "other"}
            and int(r["size"]) <= max_size]
    return [(CORPUS / r["path"]).read_bytes() for r in rows[:limit]]


BUILT = [
    build_gbx(version=v, header_chunks=[(0x03043004, b"\x06\0\0\0", False)] if v == 6 else None, num_nodes=3,
              externals=[{"flags": 0, "file": "a.dds", "node": 1, "folder": 1}], folders=[("F", [("G", [])])],
              class_id=0x01001000, body_comp="C" if v == 6 else "U",
              body=node_body([(0x01001000, b"\x01\0\0\0\x01\0\0\0x", False)]))
    for v in (3, 4, 5, 6)
]


def mutate(data: bytes, edits: list[tuple[int, int]], cut: int | None) -> bytes:
    b = bytearray(data)
    for pos, val in edits:
        b[pos % len(b)] = val
    return bytes(b[:cut] if cut is not None else b)


def _check(data: bytes, original: bytes) -> None:
    """A damaged file parses to a status with an error that explains it, or raises
    GbxError; an edit that changed nothing parses as the original does."""
    try:
        g = gbx.parse(data)
    except GbxError:
        assert data != original
        return
    if data == original:
        assert g.body.status == gbx.parse(original).body.status
    assert g.body.status in ("complete", "partial", "failed", "absent")
    if g.body.status in ("partial", "failed"):
        assert isinstance(g.body.error, GbxError)
    else:
        assert g.body.error is None


edits = st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1, max_size=6)


def test_built_files_parse_completely():
    for data in BUILT:
        assert gbx.parse(data).body.status == "complete"


@SETTINGS
@given(which=st.integers(0, len(BUILT) - 1), edits=edits, cut=st.none() | st.integers(0, 400))
def test_mutated_built_files(which, edits, cut):
    _check(mutate(BUILT[which], edits, cut), BUILT[which])


@pytest.mark.corpus
def test_mutated_corpus_headers(corpus):
    files = _small_corpus_files()
    assert files

    @SETTINGS
    @given(which=st.integers(0, len(files) - 1), pos=st.integers(0, 400), val=st.integers(0, 255),
           cut=st.none() | st.integers(0, 2000))
    def run(which, pos, val, cut):
        data = files[which]
        # mutations aimed at the header and ref table, where sizes and counts live
        _check(mutate(data, [(min(pos, len(data) - 1), val)], cut), data)
    run()


def test_garbage_and_empty():
    for data in (b"", b"GBX", b"GBX\x06\x00BUCR", bytes(100), b"GBX" + bytes(200), b"\xff" * 64):
        with pytest.raises(GbxError):
            gbx.parse(data)


DECL_WORDS = ["01002000", "uint32", "float", "if", "elif", "else:", "for each", "x", "n", "in", "as", "list",
              "[", "]", "(", ")", ":", "==", "&&", "!", "0x10", "read chunk 01002000", "encapsulated:",
              "struct S", "S", "continue", "let", "=", "assert", "feed", '"m"', "\n", "\n    ", "\n        ",
              "byte", "meta", "noderef", "while", "inflate", "sized", "size", "#", "1", "-", "*"]


@SETTINGS
@given(st.lists(st.sampled_from(DECL_WORDS), max_size=40))
def test_declaration_parser_only_reports_declaration_errors(words):
    from gbxfs.formats.gbx.decl import Registry
    from gbxfs.formats.gbx.nodes import NodeWalker
    from gbxfs.formats.gbx.reader import GbxReader

    reg = Registry.from_texts([("f.chunks", " ".join(words))])     # never raises
    for decl in reg.chunks.values():                                 # and what loads, runs safely
        try:
            decl.decode(GbxReader(bytes(range(64)), walker=NodeWalker(reg)))
        except GbxError:
            pass
