"""A pak's entries in the tree: plain files read through the archive, embedded
GBX files as folders (every *.gbx entry, "no dummy write" ones included), and
the folders of the file table. Hashed names are shown typed (tree/pak/names.py).

Entries are files with the exact size of the file table, decrypted and
verified on first read; a folder shows error.txt once one of its entries is
known to be unverifiable.
"""
from __future__ import annotations

import errno
import threading
from typing import Iterable, Mapping

from gbxfs.formats.pak.archive import PakArchive
from gbxfs.formats.pak.entry import PakEntry
from gbxfs.formats.pak.errors import PakError
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.parse import GbxParse
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.model import BytesFile, Dir, Entry, SourceFile
from gbxfs.tree.pak.info import ERROR_NAME, ERROR_XATTR
from gbxfs.tree.pak.names import CLASS_XATTR, STORED_NAME_XATTR, typed_renames


class PakEntrySource:
    """A pak entry as a ByteSource (for plain files and GBX folder views);
    unverifiable -> EIO."""

    __slots__ = ("entry", "size", "mtime_ns")

    def __init__(self, entry: PakEntry, mtime_ns: int):
        self.entry = entry
        self.size = entry.size
        self.mtime_ns = mtime_ns

    def read_at(self, offset: int, size: int) -> bytes:
        try:
            return self.entry.read(offset, size)
        except PakError as e:
            raise OSError(errno.EIO, f"pak entry cannot be verified: {e.reason}") from None


class PakEntryFile(SourceFile):
    """A pak entry as a plain file: exact size up front, verified on first read.
    `error` is what the entry knows so far (reading never happens to find it out)."""

    __slots__ = ()

    def __init__(self, name: str, entry: PakEntry, *, mtime_ns: int, **kw):
        super().__init__(name, PakEntrySource(entry, mtime_ns), **kw)

    @property
    def entry(self) -> PakEntry:
        return self.source.entry

    @property
    def error(self) -> str | None:       # type: ignore[override]
        return self.source.entry.error

    @error.setter
    def error(self, value: str | None) -> None:
        # File.__init__ clears it; afterwards only the entry decides
        if value is not None:
            raise AttributeError("a pak entry file's error is its entry's")


class PakGbxDir(Dir):
    """An embedded GBX as a folder. Opening it verifies the entry: verified
    bytes go through the registry (ctx.open_child); unverifiable ones get the
    GBX view with the metadata section's header and the error (original.gbx
    then answers EIO)."""

    __slots__ = ("_entry", "_arc", "_ctx", "_mtime", "_inner", "_ilock")

    def __init__(self, name: str, entry: PakEntry, arc: PakArchive, ctx: TreeContext, mtime_ns: int):
        super().__init__(name, mtime_ns=mtime_ns)
        self._entry, self._arc, self._ctx, self._mtime = entry, arc, ctx, mtime_ns
        self._inner: Entry | None = None
        self._ilock = threading.Lock()

    def _open(self) -> Entry:
        if self._inner is None:
            with self._ilock:
                if self._inner is None:
                    self._inner = self._make()
        return self._inner

    def _make(self) -> Entry:
        source = PakEntrySource(self._entry, self._mtime)
        err, walk = self._entry.verify()
        if walk is not None:
            # the verifying pass parsed the entry: the view uses that parse, not a second one
            GbxParse(source, self._ctx).seed_body(walk.body, walk.result)
        if err is None and self._ctx.open_child is not None:
            return self._ctx.open_child(self.name, source)
        arc, index = self._arc, self._entry.rec.index   # the header only when needed: metadata is cached
        return open_gbx(self.name, source, self._ctx, header_bytes=lambda: arc.gbx_header(index), error=err)

    def children(self) -> Mapping[str, Entry]:
        inner = self._open()
        if not inner.is_dir:   # the registry chose a plain file: show it inside, unchanged
            return {inner.name: inner}
        kids = inner.children()
        for k, v in inner.xattrs.items():
            self.xattrs.setdefault(k, v)
        err = self._entry.error
        if err is not None:
            self.xattrs[ERROR_XATTR] = err.encode("utf-8", "replace")
        return kids

    def loaded(self) -> bool:
        return self._inner is not None and self._inner.is_dir and self._inner.loaded()


class PakFolder(Dir):
    """A folder inside a pak. error.txt appears once one of its entries is
    known to be unverifiable (found out when it is first read)."""

    __slots__ = ("_files",)

    def __init__(self, name: str, children: Iterable[Entry], files: list[PakEntry], **kw):
        super().__init__(name, children=children, **kw)
        self._files = files

    def children(self) -> Mapping[str, Entry]:
        kids = super().children()
        bad = [(e.rec, e.error) for e in self._files if e.error]
        if not bad or ERROR_NAME in kids:
            return kids
        text = "".join(f"{'/'.join(rec.parts)}: {err}\n" for rec, err in bad)
        self.xattrs[ERROR_XATTR] = bad[0][1].encode("utf-8", "replace")
        return {**kids, ERROR_NAME: BytesFile(ERROR_NAME, text.encode("utf-8", "replace"))}


def _unique(name: str, taken: Mapping[str, object]) -> str:
    if name not in taken:
        return name
    i = 2
    while f"{name}~{i}" in taken:
        i += 1
    return f"{name}~{i}"


def build_tree(arc: PakArchive, ctx: TreeContext, mtime: int) -> list[Entry]:
    """Folders and entries from the file table (empty folders included)."""
    root: dict = {}
    files_at: dict[int, list[PakEntry]] = {}

    def node(parts: tuple[str, ...]) -> dict:
        d = root
        for p in parts:
            sub = d.get(p)
            if not isinstance(sub, dict):
                if sub is not None:  # a file already has this name: keep both
                    d[_unique(p, d)] = sub
                sub = d[p] = {}
            d = sub
        return d

    for folder in arc.folders:
        node(folder.parts)
    gbx_folders = ctx.gbx_mode == "folder"
    typed = {id(rec): t for rec, t in typed_renames(arc, ctx.typed_names)}
    for rec in arc.files:
        if not rec.parts:
            continue
        d = node(rec.parts[:-1])
        shown = typed.get(id(rec))
        name = _unique(shown or rec.parts[-1], d)
        entry = arc.entry(rec)
        files_at.setdefault(id(d), []).append(entry)
        xattrs = {"user.pak.index": str(rec.index).encode(), "user.pak.flags": f"{rec.flags:#x}".encode(),
                  CLASS_XATTR: f"{rec.class_id:08X}".encode()}
        if shown is not None:
            xattrs[STORED_NAME_XATTR] = rec.parts[-1].encode("utf-8", "replace")
        # every GBX is a folder (SPEC 1), "no dummy write" (no feeds) entries too
        if gbx_folders and name.lower().endswith(".gbx") and rec.size:
            d[name] = PakGbxDir(name, entry, arc, ctx, mtime)
            d[name].xattrs.update(xattrs)
        else:
            d[name] = PakEntryFile(name, entry, xattrs=xattrs, mtime_ns=mtime)

    def make(name: str, d: dict) -> PakFolder:
        kids = [make(k, v) if isinstance(v, dict) else v for k, v in d.items()]
        return PakFolder(name, kids, files_at.get(id(d), []), mtime_ns=mtime)

    return [make(k, v) if isinstance(v, dict) else v for k, v in root.items()]
