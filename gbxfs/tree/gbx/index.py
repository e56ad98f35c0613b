"""maps.csv and replays.csv: the index of the GBX files of one folder.

A folder (real or inside a pak) whose listing holds maps gets `maps.csv`, one
holding replays or ghosts `replays.csv`: one row per file, the columns of
gbxfs/tree/gbx/summary.py, all from the file's header: a folder of 20,000 maps
indexes in seconds. The index carries no status column: a file's one status
(gbxfs/tree/gbx/status.py: info.txt, `gbxfs info`, `gbxfs coverage`) needs its
body walked, which would make reading the index as slow as reading every
file's info.txt.

Which GBX folders are maps or replays is known from the listing itself (a
pak's file record, or the file name: see class_id_of), so deciding costs
nothing. The CSV is rendered on its first
getattr or read (its size must be exact) and kept in the byte-bounded cache.

An entry of the source named like an index is never hidden: the index then
takes the next free name (`maps~2.csv`, ...).
"""
from __future__ import annotations

import csv
import functools
import io
from collections.abc import Callable, Container, Hashable, Mapping
from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.cached import CachedFile
from gbxfs.tree.gbx.summary import GHOST, MAP, MAP_COLUMNS, REPLAY, REPLAY_COLUMNS, kind, row
from gbxfs.tree.model import Entry

MAPS, REPLAYS = "maps.csv", "replays.csv"
CLASS_XATTRS = ("user.gbx.class_id", "user.pak.class_id")


@functools.cache
def _by_extension() -> dict[str, int]:
    """Lower-case file name ending ("challenge.gbx") -> the class it names (generated data)."""
    out: dict[str, int] = {}
    for cid in (MAP, REPLAY, GHOST):
        for new in (False, True):
            ext = classdb.class_extension(cid, new=new)
            if ext is not None and ext[0] == "gbx":
                out["." + ext[1].lower()] = cid
    return out


def class_id_of(name: str, entry: Entry) -> int | None:
    """The GBX class of a listed folder without any I/O: the class it carries (a
    pak's file record, an opened view), else the one its name ends with
    (X.Map.Gbx). A loose file named only X.Gbx is not indexed: telling its class
    would mean reading it while its folder is listed."""
    if not entry.is_dir:
        return None
    for x in CLASS_XATTRS:
        v = entry.xattrs.get(x)
        if v:
            try:
                return classdb.remap(int(v, 16))
            except ValueError:
                return None
    low = name.lower()
    return next((cid for ext, cid in _by_extension().items() if low.endswith(ext)), None)


def index_name(base: str, taken: Container[str]) -> str:
    stem, ext = base.rsplit(".", 1)
    name, i = base, 2
    while name in taken:
        name, i = f"{stem}~{i}.{ext}", i + 1
    return name


def index_files(kids: Mapping[str, Entry], cache: ByteLRU, key: Hashable, mtime_ns: int | None = None,
                header_of: Callable[[Entry], Any] | None = None,
                groups: dict[str, list[str]] | None = None) -> list[Entry]:
    """maps.csv / replays.csv for the listing `kids` (none when it holds no map or
    replay). `key`: unique to this listing (a new listing, a new key).
    `header_of(entry)`: the entry's parsed header or None; by default the entry's
    own `summary_header()`. `groups`: indexed_names(kids), when the caller has it."""
    if groups is None:
        groups = indexed_names(kids)
    out: list[Entry] = []
    if not groups[MAPS] and not groups[REPLAYS]:
        return out
    get = header_of or summary_header_of
    taken = _Taken(kids)
    for base, names in groups.items():
        if not names:
            continue
        columns = MAP_COLUMNS if base == MAPS else REPLAY_COLUMNS
        name = index_name(base, taken)
        taken.more.add(name)

        def make(names=tuple(names), columns=columns) -> bytes:
            return render_index(((n, get(kids[n])) for n in names), columns)
        # made when read (a header read per file): a listing leaves its size to getattr
        out.append(CachedFile(name, cache, (key, base), make, mtime_ns=mtime_ns, lazy=True))
    return out


class _Taken:
    """The names of a listing and the index names chosen for it (no copy of the listing)."""

    __slots__ = ("kids", "more")

    def __init__(self, kids: Mapping[str, Any]):
        self.kids = kids
        self.more: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self.kids or name in self.more


def index_group(name: str, entry: Entry) -> str | None:
    """MAPS or REPLAYS: the index that has a row for `entry` (called `name`), else None."""
    if not entry.is_dir:
        return None
    k = kind(class_id_of(name, entry))
    return None if k is None else MAPS if k == "map" else REPLAYS


def indexed_names(kids: Mapping[str, Entry]) -> dict[str, list[str]]:
    """MAPS / REPLAYS -> the names of the listing `kids` each index has a row for."""
    groups: dict[str, list[str]] = {MAPS: [], REPLAYS: []}
    for name, e in kids.items():
        if not e.is_dir:       # only folders are GBX files (class_id_of): every listing passes here
            continue
        k = kind(class_id_of(name, e))
        if k is not None:
            groups[MAPS if k == "map" else REPLAYS].append(name)
    return groups


def summary_header_of(entry: Entry) -> Any:
    """The parsed header an index row is made of (None: the entry has none)."""
    view = getattr(entry, "view", None)     # a file shown as a folder on first use (ViewDir)
    if view is not None:
        entry = view()
    f = getattr(entry, "summary_header", None)
    return f() if f is not None else None


def render_index(items, columns: tuple[str, ...]) -> bytes:
    """CSV text: a header row, then one row per (file name, header or None): the
    summary columns."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for name, header in items:
        # header unreadable: the file is still listed
        cells = [name] + [""] * (len(columns) - 1) if header is None else row(name, header, columns)
        w.writerow(cells)
    return buf.getvalue().encode("utf-8")
