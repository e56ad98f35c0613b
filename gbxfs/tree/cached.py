"""Tree entries whose bytes and listings live in ctx.cache, not in the tree.

A tree entry lives as long as its parent folder's listing, i.e. for the whole
mount once listed. If generated files kept their bytes (or folders their
listings of thousands of chunk files), walking a folder of large maps once
would keep every chunk dump in memory for good, outside the byte-bounded
cache. These entries keep only what is needed to make their content again
(a cache key and a function) plus their size, an int, so that getattr stays
exact and cheap after the content was evicted.

make() functions must be deterministic (they re-derive the content from the
file's cached or re-done parse), so content made again is the same content.
"""
from __future__ import annotations

import errno
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.model import Dir, Entry, File
from gbxfs.tree.rows import Rows

# what one listed entry costs in memory (object, name, key tuple, xattrs), measured
# with tracemalloc on chunk folders of large maps; rounded up
ENTRY_COST = 1024
ITEM_OVERHEAD = 128
# what a row of a listing made as rows costs (tree/rows.py: its slots in three lists,
# a size, the facts its maker keeps: about 100 bytes in header/), rounded up; a maker
# that makes a row's entry adds ENTRY_COST to the listing's (ByteLRU.grow)
ROW_COST = 128

_Data = TypeVar("_Data", bound=bytes | memoryview)


class _SizedFile(File):
    __slots__ = ("_size", "_lazy")

    def __init__(self, name: str, size: int | None, xattrs: dict | None, lazy: bool = False, **kw):
        super().__init__(name, **kw)
        if xattrs is not None:
            self.xattrs = xattrs    # shared, not copied: the .txt/.bin/.xml of one chunk carry the same
        self._size = size
        self._lazy = lazy           # the size is getattr's, not a listing's (contract.py: lazy_size)

    @property
    def lazy_size(self) -> bool:
        return self._lazy and self._size is None

    def _bytes(self) -> bytes:
        raise NotImplementedError

    def _cached(self, cache: ByteLRU, key: Hashable, make: Callable[[], bytes]) -> bytes:
        """The bytes under `key`, made (and kept there) when the cache has none."""
        data = cache.get(key)
        if data is None:
            data = self._checked(bytes(make()))
            cache.put(key, data, len(data) + ITEM_OVERHEAD)
        return data

    def _checked(self, data: _Data) -> _Data:
        if self._size is None:
            self._size = len(data)
        elif len(data) != self._size:   # only if make() were not deterministic: never serve it
            raise OSError(errno.EIO, f"{self.name}: content made again has {len(data)} bytes, "
                                     f"{self._size} were announced")
        return data

    def _exact_size(self) -> int:
        return self._size if self._size is not None else len(self._bytes())

    def _known_size(self) -> int | None:
        return self._size

    def _read(self, offset: int, size: int) -> bytes:
        return self._bytes()[offset:offset + size]


class CachedFile(_SizedFile):
    """A generated file (text dump, CSV, ...) made on demand; its bytes are kept
    in the cache under `key`."""

    __slots__ = ("_cache", "_key", "_make")

    def __init__(self, name: str, cache: ByteLRU, key: Hashable, make: Callable[[], bytes], *,
                 size: int | None = None, xattrs: dict | None = None, lazy: bool = False, **kw):
        super().__init__(name, size, xattrs, lazy, **kw)
        self._cache, self._key, self._make = cache, key, make

    def _bytes(self) -> bytes:
        return self._cached(self._cache, self._key, self._make)


class KeyOwner(Protocol):
    def file_key(self, name: str) -> Hashable:
        """The cache key of its generated file `name`."""
        ...


class KeyedFile(_SizedFile):
    """A CachedFile of one of many files an owner lists (a GBX folder's): its key,
    `owner.file_key(name)`, and its bytes, `make(owner)`, are made when read, `make`
    being a function such files share (an unbound method, a module function), so
    a listing keeps no key, maker or closure per file (a walk of thousands of maps)."""

    __slots__ = ("_cache", "_owner", "_render")

    def __init__(self, name: str, cache: ByteLRU, owner: KeyOwner, make: Callable[[Any], bytes], *,
                 size: int | None = None, xattrs: dict | None = None, lazy: bool = False, **kw):
        super().__init__(name, size, xattrs, lazy, **kw)
        self._cache, self._owner, self._render = cache, owner, make

    def _bytes(self) -> bytes:
        owner = self._owner
        return self._cached(self._cache, owner.file_key(self.name), lambda: self._render(owner))


class ParsedBytesFile(_SizedFile):
    """A file whose bytes are an object the (cached) parse keeps anyway, such as
    a chunk's raw bytes or the decompressed body: fetched from the parse on
    each read, never copied into the cache a second time. `get` may return a
    memoryview (a range of the body): a read then copies only its own piece."""

    __slots__ = ("_get",)

    def __init__(self, name: str, get: Callable[[], bytes | memoryview], *, size: int | None = None,
                 xattrs: dict | None = None, lazy: bool = False, **kw):
        super().__init__(name, size, xattrs, lazy, **kw)
        self._get = get

    def _bytes(self) -> bytes | memoryview:  # type: ignore[override]  # _read() below copies a view's piece
        return self._checked(self._get())

    def _read(self, offset: int, size: int) -> bytes:
        piece = self._bytes()[offset:offset + size]
        return piece if type(piece) is bytes else bytes(piece)


class CachedDir(Dir):
    """A folder whose listing is kept in the cache (costed per entry) and made
    again by `load` after eviction. Entries made again are new objects with the
    same names, sizes and content."""

    __slots__ = ("_cache", "_listing_key")
    _load: Callable[[], Iterable[Entry]]        # always given here

    def __init__(self, name: str, cache: ByteLRU, key: Hashable, load: Callable[[], Iterable[Entry]], **kw):
        super().__init__(name, load=load, **kw)
        self._cache, self._listing_key = cache, key

    def _list(self) -> Mapping[str, Entry]:
        kids = self._cache.get(self._listing_key)
        if kids is None:
            with self._lock:
                kids = self._cache.get(self._listing_key)
                if kids is None:
                    loaded = self._load()
                    if isinstance(loaded, Rows):     # names and sizes, an entry made when asked
                        kids, cost = loaded, ROW_COST * len(loaded)
                    else:
                        kids = {c.name: c for c in loaded}
                        cost = ENTRY_COST * len(kids)
                    self._cache.put(self._listing_key, kids, cost + ITEM_OVERHEAD)
        return kids

    def _list_now(self) -> Mapping[str, Entry] | None:
        return self._cache.get(self._listing_key)

    def peek(self) -> Mapping[str, Entry] | None:
        return self._cache.get(self._listing_key)


class LazySliceSource:
    """A ByteSource over bytes that a cached parse holds (an embedded file):
    size known up front, bytes fetched from the parse on each read."""

    def __init__(self, get: Callable[[], bytes | memoryview], size: int, mtime_ns: int):
        self._get = get
        self.size = size
        self.mtime_ns = mtime_ns

    def read_at(self, offset: int, size: int) -> bytes:
        data = self._get()
        if len(data) != self.size:
            raise OSError(errno.EIO, f"embedded data made again has {len(data)} bytes, not {self.size}")
        return bytes(memoryview(data)[offset:offset + max(0, size)])
