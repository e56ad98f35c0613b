"""header/ as rows (tree/gbx/headerfiles.py): the files of the header chunks, named
and sized from the header, an entry made only when a request names one."""
from __future__ import annotations

import pytest

from corpusdata import manifest_rows
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.cached import ENTRY_COST
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.headerfiles import LISTING
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.rows import LAZY, Rows
from gbxfs.tree.source import FileSource

pytestmark = pytest.mark.corpus


def _map(corpus, cache: ByteLRU):
    path = next(r["path"] for r in manifest_rows() if r["kind"] == "map" and "A01-Race" in r["path"])
    return open_gbx(path.rsplit("/", 1)[-1], FileSource(str(corpus / path)), TreeContext(cache=cache))


def test_header_rows_name_and_size_every_file_without_making_it(corpus):
    cache = ByteLRU(64 << 20)
    folder = _map(corpus, cache)
    rows = folder.children()["header"].children()
    assert isinstance(rows, Rows) and not rows.made()
    txt = [n for n in rows.names if n.endswith(".txt")]
    assert txt and len(txt) == sum(n.endswith(".bin") for n in rows.names)
    assert all(rows.sizes[rows.position(n)] == LAZY for n in txt)
    cost = cache._items[folder._key(LISTING)][1]
    for i, n in enumerate(rows.names):
        e = rows.at(i)
        assert e.name == n and (e.lazy_size if rows.sizes[i] == LAZY else e.size() == rows.sizes[i])
        assert e.xattrs["user.gbx.chunk_id"] == n[:8].encode() and int(e.xattrs["user.gbx.offset"]) > 0
        assert e.read(0, e.size())      # made again from the header when read
    # each entry made stays with the rows: the listing's cost counts it
    assert cache._items[folder._key(LISTING)][1] == cost + ENTRY_COST * len(rows.names)


def test_header_rows_are_the_same_after_eviction(corpus):
    cache = ByteLRU(64 << 20)
    header = _map(corpus, cache).children()["header"]
    first = header.children()
    sizes = {n: first.at(i).size() for i, n in enumerate(first.names)}
    cache.discard(next(k for k in cache._items if k[-1] == LISTING))
    again = header.children()
    assert again is not first and again.names == first.names and again.sizes == first.sizes
    assert {n: again.at(i).size() for i, n in enumerate(again.names)} == sizes
