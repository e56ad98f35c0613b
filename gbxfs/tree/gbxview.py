"""The GBX folder view (SPEC §1): every *.gbx shown as a folder of its parts.

    open_gbx(name, source, ctx, header_bytes=None, error=None) -> Dir

- `source`: the file's bytes (a ByteSource). For a GBX inside a pak these are
  the decrypted bytes.
- `header_bytes`: optional; the GBX header up to numNodes as a pak's metadata
  section stores it. Used when the file's own bytes are unavailable, so the
  header stays browsable (header/, info.txt, thumbnail.jpg, comments.txt).
- `error`: optional; why the file's bytes cannot be verified. original.gbx
  then answers EIO, body/ holds no data, and error.txt says why.

Laziness: listing the folder parses the header only. body/, the ghost files,
embedded/ and info.txt's body status parse the body on first use; parsed
results live in ctx.cache (see gbx_parse). Which entries exist is decided
from the header (class id, header chunks), so that listing never needs the
body: a replay always shows ghost.csv (its first ghost), ghost.txt, ghosts/
(all ghosts, <N>.csv and <N>.txt) and embedded/; a ghost file shows
ghost.csv and ghost.txt; a map shows embedded/. error.txt appears as soon as
a problem is known (header problems at once, body problems once the body has
been parsed).
"""
from __future__ import annotations

import threading
from typing import Callable, Iterable, Mapping

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.thumbnail import flip_jpeg, split_thumbnail_chunk
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx_chunkfiles import chunk_files
from gbxfs.tree.gbx_ghostfiles import Ghost, find_ghosts, render_ghost_csv, render_ghost_txt
from gbxfs.tree.gbx_info import describe, render_info, render_refs
from gbxfs.tree.gbx_parse import GbxParse
from gbxfs.tree.model import Dir, Entry, File, RenderedFile, SourceFile
from gbxfs.tree.source import ByteSource

REPLAY, GHOST, MAP = 0x03093000, 0x03092000, 0x03043000
THUMBNAIL_CHUNK = 0x03043007


def open_gbx(name: str, source: ByteSource, ctx: TreeContext, header_bytes: bytes | None = None,
             error: str | None = None) -> Dir:
    return GbxFolder(name, GbxParse(source, ctx, header_bytes=header_bytes, source_error=error))


class LazyFile(File):
    """A file whose bytes come from a parse result (kept in the shared cache,
    not in the tree), fetched again on demand."""

    __slots__ = ("_get",)

    def __init__(self, name: str, get: Callable[[], bytes], **kw):
        super().__init__(name, **kw)
        self._get = get

    def size(self) -> int:
        return len(self._get())

    def read(self, offset: int, size: int) -> bytes:
        return self._get()[offset:offset + size]


class GbxFolder(Dir):
    __slots__ = ("p", "_errors", "_error_file", "_elock")

    def __init__(self, name: str, p: GbxParse):
        super().__init__(name, load=self._list_root, mtime_ns=p.source.mtime_ns)
        self.p = p
        self._errors: dict[str, BaseException] = {}   # problems found by derived files
        self._error_file: tuple[int, Entry] | None = None
        self._elock = threading.Lock()
        ph = p.header()
        if ph.header is not None:
            self.xattrs["user.gbx.class_id"] = f"{ph.header.class_id:08X}".encode()

    # -- error.txt: present whenever a problem is known ------------------------------------
    def note_error(self, what: str, e: BaseException) -> None:
        with self._elock:
            self._errors.setdefault(what, e)

    def known_errors(self) -> list[tuple[str, BaseException]]:
        p = self.p
        out: list[tuple[str, BaseException]] = []
        if p.source_error:
            out.append(("file bytes", GbxError(f"cannot be verified: {p.source_error}")))
        ph = p.header()
        if ph.error is not None:
            out.append(("header", ph.error))
        elif ph.header is not None:
            for c in ph.header.chunks:
                if c.error is not None:
                    out.append((f"header chunk {c.chunk_id:08X}", c.error))
        pb = p.ctx.cache.get(("gbx.body", p.source))     # peek: never parse for this
        if pb is not None:
            for e in pb.errors:
                out.append(("body", e))
            for n in pb.nodes:
                if n.error is not None:
                    out.append((f"node {n.index} ({n.class_name or f'{n.class_id:08X}'})", n.error))
                for c in n.chunks:
                    if c.error is not None:
                        out.append((f"chunk {c.chunk_id:08X} of node {n.index}", c.error))
        with self._elock:
            out += list(self._errors.items())
        # one failure is recorded on the chunk, its node and the body alike: list it once
        seen: set[int] = set()
        return [(w, e) for w, e in out if not (id(e) in seen or seen.add(id(e)))]

    def children(self) -> Mapping[str, Entry]:
        kids = super().children()
        errs = self.known_errors()
        if not errs:
            return kids
        with self._elock:
            if self._error_file is None or self._error_file[0] != len(errs):
                text = "".join(describe(w, e) + "\n" for w, e in errs)
                f = RenderedFile("error.txt", lambda t=text: t.encode("utf-8", "replace"))
                self._error_file = (len(errs), f)
                self.xattrs["user.gbxfs.error"] = str(errs[0][1]).encode("utf-8", "replace")
            return {**kids, "error.txt": self._error_file[1]}

    # -- the folder ------------------------------------------------------------------------
    def _list_root(self) -> Iterable[Entry]:
        p = self.p
        original = SourceFile("original.gbx", p.source)
        if p.source_error:
            original.error = p.source_error
        out: list[Entry] = [original,
                            RenderedFile("info.txt", lambda: render_info(p.source.size, p.header(), self._body()))]
        h = p.header().header
        if h is None:
            return out
        out.append(Dir("header", load=self._header_files))
        if h.refs is not None and (h.refs.externals or h.refs.folders):
            out.append(RenderedFile("refs.txt", lambda: render_refs(p.header())))
        out.append(Dir("body", load=self._body_files))
        out += self._thumbnail_files(h)
        if h.class_id in (REPLAY, GHOST):
            out.append(LazyFile("ghost.csv", lambda: render_ghost_csv(self._first_ghost())))
            out.append(LazyFile("ghost.txt", lambda: render_ghost_txt(self._first_ghost())))
        if h.class_id == REPLAY:
            out.append(Dir("ghosts", load=self._ghost_files))
        if h.class_id in (REPLAY, MAP):
            out.append(Dir("embedded", load=self._embedded))
        return out

    def _body(self):
        pb = self.p.body()
        return pb

    def _header_files(self) -> list[Entry]:
        h = self.p.header().header
        _decode_header(h)
        taken: set[str] = set()
        out: list[Entry] = []
        for c in h.chunks:
            out += chunk_files(c, taken)
        return out

    def _body_files(self) -> list[Entry]:
        pb = self.p.body()
        if pb.body is None:
            return []
        return [LazyFile("body.bin", lambda: self.p.body().body or b""), Dir("nodes", load=self._node_dirs)]

    def _node_dirs(self) -> list[Entry]:
        from gbxfs.tree.gbx_ghostfiles import all_nodes
        out: list[Entry] = []
        for i, n in enumerate(all_nodes(self.p.body().nodes)):
            label = n.index if n.index is not None else i
            cls = n.class_name or f"{n.class_id:08X}"
            name = f"{label:03d}.{cls}"
            if any(e.name == name for e in out):
                name = f"{name}-{i}"
            x = {"user.gbx.class_id": f"{n.class_id:08X}".encode()}
            if n.error is not None:
                x["user.gbxfs.error"] = str(n.error).encode("utf-8", "replace")
            out.append(Dir(name, load=lambda n=n: _node_files(n), xattrs=x))
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
        if jpeg:
            out.append(RenderedFile("thumbnail.jpg", lambda j=jpeg: self._flip(j), xattrs=x))
        if comments:
            out.append(RenderedFile("comments.txt", lambda t=comments: (t.rstrip("\n") + "\n").encode("utf-8"),
                                    xattrs=x))
        return out

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

    def _first_ghost(self) -> Ghost | None:
        ghosts = self._ghosts()
        return ghosts[0] if ghosts else None

    def _ghost_files(self) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(self._ghosts())):
            out.append(LazyFile(f"{i}.csv", lambda i=i: render_ghost_csv(self._ghosts()[i])))
            out.append(LazyFile(f"{i}.txt", lambda i=i: render_ghost_txt(self._ghosts()[i])))
        return out

    # -- embedded ----------------------------------------------------------------------------
    def _embedded(self) -> list[Entry]:
        from gbxfs.tree.gbx_embedded import embedded_entries
        pb = self.p.body()
        if not pb.nodes:
            return []
        ctx = self.p.ctx

        def open_nested(name: str, src: ByteSource) -> Entry:
            if ctx.open_child is not None:
                return ctx.open_child(name, src)
            return open_gbx(name, src, ctx)

        try:
            return embedded_entries(pb.nodes[0], ctx, self.p.source.mtime_ns, open_nested)
        except GbxError as e:
            self.note_error("embedded", e)
            return []


def _node_files(n) -> list[Entry]:
    taken: set[str] = set()
    out: list[Entry] = []
    for c in n.chunks:
        out += chunk_files(c, taken)
    return out


def _decode_header(h) -> None:
    """Decode the header chunks with the declarations (once; fills chunk.values)."""
    if getattr(h, "_gbxfs_decoded", False):
        return
    from gbxfs.formats.gbx import decode_header_chunks
    decode_header_chunks(h)
    h._gbxfs_decoded = True
