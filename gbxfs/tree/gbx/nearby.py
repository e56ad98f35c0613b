"""The files a GBX file refers to by path, found in the same mount: in the same
real folder tree (walked through the tree from the mount's top folder, so the
files found are the ones the mount shows) or in the same pak (its file table).

    place = place_of(source, ctx)      # None: the file is in neither (an embedded file)
    src, parts = place.find("../Textures/Rocket_D.dds")

Names match as the games match them: exactly, else ignoring case. A path that
climbs above the mount's top folder (or the pak's) is not followed. A file of a
real folder is used only when everyone may read it and every folder on its way
below the top is searchable by everyone: what is found goes into a file other
callers read, so it must be what any caller could read (like maps.csv).
Nothing here runs when a folder is listed: only when a derived file is read.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from gbxfs.tree.acl import open_to_all
from gbxfs.tree.model import Dir, Entry, SourceFile
from gbxfs.tree.source import ByteSource, FileSource


class NotReachable(Exception):
    """A referenced file that cannot be used, and why."""


def split_path(folder: tuple[str, ...], rel: str) -> tuple[str, ...]:
    """`rel` ('/' or '\\' separated, '..' goes up) from `folder`, as names from the top."""
    out = list(folder)
    for name in rel.replace("\\", "/").split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if not out:
                raise NotReachable(f"{rel}: climbs above the top folder of the mount (or pak)")
            out.pop()
        else:
            out.append(name)
    if not out:
        raise NotReachable(f"{rel}: names no file")
    return tuple(out)


def _child(d: Entry, name: str) -> Entry | None:
    if not isinstance(d, Dir):
        return None
    e = d.child(name)
    if e is not None:
        return e
    folded = name.casefold()
    return next((e for n, e in d.children().items() if n.casefold() == folded), None)


class _TreeFiles:
    """Files of the real folder tree under the mount's top folder."""

    def __init__(self, root: Dir):
        self.root = root

    def lookup(self, parts: tuple[str, ...]) -> tuple[ByteSource, tuple[str, ...]]:
        try:
            return self._lookup(parts)
        except OSError as e:        # a folder that vanished or cannot be read meanwhile
            raise NotReachable(f"{'/'.join(parts)}: {e.strerror or e}") from None

    def _lookup(self, parts: tuple[str, ...]) -> tuple[ByteSource, tuple[str, ...]]:
        d: Entry | None
        d = self.root
        found: list[str] = []
        for i, name in enumerate(parts[:-1]):
            d = _child(d, name)
            where = "/".join(parts[: i + 1])
            if d is None or not d.is_dir:
                raise NotReachable(f"{'/'.join(parts)}: no folder {where} in the mount")
            if not open_to_all(d.access, 0o1):
                raise NotReachable(f"{'/'.join(parts)}: folder {where} is not searchable by everyone")
            found.append(d.name)
        e = _child(d, parts[-1])
        if e is None:
            raise NotReachable(f"{'/'.join(parts)}: not found in the mount")
        src = e.source if isinstance(e, SourceFile) else getattr(e, "source", None)
        if src is None:
            raise NotReachable(f"{'/'.join(parts)}: a folder, not a file")
        if not open_to_all(getattr(src, "access", None), 0o4):
            raise NotReachable(f"{'/'.join(parts)}: not readable by everyone")
        return src, (*found, e.name)


class _PakFiles:
    """Files of one pak, by the paths of its file table."""

    def __init__(self, arc: Any, source: Any):
        self.arc = arc
        self.kind, self.mtime_ns = type(source), source.mtime_ns    # sources of its entries: the same kind

    def lookup(self, parts: tuple[str, ...]) -> tuple[ByteSource, tuple[str, ...]]:
        # loaded already: the source is a pak's
        from gbxfs.formats.pak import PakError
        try:
            return self._lookup(parts)
        except PakError as e:
            raise NotReachable(f"{'/'.join(parts)}: the pak cannot give it: {e.reason}") from None

    def _lookup(self, parts: tuple[str, ...]) -> tuple[ByteSource, tuple[str, ...]]:
        table = self.arc.files
        want = tuple(p.casefold() for p in parts)
        folders = {f.index for f in table.folders
                   if len(f.parts) < len(want) and tuple(p.casefold() for p in f.parts) == want[:len(f.parts)]}
        exact = None
        for i, f in enumerate(table.folder):
            if f in folders:
                rec = table[i]
                if rec.parts == parts:
                    exact = rec
                    break
                if exact is None and tuple(p.casefold() for p in rec.parts) == want:
                    exact = rec
        if exact is None:
            raise NotReachable(f"{'/'.join(parts)}: not found in the pak")
        return self.kind(self.arc.entry(exact), self.mtime_ns, archive=self.arc), exact.parts


@dataclass(frozen=True)
class Place:
    """A folder of the mount (or of a pak) that relative paths start from."""
    files: Any                      # _TreeFiles | _PakFiles
    folder: tuple[str, ...]

    def find(self, rel: str, from_data_root: bool = False) -> tuple[ByteSource, tuple[str, ...]]:
        """The file `rel` names and its names from the top (as the mount shows them:
        the case may differ). `from_data_root`: a path from the data folder, which
        is this folder or one above it (nearest first)."""
        if not from_data_root:
            return self.files.lookup(split_path(self.folder, rel))
        first: NotReachable | None = None
        for k in range(len(self.folder), -1, -1):
            try:
                return self.files.lookup(split_path(self.folder[:k], rel))
            except NotReachable as e:
                first = first or e
        raise first or NotReachable(f"{rel}: not found")

    def moved(self, parts: tuple[str, ...]) -> Place:
        """The place of the file `parts` names (its folder)."""
        return Place(self.files, parts[:-1])


def place_of(source: ByteSource, ctx: Any) -> Place | None:
    """Where `source` sits in the mount, None when it is in no folder tree or pak
    (an embedded file, a file mounted alone)."""
    arc = getattr(source, "archive", None)
    entry = getattr(source, "entry", None)
    if arc is not None and entry is not None:
        return Place(_PakFiles(arc, source), tuple(entry.rec.parts[:-1]))
    root = getattr(ctx, "root", None)
    top = getattr(root, "path", None)
    if isinstance(source, FileSource) and isinstance(root, Dir) and top is not None:
        rel = os.path.relpath(os.path.dirname(source.path), top)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            return None
        return Place(_TreeFiles(root), () if rel == os.curdir else tuple(rel.split(os.sep)))
    return None
