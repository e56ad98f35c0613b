"""The public Python API (docs/api.md): thin, stable names over the format
parsers and the tree the mount shows. `gbxfs/__init__.py` exports exactly the
names of its __all__ from here, loaded on first use."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from gbxfs.formats.gbx import Gbx, GbxError, parse
from gbxfs.formats.pak.errors import PakError
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.summary import summary as _summary
from gbxfs.tree.model import Dir, Entry, File
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import NotADir, NotFound, resolve

__all__ = ["open_gbx", "parse", "summary", "open_tree", "open_pak", "walk", "iter_files", "read",
           "Gbx", "GbxError", "PakError", "NotFound", "NotADir", "Entry", "File", "Dir"]


def open_gbx(source: str | os.PathLike | bytes | bytearray | memoryview) -> Gbx:
    """Parse a whole GBX file, given as its bytes or its path: `.header` (class,
    version, header chunks with their decoded values), `.body.status` and
    `.body.nodes`. Raises GbxError when the header itself is unusable; body
    problems are in `.body.status` / `.body.error`."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return parse(source)
    with open(source, "rb") as f:
        return parse(f.read())


def summary(gbx: Gbx) -> dict[str, Any]:
    """A map's, replay's or ghost's summary fields (name, author, medal times in
    ms, uid, ...), as in its folder's info.txt; {} for other classes."""
    return _summary(gbx.header)


def open_tree(path: str | os.PathLike, *, gbx: str = "folder", packlist: str | os.PathLike | None = None) -> Entry:
    """The tree a mount of `path` shows (a folder, or a single pak/GBX/GP2 file):
    Dir entries have `.children()`, File entries `.size()` and `.read(offset, size)`.
    gbx="file" shows each .Gbx as its original file instead of a folder; `packlist`
    replaces the packlist.dat next to the paks."""
    ctx = TreeContext(gbx_mode=gbx, packlist_path=os.path.abspath(packlist) if packlist else None)
    return build_tree(os.fspath(path), ctx)


def open_pak(path: str | os.PathLike, *, packlist: str | os.PathLike | None = None) -> Dir:
    """A .pak or .Pack.Gbx as a folder of its entries with their original bytes
    (the files `gbxfs extract` writes, plus the pak's own info files). Keys come
    from the packlist.dat next to it, or from `packlist`."""
    tree = open_tree(path, gbx="file", packlist=packlist)
    if not isinstance(tree, Dir):
        raise PakError(f"{os.fspath(path)}: not a pak or pack")
    return tree


def walk(tree: Entry, path: str) -> Entry:
    """The entry at `path` ("a/b/c", "" for `tree` itself) under `tree`. Raises
    NotFound or NotADir."""
    return resolve(tree, path)


def iter_files(tree: Entry, prefix: str = "") -> Iterator[tuple[str, File]]:
    """Every file under `tree` as (path, entry): a folder's files in name order,
    then its subfolders the same way; what `find` sees in a mount (body/nodes/
    of a GBX folder is opened by name, never listed)."""
    if isinstance(tree, File):
        yield prefix or tree.name, tree
        return
    assert isinstance(tree, Dir)        # an entry is a File or a Dir
    stack = [(prefix, tree)]
    while stack:
        where, folder = stack.pop()
        kids = sorted(folder.children().items())
        for name, e in reversed(kids):
            path = f"{where}/{name}" if where else name
            if isinstance(e, Dir):
                stack.append((path, e))
        for name, e in kids:
            if isinstance(e, File):     # not a Dir
                yield (f"{where}/{name}" if where else name), e


def read(entry: File) -> bytes:
    """A file entry's whole content. Raises OSError (or PakError) when it cannot
    be served, as the mount answers EIO."""
    if entry.error:
        raise OSError(f"{entry.name}: {entry.error}")
    size = entry.size()
    data = entry.read(0, size) if size else b""
    if len(data) != size:
        raise OSError(f"{entry.name}: short read ({len(data)} of {size} bytes)")
    return data
