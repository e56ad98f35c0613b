"""The GBX folder view: every *.gbx shown as a folder of its parts.

    open_gbx(name, source, ctx, header_bytes=None, error=None) -> Dir

- `source`: the file's bytes (a ByteSource). For a GBX inside a pak these are
  the decrypted bytes.
- `header_bytes`: optional; the GBX header up to numNodes as a pak's metadata
  section stores it (or a function returning it, called only when needed). Used when the file's own bytes are unavailable, so the
  header stays browsable (header/, info.txt, thumbnail.jpg, comments.txt).
- `error`: optional; why the file's bytes cannot be verified. original.gbx
  then answers EIO, body/ holds no data, and error.txt says why.

The folder's listing comes from the header alone (class, header chunks,
thumbnail, reference table), and so do body/'s: the same names on every
listing, and a walk of a folder of thousands of maps reads a few KB of each.
What needs the body is where a user expects to wait: files whose content is
made when read, their size answered by getattr rather than by the listing
(`lazy_size`: info.txt, thumbnail.jpg, ghost.csv, ghost.txt, body/body.bin,
body/nodes.txt, and the derived files: mesh.obj/.mtl/.glb, inputs.csv,
inputs.txt, ghost.svg, icon.png; see meshfiles.py, inputfiles.py,
pictures.py), and folders found by name but not listed, like body/nodes/:
a replay's or ghost's ghosts/, a map's or replay's embedded/ and a mesh's
mesh/ (named in info.txt).
Each folder's error.txt holds the problems its own listing found (errors.py).
Parsed results live in ctx.cache (see parse.py), and so do the generated
files' bytes and the listings of header/ and body/nodes/ (see
gbxfs/tree/cached.py): the tree itself keeps no chunk bytes, so memory stays
bounded by the cache however many files are browsed.
"""
from __future__ import annotations

import errno
import functools
from collections.abc import Callable, Iterable, Mapping

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.thumbnail import THUMBNAIL_CHUNK, flip_jpeg, split_thumbnail_chunk, thumbnail_parts
from gbxfs.tree.cached import CachedDir, CachedFile, KeyedFile, ParsedBytesFile
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import rootfiles
from gbxfs.tree.gbx.chunkfiles import chunk_entries
from gbxfs.tree.gbx.digest import BodyFiles, ChunkText
from gbxfs.tree.gbx.embedded import embedded_entries
from gbxfs.tree.gbx.errors import with_errors
from gbxfs.tree.gbx.ghostfiles import Ghost, find_ghosts, first_ghost_facts, render_ghost_csv, render_ghost_txt
from gbxfs.tree.gbx.headerfiles import LISTING as HEADER_LISTING
from gbxfs.tree.gbx.headerfiles import HeaderFolder, header_rows
from gbxfs.tree.gbx.info import render_info
from gbxfs.tree.gbx.inputfiles import header_proves_united_forever, inputs_problems
from gbxfs.tree.gbx.meshfiles import MESH_FOLDER, MeshFiles, may_hold_mesh
from gbxfs.tree.gbx.nodenames import node_folder_name, node_labels, unique_name
from gbxfs.tree.gbx.nodesindex import UNLISTED, render_nodes_index
from gbxfs.tree.gbx.parse import GbxParse, _bare
from gbxfs.tree.gbx.pictures import HeaderChunkFile, directory_file, icon_entries, image_entries
from gbxfs.tree.gbx.status import FileStatus, file_status
from gbxfs.tree.gbx.summary import decode_header as _decode_header
from gbxfs.tree.model import Dir, Entry, PartlyListedDir, SourceFile
from gbxfs.tree.rows import LAZY, Rows
from gbxfs.tree.source import ByteSource

REPLAY, GHOST, MAP = map(classdb.class_id, ("CGameCtnReplayRecord", "CGameCtnGhost", "CGameCtnChallenge"))
# found by name, not listed: their listings need the body parse (see the module note)
BODY_FOLDERS = frozenset({"ghosts", "embedded", MESH_FOLDER})
CLASS_XATTR = "user.gbx.class_id"
# the classes whose files may embed others (embedded/), as the folder's class xattr shows them
EMBEDDING = frozenset(f"{c:08X}".encode() for c in (REPLAY, MAP))


def open_gbx(name: str, source: ByteSource, ctx: TreeContext,
             header_bytes: bytes | Callable[[], bytes | None] | None = None, error: str | None = None) -> GbxFolder:
    return GbxFolder(name, GbxParse(source, ctx, header_bytes=header_bytes, source_error=error))


class GbxFolder(PartlyListedDir):
    __slots__ = ("p",)

    def __init__(self, name: str, p: GbxParse):
        super().__init__(name, self._list_root, BODY_FOLDERS, mtime_ns=p.source.mtime_ns)
        self.p = p

    @property
    def files(self) -> BodyFiles:
        """body/ is served from the body's digest (made when asked: it keeps only `p`)."""
        return BodyFiles(self.p)

    def summary_header(self):
        """The parsed header (for maps.csv / replays.csv of the folder holding this file)."""
        return self.p.header_once().header

    def status(self) -> FileStatus:
        """The file's one status (status.py): its body's walk and its folders' error.txt."""
        h = self.p.header_once().header
        return file_status(self, None if h is None else self.files.digest().status)

    # -- the folder ------------------------------------------------------------------------
    def _key(self, *what) -> tuple:
        """A cache key for one generated entry of this file."""
        return ("gbx.view", self.p.source) + what

    def file_key(self, name: str) -> tuple:
        return self._key(name)

    def _generated(self, name: str, make: Callable[[GbxFolder], bytes], **kw) -> KeyedFile:
        """A generated file of the folder, `make(folder)` a function every folder shares."""
        return KeyedFile(name, self.p.ctx.cache, self, make, **kw)

    def _list_root(self) -> Iterable[Entry]:
        """The header's parts: nothing here reads the body (see the module note)."""
        p = self.p
        cache = p.ctx.cache
        # its folder's access (the same source's), inherited rather than its own: a
        # readdirplus then answers it from the listing's row, with no inode node (fuse/listing.py)
        original = SourceFile("original.gbx", p.source, access=None)
        problems: list[tuple[str, BaseException]] = []
        if p.source_error:
            original.error = p.source_error
            problems.append(("file bytes", GbxError(f"cannot be verified: {p.source_error}")))
        ph = p.header_once()
        h = ph.header
        out: list[Entry] = [original, self._generated("info.txt", GbxFolder._info, lazy=True)]
        if h is not None:
            self.xattrs[CLASS_XATTR] = f"{h.class_id:08X}".encode()
        if h is None:
            assert ph.error is not None         # no header: the parse says why
            problems.append(("header", ph.error))
            return with_errors(out, problems, self.xattrs)
        out.append(HeaderFolder("header", cache, self._key(HEADER_LISTING), self._header_files))
        if h.refs is not None and (h.refs.externals or h.refs.folders):
            out.append(self._generated("refs.txt", rootfiles.refs_text))
        body = self._body_facts(ph)     # read here, in the same visit: body/ lists from memory
        out.append(BodyFolder(self, body))
        out += self._thumbnail_files(h, problems)
        out += icon_entries(h, cache, self._key, self._header)
        out += image_entries(h, p, self._key, problems)
        folder_icon = directory_file(out)
        if folder_icon is not None:
            out.append(folder_icon)
        if h.class_id in (REPLAY, GHOST):
            out += self._ghost_root_files(h)
            out.append(CachedDir("ghosts", cache, self._key("ghosts/"), self._ghost_files))
        if may_hold_mesh(h.class_id):
            out += MeshFiles(p, self._key).root_entries(h.class_id)
        return with_errors(out, problems, self.xattrs)    # embedded/: made when named (child)

    def _find(self, name: str) -> Entry | None:
        """A listed entry, or a folder found by name; a map's or replay's embedded/
        is made when first named, then the same (a walk never names it: a folder
        and its lock less per map kept)."""
        entry = super()._find(name)
        if entry is None and name == "embedded" and self.xattrs.get(CLASS_XATTR) in EMBEDDING:
            with self._lock:
                others = self._children         # the unlisted, set by _list()
                assert others is not None
                entry = others.get(name)
                if entry is None:
                    entry = others[name] = Dir("embedded", load=self._embedded)
        return entry

    def _info(self) -> bytes:
        """info.txt: the summary and the header's facts, then the body's (status,
        counts, errors) and, for a replay or ghost, what the header lacks from the
        first ghost's chunks, and the file's status (status.py: a replay's ghost
        samples decoded for it): made when read, its size given by getattr
        (lazy_size), so listing the folder parses no body."""
        p = self.p
        ph = p.header()
        h = ph.header
        if h is not None:
            _decode_header(h)      # the summary's fields (again, if the cache dropped the header)
        folders = () if h is None else tuple(n for n, classes in (("embedded", (REPLAY, MAP)),
                                                                  ("ghosts", (REPLAY, GHOST)))
                                             if h.class_id in classes)
        if h is not None and may_hold_mesh(h.class_id):
            folders += (MESH_FOLDER,)
        return render_info(p.source.size, ph, self.files.digest().info, self._ghost_facts(h),
                           getattr(p.source, "proof", None), folders, self.status())

    def _ghost_facts(self, h) -> dict | None:
        """The first ghost's facts (player, time, checkpoints) of a replay or ghost file."""
        if h is None or h.class_id not in (REPLAY, GHOST):
            return None
        return self.p.ctx.cache.get_or_make(("gbx.ghostfacts", self.p.source),
                                            lambda: (first_ghost_facts(self.p.body().nodes), 2048))

    # -- header/ and body/ -----------------------------------------------------------------
    def _header(self):
        """The header with its chunks decoded (again, if the cache dropped it)."""
        h = self.p.header().header
        if h is None:      # the same source parsed before: cannot fail now unless it changed
            raise OSError(errno.EIO, f"{self.name}: header no longer parses")
        _decode_header(h)
        return h

    def _header_files(self) -> Rows:
        return header_rows(self)

    def _body_facts(self, ph) -> int | GbxError | None:
        """What body/ is listed from: the body's declared size, or why it does not
        fit the file (None: no bytes to read). Read with the top level's listing,
        from the header's read when it reached the body's first bytes."""
        if self.p.source_error:
            return None
        try:
            return self.p.body_size(ph.header, ph.body_head)
        except GbxError as e:
            return _bare(e.add_context(where="body"))

    def _body_files(self, size: int | GbxError | None) -> Mapping[str, Entry]:
        """body/'s listing, from memory: body.bin (the size the file declares) and
        nodes.txt (made when read) as rows (tree/rows.py: entries made when named);
        nodes/ is found by name (nodesindex.py); sizes that do not fit: error.txt."""
        if size is None:
            return {}
        if isinstance(size, GbxError):
            return {c.name: c for c in with_errors([], [("body", size)])}
        return Rows(["body.bin", "nodes.txt"], [0, 1], [size, LAZY], self.mtime_ns, self._body_file, valid=True)

    def _body_file(self, rows: Rows, i: int, token: int) -> Entry:
        """The entry of body/'s row i (the rows above): body.bin or nodes.txt."""
        if token == 0:
            return ParsedBytesFile("body.bin", self._body_bytes, size=rows.sizes[i])
        return CachedFile("nodes.txt", self.p.ctx.cache, self._key("body/nodes.txt"), self._nodes_index, lazy=True)

    def _nodes_dir(self) -> CachedDir:
        """body/nodes/, found by name, not listed (nodesindex.py): made when named,
        its listing in the cache, so every one made shows the same."""
        return CachedDir("nodes", self.p.ctx.cache, self._key("nodes/"), self._node_dirs)

    def _nodes_index(self) -> bytes:
        return render_nodes_index(self.files.digest().status, self._nodes_dir().children())

    def _body_bytes(self) -> bytes:
        try:
            return self.p.body_bytes()
        except GbxError as e:      # data that does not decompress to its declared size
            raise OSError(errno.EIO, f"{self.name}: body cannot be read: {e}") from None

    def _node_dirs(self) -> list[Entry]:
        out: list[Entry] = []
        taken: set[str] = set()
        cache = self.p.ctx.cache
        d = self.files.digest()
        nodes = d.nodes
        labels = node_labels([n.index for n in nodes])
        for i, n in enumerate(nodes):
            name = unique_name(node_folder_name(labels[i], n.class_name or f"{n.class_id:08X}"), taken)
            taken.add(name)
            x = {"user.gbx.class_id": f"{n.class_id:08X}".encode()}
            if n.error is not None:
                x["user.gbxfs.error"] = str(n.error).encode("utf-8", "replace")
            out.append(CachedDir(name, cache, self._key("node/", i), functools.partial(self._node_files, i), xattrs=x))
        return with_errors(out, d.problems)

    def _node_files(self, i: int) -> list[Entry]:
        taken: set[str] = set()
        out: list[Entry] = []
        d, f = self.files.digest(), self.files
        if i >= len(d.nodes):
            raise OSError(errno.EIO, f"{self.name}: body no longer parses the same")
        for j, c in enumerate(d.nodes[i].chunks):
            sizes = {"txt": d.text_size(i, j, "txt"), "xml": c.xml_size}
            out += chunk_entries(c, taken,
                                 lambda name, kind, x, j=j, sizes=sizes: ChunkText(name, f, i, j, kind, sizes[kind], x),  # type: ignore[misc]  # binds j
                                 functools.partial(f.raw_view, i, j), c.raw_size, c.xml_size is not None)
        return out

    # -- thumbnail and comments ------------------------------------------------------------
    def _thumbnail_files(self, h, problems: list) -> list[Entry]:
        c = next((c for c in h.chunks if c.chunk_id == THUMBNAIL_CHUNK), None)
        if c is None:
            return []
        try:
            _, jpeg_size, comments = thumbnail_parts(c.raw)     # the image is not copied
        except GbxError as e:
            problems.append(("thumbnail", _bare(e.add_context(chunk_id=THUMBNAIL_CHUNK, offset=c.offset))))
            return []
        out: list[Entry] = []
        cache = self.p.ctx.cache
        # the files keep no image: they split the (cached) header chunk again when read
        if jpeg_size:
            out.append(HeaderChunkFile("thumbnail.jpg", cache, self, GbxFolder._thumbnail_jpeg,
                                       THUMBNAIL_CHUNK, c.offset, lazy=True))
        if comments:
            text = _comments_bytes(comments)
            out.append(HeaderChunkFile("comments.txt", cache, self, GbxFolder._comments,
                                       THUMBNAIL_CHUNK, c.offset, size=len(text)))
        return out

    # the files' makers: functions of the folder, shared (KeyedFile), not a closure per file
    def _thumbnail_jpeg(self) -> bytes:
        return self._flip(self._thumbnail()[0])

    def _comments(self) -> bytes:
        return _comments_bytes(self._thumbnail()[1])

    def _thumbnail(self) -> tuple[bytes, str]:
        c = next(c for c in self._header().chunks if c.chunk_id == THUMBNAIL_CHUNK)
        return split_thumbnail_chunk(c.raw)  # type: ignore[return-value]  # a part's file is listed when it is there

    def _flip(self, jpeg: bytes) -> bytes:
        try:
            return flip_jpeg(jpeg)
        except GbxError as e:
            # never the stored (upside-down) image as if it were the upright one; the
            # stored bytes stay readable in header/03043007.*.bin
            raise OSError(errno.EIO, f"{self.name}: thumbnail.jpg: {e.reason}") from None

    # -- ghosts ------------------------------------------------------------------------------
    def _ghosts(self) -> list[Ghost]:
        p = self.p

        def make():
            pb = p.body()
            ghosts = find_ghosts(pb.nodes)
            return ghosts, 1024 + sum(200 * len(g.track.samples) for g in ghosts if g.track)

        return p.ctx.cache.get_or_make(("gbx.ghosts", p.source), make)

    def _ghost_root_files(self, h) -> list[Entry]:
        """ghost.csv, ghost.txt, ghost.svg, inputs.csv and (see inputfiles.py) inputs.txt."""
        out: list[Entry] = [self._generated(name, make, lazy=True) for name, make in rootfiles.GHOST_FILES]
        if h.class_id == REPLAY and header_proves_united_forever(h):
            out.append(self._generated("inputs.txt", rootfiles.inputs_script, lazy=True))
        return out

    def _first_ghost(self) -> Ghost | None:
        ghosts = self._ghosts()
        return ghosts[0] if ghosts else None

    def _ghost_files(self) -> list[Entry]:
        out: list[Entry] = []
        cache = self.p.ctx.cache
        ghosts = self._ghosts()
        for i in range(len(ghosts)):
            out.append(CachedFile(f"{i}.csv", cache, self._key("ghosts", i, "csv"),
                                  lambda i=i: render_ghost_csv(self._ghosts()[i])))  # type: ignore[misc]  # binds the loop variable
            out.append(CachedFile(f"{i}.txt", cache, self._key("ghosts", i, "txt"),
                                  lambda i=i: render_ghost_txt(self._ghosts()[i])))  # type: ignore[misc]  # binds the loop variable
        return with_errors(out, [(f"ghost {i} samples", e) for i, g in enumerate(ghosts) for e in g.errors]
                           + inputs_problems(ghosts))

    # -- embedded ----------------------------------------------------------------------------
    def _embedded(self) -> list[Entry]:
        d = self.files.digest()
        if not d.nodes:
            return []
        if isinstance(d.items, GbxError):
            return with_errors([], [("embedded", d.items)])
        ctx = self.p.ctx

        def open_nested(name: str, src: ByteSource) -> Entry:
            if ctx.open_child is not None:
                return ctx.open_child(name, src)
            return open_gbx(name, src, ctx)

        try:
            # from the digest and the body's bytes: no parse needed
            return embedded_entries(self.files.raw_node(0), ctx, self.p.source.mtime_ns, open_nested,
                                    self._key("embedded"), lambda: self.files.raw_node(0),
                                    lambda: self.files.digest().items,  # type: ignore[arg-type,return-value]  # not an error: tested above
                                    self.files.body_slice)
        except GbxError as e:
            return with_errors([], [("embedded", _bare(e))])


class BodyFolder(PartlyListedDir):
    """body/: listed from facts its GBX folder's listing read (no I/O, no parse),
    so a walk enters it without a worker thread (children(wait=False) answers),
    and made again on each listing rather than kept (a few objects)."""

    # its GBX folder and the facts it lists from (GbxFolder._body_facts): no loader
    # object of its own (one body/ per map a walk keeps)
    __slots__ = ("_gbx", "_facts")

    def __init__(self, gbx: GbxFolder, facts: int | GbxError | None):
        super().__init__("body", _made_here, UNLISTED)
        self._gbx, self._facts = gbx, facts

    def _list(self) -> Mapping[str, Entry]:
        return self._gbx._body_files(self._facts)     # nodes/ is not among them

    _list_now = _list       # from memory, no I/O, no parse

    def _find(self, name: str) -> Entry | None:
        if name in self._unlisted:      # nodes/: there when the body's sizes are (body.bin is listed)
            return self._gbx._nodes_dir() if isinstance(self._facts, int) else None
        return self._list().get(name)

    def peek(self) -> Mapping[str, Entry] | None:
        return self._list()      # from memory: the same on every walk (a folder's link count)


def _made_here() -> list[Entry]:
    raise AssertionError("body/ lists through its own _list()")


def _comments_bytes(comments: str) -> bytes:
    return (comments.rstrip("\n") + "\n").encode("utf-8")
