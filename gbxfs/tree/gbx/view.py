"""The GBX folder view: every *.gbx shown as a folder of its parts.

    open_gbx(name, source, ctx, header_bytes=None, error=None) -> Dir

- `source`: the file's bytes (a ByteSource). For a GBX inside a pak these are
  the decrypted bytes.
- `header_bytes`: optional; the GBX header up to numNodes as a pak's metadata
  section stores it (or a function returning it, called only when needed). Used when the file's own bytes are unavailable, so the
  header stays browsable (header/, info.txt, thumbnail.jpg, comments.txt).
- `error`: optional; why the file's bytes cannot be verified. original.gbx
  then answers EIO, body/ holds no data, and error.txt says why.

Laziness: listing the folder parses the header only. body/, the ghost files,
embedded/ and info.txt's body status parse the body on first use; parsed
results live in ctx.cache (see parse.py), and so do the generated files'
bytes and the listings of header/ and body/nodes/ (see gbxfs/tree/cached.py): the tree
itself keeps no chunk bytes, so memory stays bounded by the cache however
many files are browsed. Which entries exist is decided
from the header (class id, header chunks), so that listing never needs the
body: a replay always shows ghost.csv (its first ghost), ghost.txt, ghosts/
(all ghosts, <N>.csv and <N>.txt) and embedded/; a ghost file shows
ghost.csv and ghost.txt; a map shows embedded/. error.txt appears as soon as
a problem is known (header problems at once, body problems once the body has
been parsed).
"""
from __future__ import annotations

import errno
from typing import Callable, Iterable, Mapping

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.thumbnail import THUMBNAIL_CHUNK, flip_jpeg, split_thumbnail_chunk
from gbxfs.tree.context import TreeContext
from gbxfs.tree.cached import CachedDir, CachedFile, ParsedBytesFile
from gbxfs.tree.gbx.chunkfiles import chunk_entries, chunk_files
from gbxfs.tree.gbx.digest import BodyFiles, ChunkText
from gbxfs.tree.gbx.ghostfiles import Ghost, find_ghosts, render_ghost_csv, render_ghost_txt
from gbxfs.tree.gbx.embedded import embedded_entries
from gbxfs.tree.gbx.errors import Problems
from gbxfs.tree.gbx.info import render_info, render_refs
from gbxfs.tree.gbx.nodenames import node_labels, unique_name
from gbxfs.tree.gbx.parse import GbxParse
from gbxfs.tree.gbx.nodesindex import UNLISTED, render_nodes_index
from gbxfs.tree.gbx.summary import decode_header as _decode_header
from gbxfs.tree.model import Dir, Entry, PartlyListedDir, SourceFile
from gbxfs.tree.source import ByteSource

REPLAY, GHOST, MAP = map(classdb.class_id, ("CGameCtnReplayRecord", "CGameCtnGhost", "CGameCtnChallenge"))


def open_gbx(name: str, source: ByteSource, ctx: TreeContext,
             header_bytes: bytes | Callable[[], bytes | None] | None = None, error: str | None = None) -> Dir:
    return GbxFolder(name, GbxParse(source, ctx, header_bytes=header_bytes, source_error=error))


class GbxFolder(Dir):
    __slots__ = ("p", "problems", "files")

    def __init__(self, name: str, p: GbxParse):
        super().__init__(name, load=self._list_root, mtime_ns=p.source.mtime_ns)
        self.p = p
        self.files = BodyFiles(p)       # body/ is served from the body's digest
        self.problems = Problems(p, self.files)
        ph = p.header()
        if ph.header is not None:
            self.xattrs["user.gbx.class_id"] = f"{ph.header.class_id:08X}".encode()

    def summary_header(self):
        """The parsed header (for maps.csv / replays.csv of the folder holding this file)."""
        return self.p.header().header

    def note_error(self, what: str, e: BaseException) -> None:
        self.problems.note(what, e)

    def children(self) -> Mapping[str, Entry]:
        kids = super().children()
        error_file = self.problems.error_file(self.xattrs)
        return kids if error_file is None else {**kids, "error.txt": error_file}

    # -- the folder ------------------------------------------------------------------------
    def _key(self, *what) -> tuple:
        """A cache key for one generated entry of this file."""
        return ("gbx.view", self.p.source) + what

    def _generated(self, name: str, make, **kw) -> CachedFile:
        return CachedFile(name, self.p.ctx.cache, self._key(name), make, **kw)

    def _list_root(self) -> Iterable[Entry]:
        p = self.p
        cache = p.ctx.cache
        original = SourceFile("original.gbx", p.source)
        if p.source_error:
            original.error = p.source_error
        out: list[Entry] = [original,
                            self._generated("info.txt", lambda: render_info(p.source.size, p.header(), self.files.digest().info,
                                                                      self._ghost_facts(),
                                                                      getattr(p.source, "proof", None)))]
        h = p.header().header
        if h is None:
            return out
        out.append(CachedDir("header", cache, self._key("header/"), self._header_files))
        if h.refs is not None and (h.refs.externals or h.refs.folders):
            out.append(self._generated("refs.txt", lambda: render_refs(p.header())))
        out.append(PartlyListedDir("body", self._body_files, UNLISTED))
        out += self._thumbnail_files(h)
        if h.class_id in (REPLAY, GHOST):
            out.append(self._generated("ghost.csv", lambda: render_ghost_csv(self._first_ghost())))
            out.append(self._generated("ghost.txt", lambda: render_ghost_txt(self._first_ghost())))
        if h.class_id == REPLAY:
            out.append(CachedDir("ghosts", cache, self._key("ghosts/"), self._ghost_files))
        if h.class_id in (REPLAY, MAP):
            out.append(Dir("embedded", load=self._embedded))
        return out

    # -- header/ and body/ -----------------------------------------------------------------
    def _header(self):
        """The header with its chunks decoded (again, if the cache dropped it)."""
        h = self.p.header().header
        if h is None:      # the same source parsed before: cannot fail now unless it changed
            raise OSError(errno.EIO, f"{self.name}: header no longer parses")
        _decode_header(h)
        return h

    def _header_files(self) -> list[Entry]:
        h = self._header()
        taken: set[str] = set()
        out: list[Entry] = []
        cache = self.p.ctx.cache
        for i, c in enumerate(h.chunks):
            out += chunk_files(c, taken, cache, self._key("header", i),
                               lambda i=i: self._header().chunks[i])
        return out

    def _body_files(self) -> list[Entry]:
        d = self.files.digest()
        if d.body_size is None:
            return []
        nodes = CachedDir("nodes", self.p.ctx.cache, self._key("nodes/"), self._node_dirs)
        return [ParsedBytesFile("body.bin", self.p.body_bytes, size=d.body_size),
                CachedFile("nodes.txt", self.p.ctx.cache, self._key("body/nodes.txt"),
                           lambda: render_nodes_index(self.files.digest().status, nodes.children())),
                nodes]   # found by name, not listed: see nodesindex.py

    def _node_dirs(self) -> list[Entry]:
        out: list[Entry] = []
        taken: set[str] = set()
        cache = self.p.ctx.cache
        nodes = self.files.digest().nodes
        labels = node_labels([n.index for n in nodes])
        width = max(3, len(str(max(labels, default=0))))
        for i, n in enumerate(nodes):
            name = unique_name(f"{labels[i]:0{width}d}.{n.class_name or f'{n.class_id:08X}'}", taken)
            taken.add(name)
            x = {"user.gbx.class_id": f"{n.class_id:08X}".encode()}
            if n.error is not None:
                x["user.gbxfs.error"] = str(n.error).encode("utf-8", "replace")
            out.append(CachedDir(name, cache, self._key("node/", i), lambda i=i: self._node_files(i), xattrs=x))
        return out

    def _node_files(self, i: int) -> list[Entry]:
        taken: set[str] = set()
        out: list[Entry] = []
        d, f = self.files.digest(), self.files
        if i >= len(d.nodes):
            raise OSError(errno.EIO, f"{self.name}: body no longer parses the same")
        for j, c in enumerate(d.nodes[i].chunks):
            sizes = {"txt": d.text_size(i, j, "txt"), "xml": c.xml_size}
            out += chunk_entries(c, taken,
                                 lambda name, kind, x, j=j, sizes=sizes: ChunkText(name, f, i, j, kind, sizes[kind], x),
                                 lambda j=j: f.raw_view(i, j), c.raw_size, c.xml_size is not None)
        return out

    # -- thumbnail and comments ------------------------------------------------------------
    def _thumbnail_files(self, h) -> list[Entry]:
        c = next((c for c in h.chunks if c.chunk_id == THUMBNAIL_CHUNK), None)
        if c is None:
            return []
        try:
            jpeg, comments = split_thumbnail_chunk(c.raw)
        except GbxError as e:
            self.note_error("thumbnail", e.add_context(chunk_id=THUMBNAIL_CHUNK, offset=c.offset))
            return []
        out: list[Entry] = []
        x = {"user.gbx.chunk_id": f"{THUMBNAIL_CHUNK:08X}".encode(), "user.gbx.offset": str(c.offset).encode()}
        # the files keep no image: they split the (cached) header chunk again when read
        if jpeg:
            out.append(self._generated("thumbnail.jpg", lambda: self._flip(self._thumbnail()[0]), xattrs=x))
        if comments:
            text = _comments_bytes(comments)
            out.append(self._generated("comments.txt", lambda: _comments_bytes(self._thumbnail()[1]),
                                       size=len(text), xattrs=x))
        return out

    def _thumbnail(self) -> tuple[bytes, str]:
        c = next(c for c in self._header().chunks if c.chunk_id == THUMBNAIL_CHUNK)
        return split_thumbnail_chunk(c.raw)

    def _flip(self, jpeg: bytes) -> bytes:
        try:
            return flip_jpeg(jpeg)
        except GbxError as e:
            self.note_error("thumbnail", e.add_context(chunk_id=THUMBNAIL_CHUNK))
            return jpeg   # never nothing: the stored (upside-down) image, and error.txt says why

    # -- ghosts ------------------------------------------------------------------------------
    def _ghosts(self) -> list[Ghost]:
        p = self.p

        def make():
            pb = p.body()
            ghosts = find_ghosts(pb.nodes)
            return ghosts, 1024 + sum(200 * len(g.track.samples) for g in ghosts if g.track)

        ghosts = p.ctx.cache.get_or_make(("gbx.ghosts", p.source), make)
        for i, g in enumerate(ghosts):
            for e in g.errors:
                self.note_error(f"ghost {i} samples", e)
        return ghosts

    def _ghost_facts(self) -> dict | None:
        """The first ghost's facts (player, time, checkpoints) of a replay or ghost file."""
        h = self.p.header().header
        if h is None or h.class_id not in (REPLAY, GHOST):
            return None
        g = self._first_ghost()
        return g.facts if g is not None else None

    def _first_ghost(self) -> Ghost | None:
        ghosts = self._ghosts()
        return ghosts[0] if ghosts else None

    def _ghost_files(self) -> list[Entry]:
        out: list[Entry] = []
        cache = self.p.ctx.cache
        for i in range(len(self._ghosts())):
            out.append(CachedFile(f"{i}.csv", cache, self._key("ghosts", i, "csv"),
                                  lambda i=i: render_ghost_csv(self._ghosts()[i])))
            out.append(CachedFile(f"{i}.txt", cache, self._key("ghosts", i, "txt"),
                                  lambda i=i: render_ghost_txt(self._ghosts()[i])))
        return out

    # -- embedded ----------------------------------------------------------------------------
    def _embedded(self) -> list[Entry]:
        d = self.files.digest()
        if not d.nodes:
            return []
        if isinstance(d.items, GbxError):
            self.note_error("embedded", d.items)
            return []
        ctx = self.p.ctx

        def open_nested(name: str, src: ByteSource) -> Entry:
            if ctx.open_child is not None:
                return ctx.open_child(name, src)
            return open_gbx(name, src, ctx)

        try:
            # from the digest and the body's bytes: no parse needed
            return embedded_entries(self.files.raw_node(0), ctx, self.p.source.mtime_ns, open_nested,
                                    self._key("embedded"), lambda: self.files.raw_node(0),
                                    lambda: self.files.digest().items, self.files.body_slice)
        except GbxError as e:
            self.note_error("embedded", e)
            return []


def _comments_bytes(comments: str) -> bytes:
    return (comments.rstrip("\n") + "\n").encode("utf-8")
