"""The hidden-class test set of the feed search (gbxfs/formats/pak/recover.py),
shared by tests/formats/pak/test_pak_recover.py and benchmarks/pak_recover.py.

Every binary corpus GBX whose body the shipped declarations walk completely (no
skippable chunk skipped undecoded: the writer must know every node read) is
stored with an uncompressed body (as the game's paks hold them: the pak's zlib
compresses it, and every node read feeds the cipher), then, for every class of
its nodes that has chunk declarations, written into a pak by our writer (which
knows every class) and read back with a registry lacking that class's chunks.
Per class, the `per_class` smallest such files are used.
"""
from __future__ import annotations

from dataclasses import dataclass

from corpusdata import CORPUS, manifest_rows, parsed_gbx

from gbxfs.formats.gbx.decl import Registry, registry
from gbxfs.formats.gbx.decl.ast import Feed
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import PakFile, build_pak

KS = b"0F1E2D3C4B5A69788796A5B4C3D2E1F0"
KEY = derive_key(KS)
MASK = 0xFFFFF000


@dataclass
class Case:
    path: str
    data: bytes          # the GBX, body uncompressed
    hidden: int          # the class whose chunks the reader does not know
    # a chunk that feeds the cipher from its own data (a `feed` statement: 0900F004,
    # 090EB000) lies past the first chunk of the hidden class: the byte scan cannot
    # predict that feed (README: such entries stay EIO)
    chunk_feed_after: bool = False


def _has_feed(node) -> bool:
    if isinstance(node, Feed):
        return True
    if isinstance(node, (list, tuple)):
        return any(_has_feed(x) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return any(_has_feed(getattr(node, f)) for f in node.__dataclass_fields__)
    return False


def feeding_chunks() -> set[int]:
    """The chunk ids whose declaration feeds the cipher from the chunk's data."""
    return {cid for (cid, _), d in registry().chunks.items() if _has_feed(d.definition)}


def _chunk_feed_after(nodes, hidden: int, feeding: set[int]) -> bool:
    first = min((c.offset for n in nodes if n.class_id & MASK == hidden for c in n.chunks), default=None)
    return first is not None and any(c.chunk_id in feeding and c.offset > first for n in nodes for c in n.chunks)


def uncompressed_body(data: bytes, g) -> tuple[bytes, set[int]] | None:
    """`data` (parsed: `g`) with its body stored uncompressed, and its node classes
    (None: not a binary GBX whose body the declarations walk whole)."""
    h = g.header
    if h.format != "B" or g.body.status != "complete":
        return None
    if any(c.skippable and c.values is None for n in g.body.nodes for c in n.chunks):
        return None     # a chunk the writer skips: its node reads would not feed (the game's would)
    head = bytearray(data[:h.body_offset])
    at = head.index(h.format_bytes.encode())
    head[at + 2] = ord("U")
    return bytes(head) + g.body_bytes, {n.class_id for n in g.body.nodes}


def cases(per_class: int = 2) -> list[Case]:
    declared = {cid & MASK for cid, _ in registry().chunks}
    files = []
    for row in manifest_rows():
        if row["kind"] == "gp2":
            continue
        if (CORPUS / row["path"]).read_bytes()[:3] != b"GBX":
            continue
        try:
            data, g = parsed_gbx(row["path"])     # the parse the other corpus tests share
        except GbxError:
            continue
        got = uncompressed_body(data, g)
        if got is not None:
            files.append((row["path"], *got, g.body.nodes))
    files.sort(key=lambda f: (len(f[1]), f[0]))
    out, per = [], {}
    feeding = feeding_chunks()
    for path, data, classes, nodes in files:
        for c in sorted(classes & declared):
            if per.get(c, 0) < per_class:
                per[c] = per.get(c, 0) + 1
                out.append(Case(path, data, c, _chunk_feed_after(nodes, c, feeding)))
    return out


def without_class(class_id: int) -> Registry:
    full = registry()
    return Registry({k: v for k, v in full.chunks.items() if k[0] & MASK != class_id}, full.structs, [])


def read_back(case: Case):
    """(entry after check(), its data or None) for one case written into a compressed pak."""
    pak = build_pak([PakFile("Game/Hidden/" + case.path.rsplit("/", 1)[-1], case.data)], KS)
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), KEY, decls=without_class(case.hidden))
    e = arc.entry(arc.files[0])
    err = e.check()
    return e, (None if err else e.read(0, e.size))
