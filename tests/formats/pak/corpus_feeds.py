"""Test-side tools for putting real corpus GBX files into paks
(test_pak_class_corpus.py):

- `in_pak_form`: a file as the game keeps it in a pak, its body stored
  uncompressed (an LZO body is read whole before the main node, so its feeds
  would all come after the last page: only the uncompressed form tests them);
- `feeds_of`: where each ivXor feed of a file happens, as (bytes consumed by
  then, fed bytes), found by walking the plain file with the GBX parser's
  `on_node`/`feed` hooks. No pak code is involved: comparing the pak writer
  and reader with pak_testkit's fold models over these positions checks the
  pak layer's feed timing, not the pak layer against itself;
- `choose`: the corpus files that put every feed class the corpus holds
  through a pak (the smallest file of each main class, else the smallest
  holding the class) and every TrackMania-Forever-or-older map and replay
  generation.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from corpusdata import manifest_rows, parsed_gbx
from pullsource import Pull

from gbxfs.formats.gbx import classdb, generation
from gbxfs.formats.gbx.body import read_body
from gbxfs.formats.gbx.header import read_header
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.reader import GbxReader

GBX_KINDS = ("map", "replay", "ghost", "item", "other")
MAP, REPLAY = 0x03043000, 0x03093000
BODY_COMPRESSION_AT = 7      # "GBX", u16 version, then the format bytes B, U/C (header), U/C (body)


def class_of(class_id: int) -> int:
    return classdb.remap(class_id) & classdb.CLASS_MASK


@dataclass
class Feeds:
    feeds: list[tuple[int, bytes]]      # (bytes consumed by then, fed bytes), in order
    node_feeds: int                      # ReadNode feeds among them
    no_feed_id: list[int]                # classes read whose feed id is unknown
    status: str                          # the walk's status


def feeds_of(data: bytes) -> Feeds:
    src = Pull(data)
    out = Feeds([], 0, [], "failed")

    def on_node(class_id: int) -> None:
        fid = classdb.feed_id(class_id)
        if fid is None:
            out.no_feed_id.append(class_of(class_id))
            return
        out.node_feeds += 1
        out.feeds.append((src.consumed, fid.to_bytes(4, "little")))

    def feed(b: bytes) -> None:
        out.feeds.append((src.consumed, bytes(b)))

    h = read_header(GbxReader(src))
    body = src
    if h.body_compression == "C":
        body = read_body(src.read(src.remaining), 0, "C").data
    res = walk_body(body, class_id=h.raw_class_id, text=h.text, num_nodes=h.num_nodes,
                    externals=h.refs.by_node_index() if h.refs else None, on_node=on_node, feed=feed)
    if body is not src:      # the LZO body was read whole first: every feed comes at the end
        out.feeds = [(len(data), b) for _, b in out.feeds]
    out.status = res.status
    return out


@dataclass
class CorpusGbx:
    path: str
    data: bytes
    in_pak: bytes                        # in_pak_form(data)
    main_class: int
    generation: str
    node_classes: frozenset[int]         # every class a node of the file is read as
    status: str                          # gbx.parse's body status


def in_pak_form(data: bytes, g) -> bytes:
    """The file with its body stored uncompressed; `g` is gbx.parse(data)."""
    if g.header.body_compression != "C":
        return data
    head = bytearray(data[:g.header.body_offset])
    assert head[BODY_COMPRESSION_AT] == ord("C")
    head[BODY_COMPRESSION_AT] = ord("U")
    return bytes(head) + g.body_bytes


def corpus_gbx() -> list[CorpusGbx]:
    out = []
    for row in manifest_rows():
        if row["kind"] not in GBX_KINDS:
            continue
        data, g = parsed_gbx(row["path"])
        gen = generation.from_note(row.get("notes", "")) or generation.infer(g)
        classes = frozenset(class_of(n.class_id) for n in g.body.nodes)
        out.append(CorpusGbx(row["path"], data, in_pak_form(data, g), class_of(g.header.class_id), gen, classes,
                             g.body.status))
    return out


def feed_classes() -> dict[int, str]:
    """{class id: name} of the feed table (gbxfs/data/classdb_feeds.tsv)."""
    text = resources.files("gbxfs").joinpath("data", "classdb_feeds.tsv").read_text(encoding="utf-8")
    rows = [ln.split("\t") for ln in text.splitlines() if ln and not ln.startswith("#")][1:]
    return {int(r[0], 16): classdb.class_name(int(r[0], 16)) or r[0] for r in rows}


def choose(files: list[CorpusGbx]) -> list[CorpusGbx]:
    """Per feed class held by the corpus, the smallest file of that main class (else
    the smallest holding a node of it); per old generation the smallest map and replay."""
    files = sorted(files, key=lambda f: (len(f.in_pak), f.path))
    held = set(feed_classes()) & set().union(*(f.node_classes for f in files))
    out: dict[str, CorpusGbx] = {}
    for cls in sorted(held):
        mains = [f for f in files if f.main_class == cls]
        holder = (mains or [f for f in files if cls in f.node_classes])[0]
        out.setdefault(holder.path, holder)
    for gen in generation.OLD_GENERATIONS:
        for main in (MAP, REPLAY):
            first = next((f for f in files if f.main_class == main and f.generation == gen), None)
            if first is not None:
                out.setdefault(first.path, first)
    return sorted(out.values(), key=lambda f: f.path)
