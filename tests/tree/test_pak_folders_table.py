"""A pak's folders made from its compact table: the same names and order as a
plain dict-of-folders build, listings that leave the cache and come back
identical, one table load however many first listings run at once, and
what a listed entry costs."""
from __future__ import annotations

import gc
import threading
import tracemalloc

import pytest

from gbxfs.formats.pak import archive, archive6
from gbxfs.formats.pak.writer import PakFile, many_files, write_packs
from gbxfs.formats.pak.writer6 import PackFile, build_pack
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak.entries import LISTED_ENTRY_COST
from gbxfs.tree.pak.names import typed_name
from gbxfs.tree.root import build_tree

GENERATED = {".pak-info.txt", "pack-info.txt", "maps.csv", "replays.csv", "error.txt"}


def _files() -> list[PakFile]:
    files = many_files(3000, seed=5, per_folder=400)
    # clashes and sub-paths between and after ordinary entries
    files[10:10] = [PakFile("Data/G000/F00/clash", b"a"),
                    PakFile("Data/G000/F00/clash/hidden.txt", b"b", folder_depth=3),
                    PakFile("Data/G000/F00/error.txt", b"c"),
                    PakFile("Data/G000/F00/x/y/z.txt", b"d", folder_depth=3),
                    PakFile("Data/G000/F00/clash", b"e")]
    files.append(PakFile("Data/G000/F00/late/sub.txt", b"f", folder_depth=3))
    files.append(PakFile("Data/G000/F03/.pak-info.txt", b"g"))
    return files


@pytest.fixture(params=[3, 18], ids=lambda v: f"v{v}")
def version(request) -> int:
    """A version 3 pak, or a version 18 pack (public files, the table under the public key)."""
    return request.param


def _mount(tmp_path, cache_bytes: int, version: int = 3):
    if not (tmp_path / "p").exists():
        if version < 6:
            write_packs(tmp_path / "p", {"X": _files()})
        else:
            (tmp_path / "p").mkdir()
            files = [PackFile(**vars(f), public=True) for f in _files()]
            (tmp_path / "p" / "X.Pack.Gbx").write_bytes(build_pack(files, version=version, header_flags=2))
    ctx = TreeContext(gbx_mode="file")
    ctx.cache = ByteLRU(cache_bytes)
    return build_tree(str(tmp_path / "p"), ctx).children()["X.pak" if version < 6 else "X.Pack.Gbx"], ctx


def _listing(d, prefix="") -> dict[str, int | None]:
    """path -> size (None for folders), generated files left out."""
    out = {}
    for name, e in d.children().items():
        if name in GENERATED and not prefix.startswith("Data/"):
            continue
        if e.is_dir:
            out[prefix + name] = None
            out.update(_listing(e, f"{prefix}{name}/"))
        elif name not in {"maps.csv", "replays.csv"}:
            out[prefix + name] = e.size()
    return out


def _reference(files: list[PakFile], version: int = 3) -> dict[str, int | None]:
    """The listing a dict-of-folders build gives: folders first in folder-table
    order, then files in table order, later clashes renamed "~N"."""
    root: dict = {}
    reserved_root, reserved = {".pak-info.txt" if version < 6 else "pack-info.txt", "error.txt"}, {"error.txt"}

    def unique(d, name, res):
        if name not in d and name not in res:
            return name
        i = 2
        while f"{name}~{i}" in d or f"{name}~{i}" in res:
            i += 1
        return f"{name}~{i}"

    folders: dict[tuple, dict] = {(): root}

    def node(parts):
        for k in range(1, len(parts) + 1):
            if parts[:k] not in folders:
                parent = folders[parts[:k - 1]]
                sub = folders[parts[:k]] = {}
                parent[unique(parent, parts[k - 1], reserved_root if k == 1 else reserved)] = sub
        return folders[parts]

    for f in files:     # the writer's folder table: each file's folders, in file order
        parts = f.path.split("/")
        node(tuple(parts[:len(parts) - 1 if f.folder_depth is None else f.folder_depth]))
    for f in files:
        parts = tuple(f.path.split("/"))
        d = node(parts[:-1])
        name = typed_name(parts[-1], 0, version) or parts[-1]
        d[unique(d, name, reserved_root if len(parts) == 1 else reserved)] = len(f.data)

    out = {}

    def flat(d, prefix):
        for k, v in d.items():
            if isinstance(v, dict):
                out[prefix + k] = None
                flat(v, f"{prefix}{k}/")
            else:
                out[prefix + k] = v
    flat(root, "")
    return out


def test_listing_matches_a_plain_build_and_comes_back_identical_after_eviction(tmp_path, monkeypatch, version):
    big, big_ctx = _mount(tmp_path, 256 << 20, version)
    first = _listing(big)
    assert first == _reference(_files(), version)
    assert list(first) == list(_reference(_files(), version))          # the order too
    assert first["Data/G000/F00/clash"] == 1 and first["Data/G000/F00/clash~2"] is None
    assert first["Data/G000/F00/clash~3"] == 1 and first["Data/G000/F00/error.txt~2"] == 1
    # a cache far smaller than the table and its listings: the listings are evicted and made
    # again; the table, which the cache cannot keep, is held beside it (counted as memory
    # in use) and read once, not once per folder listed
    small, ctx = _mount(tmp_path, 64 << 10, version)
    reads = _count_header_reads(monkeypatch, version)
    assert _listing(small) == first and list(_listing(small)) == list(first)
    assert ctx.cache.current_bytes <= 64 << 10
    arc = small.view()._tree.arc
    assert arc.table_loads == 1 and len(reads) == 1      # decrypted when the pak was opened, only
    assert ctx.cache.held_bytes >= arc.files.nbytes
    assert big.view()._tree.arc.table_loads == 1


def _count_header_reads(monkeypatch, version: int) -> list:
    """A list that grows by one per pak header (and file table) decrypted."""
    calls = []
    module, name = (archive, "read_header") if version < 6 else (archive6, "read_table")
    real = getattr(module, name)

    def counted(*a, **kw):
        calls.append(1)
        return real(*a, **kw)
    monkeypatch.setattr(module, name, counted)
    return calls


def test_concurrent_first_opens_share_one_table_load(tmp_path, monkeypatch, version):
    """Eight threads list a pak nobody opened yet: one of them reads its table."""
    pak, _ = _mount(tmp_path, 256 << 20, version)      # a view not built yet: the pak is opened by a listing
    calls = _count_header_reads(monkeypatch, version)
    barrier = threading.Barrier(8)
    got = []

    def ls():
        barrier.wait()
        got.append(sorted(pak.children()["Data"].children()["G000"].children()))
    threads = [threading.Thread(target=ls) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all(g == got[0] for g in got)
    assert len(calls) == 1


def test_evicted_table_is_read_once_for_concurrent_listings(tmp_path, monkeypatch, version):
    pak, ctx = _mount(tmp_path, 1 << 20, version)
    folders = list(pak.children()["Data"].children()["G000"].children().values())
    calls = _count_header_reads(monkeypatch, version)
    ctx.cache.put("filler", b"", ctx.cache.max_bytes - 64, costly=True)     # evicts table, index, listings
    barrier = threading.Barrier(len(folders))

    def ls(d):
        barrier.wait()
        d.children()
    threads = [threading.Thread(target=ls, args=(d,)) for d in folders]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1


def test_a_listed_entry_costs_what_the_cache_is_told(tmp_path, version):
    pak, ctx = _mount(tmp_path, 256 << 20, version)
    folders = list(pak.children()["Data"].children()["G000"].children().values())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cached = ctx.cache.current_bytes
        n = sum(len(d.children()) for d in folders)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert n > 2000
    assert kept <= ctx.cache.current_bytes - cached
    assert kept / n <= LISTED_ENTRY_COST


def test_lookup_finds_a_file_without_scanning_its_siblings(tmp_path, monkeypatch, version):
    """A lookup answers from the listing: only error.txt needs every file's error."""
    from gbxfs.tree.pak import entries
    pak, _ = _mount(tmp_path, 64 << 20, version)
    folder = pak.children()["Data"].children()["G000"].children()["F00"]
    kids = folder.children()
    scanned = []
    real = entries._pak_entry
    monkeypatch.setattr(entries, "_pak_entry", lambda e: scanned.append(e) or real(e))
    for name, entry in kids.items():
        if name != "error.txt":
            assert folder.child(name) is entry
    assert folder.child("no such file") is None
    assert scanned == []
    found = folder.child("error.txt")
    assert (found is None) == ("error.txt" not in kids)


def test_a_listed_sub_folder_is_what_the_initialiser_makes(tmp_path):
    """PakFolder.listed (the listing's own way to make its sub-folders) leaves every
    slot as PakFolder(...) does, and the sub-folder lists the same entries."""
    from gbxfs.tree.pak.entries import PakFolder
    root, _ = _mount(tmp_path, 64 << 20)
    data = root.children()["Data"]
    listed = data.children()["G000"]
    assert type(listed) is PakFolder and listed.ahead_parent is data
    made = PakFolder(listed.name, listed._tree, listed._node, cheap=listed._cheap, mtime_ns=listed.mtime_ns)
    made.ahead_parent = data
    slots = [s for cls in type(made).__mro__ for s in getattr(cls, "__slots__", ()) if s != "__weakref__"]
    assert "_lock" in slots and "_key" in slots
    for s in slots:
        a, b = getattr(listed, s), getattr(made, s)
        if s == "_lock":
            assert type(a) is type(b) and a is not b and not a.locked()
        else:
            assert a == b, s
    assert list(made.children()) == list(listed.children())


def test_only_folders_named_like_gbx_files_can_make_an_index(tmp_path):
    """A pak folder named like a map file is indexed by name in maps.csv (as
    tree/gbx/index.py does for any folder); a folder without such a name is not."""
    write_packs(tmp_path / "p", {"X": [PakFile("A/Track.Challenge.Gbx/readme.txt", b"x"),
                                       PakFile("B/Track.Challenge/readme.txt", b"y")]})
    ctx = TreeContext(gbx_mode="file")
    ctx.cache = ByteLRU(16 << 20)
    pak = build_tree(str(tmp_path / "p"), ctx).children()["X.pak"]
    assert "maps.csv" in pak.children()["A"].children()
    assert set(pak.children()["B"].children()) == {"Track.Challenge"}
