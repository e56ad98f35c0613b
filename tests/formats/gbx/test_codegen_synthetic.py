"""The generated decoders (decl/codegen.py, bytes in memory) and the reference closures
(decl/compile.py, which a pull source runs) give the same outcome without the corpus:
every body chunk declaration walked over seeded synthetic chunk data, both ways. The
corpus twins of this test (test_codegen_equivalence.py, test_decoder_agreement.py)
walk real files; these bytes reach the branches real files rarely take, and run
wherever the corpus is not."""
from __future__ import annotations

import random
import struct

import pytest
from pullsource import Pull
from walksummary import summary

from gbxfs.formats.gbx import walk_body
from gbxfs.formats.gbx.decl import registry

END = 0xFACADE01
SHARDS = 4
CASES = 6           # synthetic chunk bodies per declaration


def _word(rng: random.Random) -> bytes:
    """A u32 that declarations test: small counts and versions, bools, lookback and node
    index forms, markers, floats, or anything."""
    pick = rng.random()
    if pick < 0.45:
        value = rng.choice((0, 0, 1, 1, 2, 3, 4, 5, 6, 8, 10, 16))
    elif pick < 0.55:
        value = rng.choice((0x40000000, 0x40000001, 0x80000000, 0xFFFFFFFF, END, 0x534B4950, 0x01001000))
    elif pick < 0.7:
        return struct.pack("<f", rng.choice((0.0, 1.0, -1.0, 0.5, 3.25)))
    elif pick < 0.8:
        n = rng.randrange(6)           # a short string: its length, then its text
        return struct.pack("<I", n) + bytes(rng.choice(b"abcXYZ019_") for _ in range(n))
    else:
        value = rng.getrandbits(32)
    return struct.pack("<I", value)


def _payload(rng: random.Random) -> bytes:
    data = b"".join(_word(rng) for _ in range(rng.choice((0, 1, 2, 4, 8, 16, 40))))
    return data[:rng.randrange(len(data) + 1)] if rng.random() < 0.2 else data    # cut inside a field


def _body(chunk_id: int, skippable: bool, payload: bytes) -> bytes:
    head = struct.pack("<I", chunk_id)
    if skippable:
        head += b"PIKS" + struct.pack("<I", len(payload))
    return head + payload + struct.pack("<I", END)


def _walk(source, size: int, class_id: int) -> list:
    return summary(walk_body(source, size=size, class_id=class_id, num_nodes=8))


def _decls() -> list:
    return sorted((d for (cid, header), d in registry().chunks.items() if not header),
                  key=lambda d: d.chunk_id)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_generated_decoders_match_closures_on_synthetic_chunks(shard):
    decls = _decls()[shard::SHARDS]
    assert decls
    complete = 0
    for d in decls:
        rng = random.Random(d.chunk_id)
        class_id = d.chunk_id & 0xFFFFF000
        for _ in range(CASES):
            body = _body(d.chunk_id, d.skippable, _payload(rng))
            memory = _walk(body, len(body), class_id)
            pulled = _walk(Pull(body), len(body), class_id)
            assert memory == pulled, (hex(d.chunk_id), body.hex())
            complete += memory[0] == "complete"
    # not only first-field errors: some synthetic chunks decode whole
    assert complete >= len(decls) // 4, complete
