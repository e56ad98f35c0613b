"""Chunk declarations against the corpus: every declaration a corpus file uses is
proven there, `unverified` is on exactly the declarations no corpus file uses,
`gbxfs coverage --chunks` reports the declared chunk ids (gbxfs.formats.gbx.proof), and
the README's coverage sections are today's figures (tools/readme_coverage.py).

A failure lists each offending declaration as `file:line chunkid` plus one example
file and reason, so that a declaration author can fix the flag or the layout."""
from __future__ import annotations

import importlib.util
import io
import struct
from contextlib import redirect_stdout
from types import SimpleNamespace

import pytest
from corpusdata import ROOT, parsed_gbx
from gbxfs.formats.gbx.writer import node_body

from gbxfs.cli import coverage
from gbxfs.formats.gbx.decl import Registry, registry
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.proof import ChunkProofs, DeclState

DECLS = Registry.from_texts([("t.chunks", """
01002000
    uint32 a
01002001 skippable
    uint32 b
01002002 skippable
    uint32 c
    uint32 d
01002003 unverified
    read chunk 01002004
01002004
    uint32 e
""")])


def u32(*vs: int) -> bytes:
    return struct.pack(f"<{len(vs)}I", *vs)


def proofs_of(*bodies: bytes) -> ChunkProofs:
    p = ChunkProofs(DECLS)
    for i, body in enumerate(bodies):
        res = walk_body(body, class_id=0x01002000, num_nodes=1, decls=DECLS)
        p.add(SimpleNamespace(header=SimpleNamespace(chunks=[]), body=res), f"f{i}")
    return p.finish()


def state(p: ChunkProofs, cid: int) -> DeclState:
    return p.states[(cid, False)]


def test_exact_skippable_and_completed_node_prove_their_chunks():
    p = proofs_of(node_body([(0x01002000, u32(1), False), (0x01002001, u32(2), True)]))
    assert state(p, 0x01002000).proven == ["f0"] and state(p, 0x01002001).proven == ["f0"]
    assert state(p, 0x01002002).met == []


def test_inexact_skippable_and_unterminated_node_prove_nothing():
    # 01002002 declares 8 bytes but its chunk holds 4; 01002FFF is unknown and not skippable
    p = proofs_of(node_body([(0x01002000, u32(1), False), (0x01002002, u32(2), True), (0x01002FFF, b"", False)]))
    a, c = state(p, 0x01002000), state(p, 0x01002002)
    assert a.met == ["f0"] and a.proven == [] and "end marker" in a.failed[0][1]
    assert c.met == ["f0"] and c.proven == [] and "need 4 bytes, 0 left" in c.failed[0][1]
    problems = p.problems()
    assert a in problems["met but never proven"] and c in problems["met but never proven"]


def test_read_chunk_target_is_proven_with_its_caller_and_flag_mismatches_are_found():
    p = proofs_of(node_body([(0x01002003, u32(7), False)]))
    assert state(p, 0x01002004).proven == ["f0"] and state(p, 0x01002004).via == "01002003"
    problems = p.problems()
    assert state(p, 0x01002003) in problems["marked unverified but proven (drop the flag)"]
    assert state(p, 0x01002001) in problems["not marked unverified but met by no file"]


# ---- the shipped declarations against the corpus ----------------------------------------------
def _shared_parse(rel: str, data: bytes):
    cached, g = parsed_gbx(rel)       # the parse the other corpus tests share
    assert cached == data, rel
    return g


@pytest.fixture(scope="module")
def corpus_scan(corpus) -> tuple[list, ChunkProofs]:
    p = ChunkProofs()
    entries = coverage.scan(corpus, p, parse=_shared_parse)
    return entries, p.finish()


@pytest.fixture(scope="module")
def corpus_proofs(corpus_scan) -> ChunkProofs:
    return corpus_scan[1]


def _report(states: list[DeclState], what: str) -> str:
    lines = [f"{len(states)} declarations {what}:"]
    for st in sorted(states, key=lambda st: (st.decl.file, st.decl.line)):
        d = st.decl
        ex = ""
        if st.failed:
            f, why = st.failed[0]
            ex = f"  e.g. {f}: {why}"
        lines.append(f"  gbxfs/formats/gbx/{d.file}:{d.line} {d.chunk_id:08X}{' header' if d.header else ''}{ex}")
    return "\n".join(lines)


@pytest.mark.corpus
def test_every_declaration_met_in_the_corpus_is_proven_there(corpus_proofs):
    bad = corpus_proofs.problems()["met but never proven"]
    if bad:
        pytest.fail(_report(bad, "met in the corpus but proven by no file (fix the layout)"), pytrace=False)


@pytest.mark.corpus
def test_no_unverified_declaration_is_proven_by_the_corpus(corpus_proofs):
    bad = corpus_proofs.problems()["marked unverified but proven (drop the flag)"]
    if bad:
        pytest.fail(_report(bad, "marked unverified but proven by a corpus file (drop `unverified`)"), pytrace=False)


@pytest.mark.corpus
def test_every_declaration_no_corpus_file_meets_is_marked_unverified(corpus_proofs):
    bad = corpus_proofs.problems()["not marked unverified but met by no file"]
    if bad:
        pytest.fail(_report(bad, "met by no corpus file and not marked `unverified` (add the flag)"), pytrace=False)


def test_coverage_chunks_reports_the_declared_chunk_ids(tmp_path):
    (tmp_path / "not-a-gbx.txt").write_text("hello")
    out = io.StringIO()
    with redirect_stdout(out):
        assert coverage.main(["--chunks", str(tmp_path)]) == 0
    ids = {cid for cid, _ in registry().chunks}
    unverified = sum(d.unverified for d in registry().chunks.values())
    last = out.getvalue().splitlines()[-1]
    assert last == (f"declared chunk ids: {len(ids)}; declarations: {len(registry().chunks)}; proven: 0; "
                    f"unverified: {unverified}")


@pytest.mark.corpus
def test_readme_coverage_sections_are_the_corpus_figures(corpus_scan):
    """The README's generated sections (files, failures, chunk table) are what
    `gbxfs coverage` prints for the corpus today."""
    readme_tool = _load_tool("readme_coverage")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, body in readme_tool.sections(*corpus_scan).items():
        assert readme_tool.current(text, name) == body, \
            f"README section {name!r} is stale: run tools/readme_coverage.py"


def _load_tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
