"""Both ways gbxfs decodes chunk declarations give the same outcome on the same bytes,
damaged bytes included: the generated functions over bytes in memory (gbx.parse, the
tree) and the reference closures over a pull source (a pak entry, parsed while it
decrypts: gbxfs/formats/pak/gbxentry.py). On good bytes test_codegen_equivalence.py
shows it; here the chunks are cut short and written over, and both paths must give the
same nodes, chunks, values and hook calls, and the same error (class, message, offset,
chunk, declaration line). A truncated chunk is an error on both, never a short value
taken as good.

Cases are seeded (one fixed list): per chunk id that corpus files up to MAX_SIZE hold,
its first occurrence (smallest file first) is cut inside its data, cut around its
id/marker/size (where the walker rather than a declaration meets the end), and has a
u32 inside it overwritten by a value declarations test (bools, counts, lookback
indexes, end marker, "PIKS"). The files are dealt out to SHARDS tests: the list is
made when the first of them runs, not at collection.
"""
from __future__ import annotations

import functools
import random

import pytest
from corpus_feeds import in_pak_form
from corpusdata import manifest_rows, parsed_gbx
from pullsource import Pull
from walksummary import summary

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import parse_header
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.pak.gbxentry import run_gbx_pass

pytestmark = pytest.mark.corpus

SEED = 20261124
# every case walks up to its damage, twice, the pull path being the slower: files and
# bodies up to 100 kB (as test_codegen_equivalence.py) keep this to seconds; the chunk
# ids only larger files hold are left out
MAX_SIZE = 100_000
SHARDS = 8
WORDS = (0, 1, 2, 3, 0xFFFFFFFF, 0x40000000, 0x40000001, 0x80000000, 0x7FFFFFFF, 0x10000,
         0xFACADE01, int.from_bytes(b"PIKS", "little"))


@functools.lru_cache(maxsize=None)
def _cases() -> dict[str, list[tuple]]:
    """{corpus path: [case, ...]} with cases ("cut", at) and ("u32", at, value), body offsets."""
    rng = random.Random(SEED)
    seen: set[int] = set()
    out: dict[str, list[tuple]] = {}
    rows = sorted((r for r in manifest_rows() if r["kind"] in ("map", "replay", "ghost", "item", "other")
                   and int(r["size"]) <= MAX_SIZE), key=lambda r: (int(r["size"]), r["path"]))
    for row in rows:
        try:
            _, g = parsed_gbx(row["path"])
        except GbxError:
            continue
        if g.header.text or not g.body_bytes or len(g.body_bytes) > MAX_SIZE:
            continue
        cases = []
        for n in g.body.nodes:
            for c in n.chunks:
                if c.chunk_id in seen:
                    continue
                seen.add(c.chunk_id)
                cases.append(("cut", c.offset + rng.randrange(c.size + 1)))
                cases.append(("cut", max(0, c.offset - rng.randrange(1, 13))))
                if c.size >= 4:
                    cases.append(("u32", c.offset + 4 * rng.randrange(c.size // 4), rng.choice(WORDS)))
        if cases:
            out[row["path"]] = cases
    return out


def _damaged(body: bytes, case: tuple) -> bytes:
    if case[0] == "cut":
        return body[:case[1]]
    at, value = case[1], case[2]
    return body[:at] + value.to_bytes(4, "little") + body[at + 4:]


def _feeds():
    """on_node and feed hooks logging what a pak parse would feed ivXor (a class
    without a feed id feeds nothing), and the log."""
    log: list[bytes] = []

    def on_node(class_id: int) -> None:
        fid = classdb.feed_id(class_id)
        if fid is not None:
            log.append(fid.to_bytes(4, "little"))

    return on_node, log.append, log


def _walk(source, size: int, kw: dict) -> tuple[list, list[bytes]]:
    on_node, feed, log = _feeds()
    result = walk_body(source, size=size, on_node=on_node, feed=feed, **kw)
    return summary(result), log


def _shard(i: int) -> list[str]:
    paths = list(_cases())[i::SHARDS]
    assert paths         # the corpus fixture ran: its files hold cases
    return paths


@pytest.mark.parametrize("shard", range(SHARDS))
def test_damaged_bodies_decode_alike(corpus, shard):
    for path in _shard(shard):
        _, g = parsed_gbx(path)
        h = g.header
        kw = dict(class_id=h.raw_class_id, num_nodes=h.num_nodes,
                  externals=h.refs.by_node_index() if h.refs else None)
        for case in _cases()[path]:
            body = _damaged(g.body_bytes, case)
            memory = _walk(body, len(body), kw)
            pulled = _walk(Pull(body), len(body), kw)
            assert memory == pulled, (path, case)


class _PlainStream:
    """What run_gbx_pass pulls pages from, without a cipher: feeds change nothing."""

    def __init__(self, data: bytes):
        self.data, self.at, self.folds = data, 0, {}

    def fetch(self, n: int) -> bytes:
        self.at += n
        return self.data[self.at - n:self.at]

    def feed(self, data: bytes) -> None:
        pass


def _in_memory(data: bytes) -> tuple[str, str | None, list[bytes]]:
    """gbx.parse's way: status, error text, feeds."""
    on_node, feed, fed = _feeds()
    try:
        h = parse_header(data)
    except GbxError as e:
        return "failed", str(e), fed
    result = walk_body(data[h.body_offset:], class_id=h.raw_class_id, num_nodes=h.num_nodes,
                       externals=h.refs.by_node_index() if h.refs else None, on_node=on_node, feed=feed)
    return result.status, None if result.error is None else str(result.error), fed


@pytest.mark.parametrize("shard", range(SHARDS))
def test_pak_pass_agrees_with_memory(corpus, shard):
    """The pak layer's own pass (header and body from its page source, hooks fed) stops
    where, and as, the in-memory parse of the same stored bytes does, with the same
    feeds; a source that ends before the size it announced gives an error, never a
    complete walk."""
    for path in _shard(shard):
        data, g = parsed_gbx(path)
        plain = in_pak_form(data, g)
        start = len(plain) - len(g.body_bytes)
        cases = [("header cut", random.Random(f"{SEED} {path}").randrange(start))] + _cases()[path][:3]
        for case in cases:
            whole = plain[:case[1]] if case[0] == "header cut" else plain[:start] + _damaged(g.body_bytes, case)
            status, error, fed = _in_memory(whole)
            res = run_gbx_pass(_PlainStream(whole), len(whole), False)
            assert (res.parse_status, res.parse_error) == (status, error), (path, case)
            assert [b for _, b in res.feed_log] == fed, (path, case)
            if len(whole) < len(plain):
                dry = run_gbx_pass(_PlainStream(whole), len(plain), False)
                assert not dry.verified and dry.parse_status != "complete", (path, case)
