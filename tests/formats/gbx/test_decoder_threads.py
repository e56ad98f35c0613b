"""Decoders written by threads at the same time (decl/codegen.py, compile.py and
itemcost.py take no lock): a fresh registry, whose every decoder is still to be
written, walks corpus bodies from 8 threads at once, by both paths (the generated
functions and the closures a pull source runs), and gives what one thread gives."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from corpusdata import manifest_rows, parsed_gbx
from pullsource import Pull
from walksummary import summary

from gbxfs.formats.gbx import walk_body
from gbxfs.formats.gbx.decl.registry import Registry, declaration_texts, linked

ROWS = [r["path"] for r in manifest_rows()
        if r["kind"] in ("map", "replay", "ghost", "item", "other") and int(r["size"]) <= 100_000][:80]


def _walks(decls: Registry, bodies: list[tuple[bytes, dict]], threads: int) -> list:
    def walk(job):
        body, args, pull = job
        source = Pull(body) if pull else body
        return summary(walk_body(source, decls=decls, **({"size": len(body)} if pull else {}), **args))
    jobs = [(b, a, pull) for b, a in bodies for pull in (False, True)]
    if threads == 1:
        return [walk(j) for j in jobs]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(walk, jobs))


@pytest.mark.corpus
def test_decoders_written_by_many_threads_at_once_decode_as_one_thread(corpus):
    bodies = []
    for path in ROWS:
        _, g = parsed_gbx(path)
        h = g.header
        if g.body_bytes and not h.text:
            bodies.append((g.body_bytes, dict(class_id=h.raw_class_id, num_nodes=h.num_nodes,
                                              externals=h.refs.by_node_index() if h.refs else None)))
    assert len(bodies) > 40
    parts = linked(declaration_texts())
    alone = _walks(Registry.from_linked(parts), bodies, 1)
    for _ in range(2):      # fresh registries: every first use races again
        assert _walks(Registry.from_linked(parts), bodies, 8) == alone
