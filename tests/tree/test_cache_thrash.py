"""A cache smaller than the working set degrades gracefully: parses (made by
get_or_make, expensive to make again) outlive rendered bytes (put, cheap), so
alternating reads of the chunk files of two maps parse each body once, and the
byte bound holds all the while. When even the two parses cannot both be kept,
the bodies' digests (durable: listings and rendered chunk texts, see
gbxfs/tree/gbx/digest.py) still bound the parses to two per map."""
from __future__ import annotations

import gc

import pytest

from gbxfs.tree import cache as cache_mod
from gbxfs.tree.cache import COSTLY, DURABLE, ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import parse as gbx_parse
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.source import FileSource
from corpusdata import manifest_rows

MAPS = ("A01-Race", "B13-Obstacle")


def _map_path(needle: str) -> str:
    return next(r["path"] for r in manifest_rows() if r["kind"] == "map" and needle in r["path"])


def _chunk_files(d):
    """Every file under body/nodes (chunk dumps .txt and raw .bin), by path."""
    out = []

    def walk(e, prefix):
        for name, c in e.children().items():
            if c.is_dir:
                walk(c, prefix + name + "/")
            else:
                out.append(prefix + name)
    walk(d.children()["body"].child("nodes"), "")
    return out


def _open(corpus, needle, ctx):
    path = _map_path(needle)
    return open_gbx(path.rsplit("/", 1)[-1], FileSource(str(corpus / path)), ctx)


def _read(d, rel):
    e = d.children()["body"].child("nodes")
    for part in rel.split("/"):
        e = e.children()[part]
    return e.read(0, 1 << 20)


@pytest.mark.corpus
def test_alternating_chunk_reads_of_two_maps_parse_each_body_once(corpus, monkeypatch):
    # 1) with a roomy cache: what the two parses cost and what everything costs
    roomy = TreeContext(cache=ByteLRU(1 << 40))
    maps = [_open(corpus, n, roomy) for n in MAPS]
    files = [_chunk_files(d) for d in maps]
    expected = [{f: _read(d, f) for f in fs} for d, fs in zip(maps, files)]
    parses = roomy.cache.costly_bytes
    everything = roomy.cache.current_bytes
    # 2) a cache that holds both parses (within their share) but not every rendered file
    bound = int(parses / cache_mod.COSTLY_SHARE) + 4096
    assert bound < everything, "the maps' rendered files all fit: the test would prove nothing"
    ctx = TreeContext(cache=ByteLRU(bound))
    maps = [_open(corpus, n, ctx) for n in MAPS]
    calls = []
    real = gbx_parse.read_body
    monkeypatch.setattr(gbx_parse, "read_body", lambda *a, **k: calls.append(1) or real(*a, **k))
    reads = _read_in_turn(maps, files, expected, ctx, bound)
    assert reads > 100
    assert len(calls) == 2, f"{len(calls)} body parses for {reads} alternating reads"


def _read_in_turn(maps, files, expected, ctx, bound) -> int:
    """Read every chunk file of the maps in turn, file by file (A, B, A, B, ...),
    then folder by folder three times; check each read's bytes and the bound."""
    reads = 0

    def read(m, f):
        nonlocal reads
        assert _read(maps[m], f) == expected[m][f]
        reads += 1
        assert ctx.cache.current_bytes <= bound

    for i in range(max(map(len, files))):
        for m, fs in enumerate(files):
            if i < len(fs):
                read(m, fs[i])
    for _ in range(3):
        for m, fs in enumerate(files):
            for f in fs:
                read(m, f)
    return reads


@pytest.mark.corpus
def test_two_parses_that_cannot_both_be_kept_are_made_at_most_twice_each(corpus, monkeypatch):
    # what each map's parse costs alone, and every file's bytes (from a roomy cache)
    costs, expected, files = [], [], []
    for n in MAPS:
        roomy = TreeContext(cache=ByteLRU(1 << 40))
        d = _open(corpus, n, roomy)
        files.append(_chunk_files(d))
        expected.append({f: _read(d, f) for f in files[-1]})
        costs.append(roomy.cache.rank_bytes(COSTLY))
    # room for the larger parse and a little more, not for both parses
    bound = max(costs) + 64 * 1024
    assert bound < sum(costs)
    ctx = TreeContext(cache=ByteLRU(bound))
    maps = [_open(corpus, n, ctx) for n in MAPS]
    calls = []
    real = gbx_parse.walk_body
    monkeypatch.setattr(gbx_parse, "walk_body", lambda *a, **k: calls.append(1) or real(*a, **k))
    files = [_chunk_files(d) for d in maps]
    reads = _read_in_turn(maps, files, expected, ctx, bound)
    assert reads > 700
    # Per map: one walk to list body/nodes (its digest), and at most one more: the
    # first chunk text read once that parse was evicted makes it again and renders
    # every chunk text into the digest, which the cache keeps over parses.
    assert len(calls) <= 2 * len(MAPS), f"{len(calls)} body parses for {reads} reads in turn"
    assert ctx.cache.rank_bytes(DURABLE) > 0


def test_durable_values_stay_and_a_value_that_needs_their_room_is_not_kept():
    cache = ByteLRU(100)
    cache.get_or_make("d1", lambda: ("D1", 20), rank=DURABLE)
    cache.get_or_make("p1", lambda: ("P1", 50))
    cache.put("x", "x", 20)                              # 90 in all
    cache.get_or_make("p2", lambda: ("P2", 60))          # past the costly share: p1 (LRU) goes
    assert [k for k in ("d1", "p1", "p2", "x") if cache.get(k) is not None] == ["d1", "p2", "x"]
    assert cache.current_bytes == 100
    # a parse that would fit only by evicting d1: made and returned, not kept, nothing evicted
    assert cache.get_or_make("p3", lambda: ("P3", 81)) == "P3"
    assert [k for k in ("d1", "p2", "p3", "x") if cache.get(k) is not None] == ["d1", "p2", "x"]
    cache.put("y", "y", 81)                              # the same for a rendered value
    assert cache.get("y") is None and cache.current_bytes == 100
    cache.put("z", "z", 80)                              # this one fits beside d1: all else goes
    assert [k for k in ("d1", "p2", "x", "z") if cache.get(k) is not None] == ["d1", "z"]
    cache.reserve(60)                                    # room for a walk: the cheap value goes first
    assert cache.get("d1") == "D1" and cache.get("z") is None and cache.current_bytes == 20
    cache.reserve(100)                                   # a walk of the whole bound: durable ones go too
    assert cache.get("d1") is None and cache.current_bytes == 0


def test_durable_values_past_their_share_go_least_recent_first():
    cache = ByteLRU(100)
    cache.put("x", "x", 10)
    cache.get_or_make("d1", lambda: ("D1", 30), rank=DURABLE)
    cache.get_or_make("d2", lambda: ("D2", 30), rank=DURABLE)     # 60 durable: past the 50 share
    assert cache.current_bytes == 70                     # within the bound: nothing goes yet
    cache.get("d1")
    cache.put("y", "y", 40)                              # 110: d2, the older durable one, goes
    assert [k for k in ("x", "d1", "d2", "y") if cache.get(k) is not None] == ["x", "d1", "y"]
    assert cache.current_bytes == 80


def test_grow_counts_what_a_cached_value_took_in():
    cache = ByteLRU(100)
    cache.get_or_make("d", lambda: ("D", 10), rank=DURABLE)
    cache.put("x", "x", 30)
    cache.put("y", "y", 30)
    cache.grow("d", 40)                                  # 110: x, the oldest cheap one, goes
    assert [k for k in ("d", "x", "y") if cache.get(k) is not None] == ["d", "y"]
    assert cache.current_bytes == 80 and cache.rank_bytes(DURABLE) == 50
    cache.grow("gone", 1000)                             # not cached: nothing to count
    assert cache.current_bytes == 80
    cache.grow("d", 60)                                  # larger than the whole cache: dropped
    assert cache.get("d") is None and cache.current_bytes == 30


def test_cheap_values_go_before_costly_ones_within_the_bound():
    cache = ByteLRU(100)
    cache.get_or_make("parse", lambda: ("P", 40))        # costly
    for k in "abc":
        cache.put(k, k, 20)                              # cheap: 100 in all
    cache.get("a")
    cache.put("d", "d", 20)                              # b, the oldest cheap one, goes
    assert cache.get("parse") == "P" and cache.get("b") is None
    assert cache.current_bytes == 100
    cache.put("e", "e", 50)                              # c, a and d go; the parse stays
    assert [k for k in ("parse", "a", "c", "d", "e") if cache.get(k) is not None] == ["parse", "e"]
    assert cache.current_bytes == 90


def test_past_their_share_costly_values_are_evicted_least_recent_first():
    cache = ByteLRU(100)
    cache.put("x", "x", 10)
    cache.get_or_make("p1", lambda: ("1", 40))
    cache.get("x")
    cache.get_or_make("p2", lambda: ("2", 55))           # 105 over the bound, 95 over the 90 share:
    assert cache.get("p1") is None and cache.get("x") == "x" and cache.get("p2") == "2"   # LRU: p1 goes
    assert cache.current_bytes == 65 and cache.costly_bytes == 55
    cache.put("y", "y", 40)                              # 105 again, 55 within the share: x goes
    assert cache.get("x") is None and cache.get("p2") == "2" and cache.current_bytes == 95
    cache.put("flush", None, 100)                        # a value of the whole bound: all else goes
    assert cache.get("p2") is None and cache.get("y") is None and cache.current_bytes == 100
    cache.reserve(30)                                    # no loop when only cheap values are left
    assert cache.current_bytes == 0


def test_values_being_made_count_inside_the_bound():
    """The room held for a body walk (making) is memory the process holds: the
    cache makes it by evicting, least recent first (durable values last), and
    values stored while it is held keep to what is left. Walks run one at a time
    (tests/tree/test_work_in_flight.py shows it with threads)."""
    cache = ByteLRU(100)
    cache.get_or_make("d1", lambda: ("D", 20), rank=DURABLE)
    cache.get_or_make("p1", lambda: ("1", 30))
    cache.get_or_make("p2", lambda: ("2", 30))
    cache.put("x", "x", 20)
    cache.get("p1")
    with cache.making(40):          # x goes, then p2 (the older parse): 20 + 30 + 40 <= 100
        assert [k for k in ("d1", "p1", "p2", "x") if cache.get(k) is not None] == ["d1", "p1"]
        cache.put("y", "y", 10)     # 60 + 40 in flight: fits
        cache.put("z", "z", 10)     # past it: y, the only cheap value, goes
        assert [k for k in ("p1", "y", "z") if cache.get(k) is not None] == ["p1", "z"]
        assert cache.current_bytes + 40 <= 100
    with cache.making(50):          # the next walk, larger: z goes
        assert cache.current_bytes + 50 == 100 and cache.get("z") is None
        cache.put("v", "v", 10)     # no cheap value left to give way: p1 goes
        assert cache.get("p1") is None and cache.current_bytes + 50 <= 100
    cache.put("w", "w", 50)         # nothing in flight: the whole bound again
    assert cache.current_bytes == 80
    with cache.making(200):         # larger than the cache: it empties, durable values too
        assert cache.current_bytes == 0 and cache.get("d1") is None


def test_a_made_value_not_kept_counts_until_it_is_garbage():
    """A parse too large to keep beside the digests is still in memory while its
    caller uses it: held, it leaves that room in the bound; kept, it counts once."""
    class Parse:                   # a made value (weakly referable, as ParsedBody)
        pass

    cache = ByteLRU(100)
    cache.get_or_make("d1", lambda: ("D", 50), rank=DURABLE)

    def make(nbytes):
        def run():
            value = Parse()
            cache.hold(value, nbytes)          # what GbxParse._make_body does
            return value, nbytes
        return run

    kept = cache.get_or_make("p1", make(30))  # fits beside d1: counted in the cache only
    assert cache.get("p1") is kept and cache.held_bytes == 0 and cache.current_bytes == 80
    big = cache.get_or_make("p2", make(60))   # would need d1's room: not kept, still held
    assert cache.get("p2") is None and cache.held_bytes == 60
    assert cache.get("p1") is None            # room was made for the held one: p1 went,
    assert cache.get("d1") is None            # and d1 too (50 + 60 held pass the bound)
    cache.put("x", "x", 40)                   # 40 + 60 held: fits
    cache.put("y", "y", 10)                   # past it: x goes
    assert cache.get("x") is None and cache.get("y") == "y"
    del big
    gc.collect()
    assert cache.held_bytes == 0
    cache.put("x", "x", 40)                   # the held room is free again
    assert cache.get("x") == "x" and cache.get("y") == "y"


# made from a replay's ghosts, a costly value of their own (not from the digest)
GHOST_FILES = ("ghost.csv", "ghost.txt", "ghost.svg", "inputs.csv", "inputs.txt", "ghosts", "info.txt")


def _everything(d, prefix=""):
    """Every file under a GBX folder -> its bytes; of a nested GBX folder (an
    embedded map or item: a new source, parsed on its own) only original.gbx."""
    out = {}
    for name, e in d.children().items():
        if prefix == "" and name in GHOST_FILES and "Replay" in d.name:
            continue
        if e.is_dir and name.lower().endswith(".gbx"):
            out[prefix + name + "/original.gbx"] = e.children()["original.gbx"].read(0, 1 << 30)
        elif e.is_dir:
            out.update(_everything(e, prefix + name + "/"))
        else:
            out[prefix + name] = e.read(0, 1 << 30)
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("needle", ["Bruno_B13-Obstacle.Replay", "Simple TECH 1.Map"])
def test_once_digested_a_gbx_folder_is_listed_and_read_without_its_parse(corpus, monkeypatch, needle):
    """With only the body's digest left in the cache (parses and rendered bytes
    evicted), the folder and body/nodes/ list again, and info.txt, nodes.txt,
    every chunk file and embedded/ (a replay's map, a map's items.zip and
    items/) read the same bytes, without a body parse. (A replay's ghost files
    come from its ghosts, cached apart.)"""
    path = next(r["path"] for r in manifest_rows() if needle in r["path"])
    src = FileSource(str(corpus / path))
    ctx = TreeContext(cache=ByteLRU(256 << 20))
    name = path.rsplit("/", 1)[-1]

    def walk():
        d = open_gbx(name, src, ctx)          # a new folder over the same source: nothing listed
        files = _everything(d)
        nodes = d.children()["body"].child("nodes")
        files.update(("body/nodes/" + k, v) for k, v in _everything(nodes).items())
        files.update(("embedded/" + k, v) for k, v in _everything(d.child("embedded")).items())
        return files

    before = walk()
    assert any(k.startswith("body/nodes/") for k in before) and any(k.startswith("embedded/") for k in before)
    durable = ctx.cache.rank_bytes(DURABLE)
    assert durable > 0
    # a costly value of all the room the digests leave: every parse and rendered byte goes
    ctx.cache.put(("flush",), None, ctx.cache.max_bytes - durable, costly=True)
    ctx.cache.discard(("flush",))
    assert ctx.cache.current_bytes == durable
    calls = []
    real = gbx_parse.walk_body
    monkeypatch.setattr(gbx_parse, "walk_body", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert walk() == before
    assert calls == []


def test_values_are_made_one_at_a_time():
    """Body walks hold their objects while they run: a second walk waits until
    the first one leaves, however small both are, and then goes."""
    import threading
    cache = ByteLRU(100)
    entered, leave = threading.Event(), threading.Event()

    def other():
        with cache.making(1):
            entered.set()
            leave.wait(60)

    with cache.making(1):                      # tiny, far inside the bound: still alone
        t = threading.Thread(target=other)
        t.start()
        assert not entered.wait(0.5)           # the other walk waits for this one
    assert entered.wait(60)                    # and goes once it has left
    t2_entered = threading.Event()

    def third():
        with cache.making(1):
            t2_entered.set()

    t2 = threading.Thread(target=third)
    t2.start()
    assert not t2_entered.wait(0.5)            # the other walk now holds the turn
    leave.set()
    t.join(60)
    t2.join(60)
    assert t2_entered.is_set()


def test_the_room_of_a_value_being_made_grows_as_it_counts():
    """A walk that finds itself larger than its room (making's grow) makes the
    cache evict for the difference, and gives all of it back at the end."""
    cache = ByteLRU(100)
    for k in "abc":
        cache.put(k, k, 20)
    with cache.making(30) as grow:               # 60 + 30 fits
        assert cache.current_bytes == 60 and cache.held_bytes == 30
        grow(35)                                 # 65 in flight: a goes, then b (least recent first)
        assert [k for k in "abc" if cache.get(k) is not None] == ["c"]
        assert cache.held_bytes == 65 and cache.current_bytes + 65 <= 100
    assert cache.held_bytes == 0
