"""The pak directory view (SPEC §1): a .pak shown as its archive tree.

    open_pak(name, source, ctx) -> Dir

Entering a pak decrypts its header only. Entries are files with the exact
size of the file table, decrypted (and verified) on first read; *.gbx
entries become GBX folders in gbx_mode "folder". A pak that cannot be
opened (no key, wrong key, corrupt or truncated header) is a directory with
.pak-info.txt and error.txt, never a failure of the mount.

Hashed (extension-less) names are shown typed by class (tree/paknames.py);
every *.gbx entry, "no dummy write" ones included, is a GBX folder.
ManiaPlanet/TM2020 packs (version 6+, .Pack.Gbx): tree/packview.py.
"""
from __future__ import annotations

import errno
import logging
import os
import threading
from typing import Iterable, Mapping

from gbxfs.formats.pak import keyfile, packlist
from gbxfs.formats.pak.archive import PakArchive, peek_version
from gbxfs.formats.pak.entry import PakEntry
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import KNOWN_VERSIONS
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import BytesFile, Dir, Entry, RenderedFile, SourceFile
from gbxfs.tree.pakinfo import render_info
from gbxfs.tree.paknames import CLASS_XATTR, STORED_NAME_XATTR, typed_renames
from gbxfs.tree.source import ByteSource

log = logging.getLogger("gbxfs.tree")

INFO_NAME = ".pak-info.txt"
ERROR_NAME = "error.txt"
ERROR_XATTR = "user.gbxfs.error"


# -- keys ------------------------------------------------------------------------------------
def find_packlist(source: ByteSource, ctx: TreeContext) -> str | None:
    """ctx.packlist_path, else a packlist.dat (any case) next to the pak file."""
    if ctx.packlist_path:
        return ctx.packlist_path
    path = getattr(source, "path", None)
    if not path:
        return None
    folder = os.path.dirname(path)
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    for n in sorted(names):
        if n.lower() == "packlist.dat":
            return os.path.join(folder, n)
    return None


def load_packlist(path: str, ctx: TreeContext) -> packlist.Packlist | keyfile.KeyFile:
    """Parsed packlist.dat (or a plain-text key file: formats/pak/keyfile.py),
    cached by path and modification time."""
    st = os.stat(path)
    key = ("pak.packlist", path, st.st_mtime_ns, st.st_size)

    def make():
        with open(path, "rb") as f:
            data = f.read(1 << 20)   # a real packlist is a few KiB
        try:
            pl = packlist.parse(data)
        except PakError as e:
            try:
                pl = keyfile.parse(data)
            except PakError:
                raise e from None     # neither: report it as the packlist.dat it is named for
        return pl, 64 * len(pl.entries) + 256
    return ctx.cache.get_or_make(key, make)


class KeySource:
    """Where a pak's key came from, for .pak-info.txt."""

    def __init__(self):
        self.packlist_path: str | None = None
        self.entry_name: str | None = None
        self.signature_ok: bool | None = None
        self.problem: str | None = None


def lookup_key(name: str, source: ByteSource, ctx: TreeContext) -> tuple[bytes | None, KeySource]:
    ks = KeySource()
    path = find_packlist(source, ctx)
    if path is None:
        ks.problem = "no packlist.dat next to the pak (and no --packlist given)"
        return None, ks
    ks.packlist_path = path
    try:
        pl = load_packlist(path, ctx)
    except (OSError, PakError) as e:
        ks.problem = f"packlist.dat unreadable: {e}"
        return None, ks
    ks.signature_ok = pl.signature_ok
    entry = pl.find(name) or pl.find(keyfile.pack_stem(name))
    if entry is None:
        ks.problem = f"packlist.dat has no entry for {name}"
        return None, ks
    ks.entry_name = entry.name
    return entry.key, ks


# -- entries ---------------------------------------------------------------------------------
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
        err = self._entry.check()
        if err is None and self._ctx.open_child is not None:
            return self._ctx.open_child(self.name, source)
        from gbxfs.tree.gbxview import open_gbx
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


def _build_tree(arc: PakArchive, ctx: TreeContext, mtime: int) -> list[Entry]:
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


# -- the views -------------------------------------------------------------------------------
def _error_dir(name: str, info: str, error: str, mtime: int) -> Dir:
    d = Dir(name, children=[BytesFile(INFO_NAME, info.encode("utf-8", "replace")),
                            BytesFile(ERROR_NAME, (error + "\n").encode("utf-8", "replace"))],
            mtime_ns=mtime)
    d.xattrs[ERROR_XATTR] = error.encode("utf-8", "replace")
    return d


def open_pak(name: str, source: ByteSource, ctx: TreeContext) -> Dir:
    mtime = source.mtime_ns
    try:
        version = peek_version(source.read_at, source.size)
    except PakError as e:
        return _error_dir(name, render_info(name, None, None, e.reason), e.reason, mtime)
    if version >= 6:
        return open_pack_gbx(name, source, ctx)
    if version not in KNOWN_VERSIONS:
        err = f"unsupported pak version {version}"
        return _error_dir(name, render_info(name, None, None, err, version=version), err, mtime)
    key, ks = lookup_key(name, source, ctx)
    if key is None:
        return _error_dir(name, render_info(name, None, ks, ks.problem, version=version), ks.problem, mtime)
    try:
        arc = PakArchive(source.read_at, source.size, key, cache=ctx.cache)
    except PakError as e:
        return _error_dir(name, render_info(name, None, ks, e.reason, version=version), e.reason, mtime)
    info = RenderedFile(INFO_NAME, lambda: render_info(name, arc, ks, None,
                                                       typed=typed_renames(arc, ctx.typed_names)
                                                       ).encode("utf-8", "replace"), mtime_ns=mtime)
    if not arc.header.md5_ok:
        err = "header MD5 mismatch: the file table is corrupt (or the key is wrong); entries not shown"
        d = Dir(name, children=[info, BytesFile(ERROR_NAME, (err + "\n").encode())], mtime_ns=mtime)
        d.xattrs[ERROR_XATTR] = err.encode()
        return d
    return Dir(name, load=lambda: [info] + _build_tree(arc, ctx, mtime), mtime_ns=mtime)


def open_pack_gbx(name: str, source: ByteSource, ctx: TreeContext) -> Dir:
    """A ManiaPlanet/TM2020 pack (tree/packview.py)."""
    from gbxfs.tree.packview import open_pack
    return open_pack(name, source, ctx)


def probe_pack_gbx(name: str, source: ByteSource) -> bool:
    """A *.Pack.Gbx that really is a NadeoPak (version 6+)."""
    try:
        return peek_version(source.read_at, source.size) >= 6
    except (PakError, OSError):
        return False
