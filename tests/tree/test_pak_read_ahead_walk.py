"""Read-ahead in a pak follows a whole-tree walk (tar, cp -r) across folders,
and a batch starts the next one halfway through, so a walk opening every file
in listing order waits for one batch only and reads every byte as written."""
from __future__ import annotations

import random
import threading

from gbxfs.formats.gbx import writer as gbx_writer
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak import ahead
from gbxfs.tree.pak.entries import PakEntryFile, PakFolder
from gbxfs.tree.root import build_tree


def _files() -> dict[str, bytes]:
    rnd = random.Random(11)
    out = {}
    for i in range(150):
        folder = f"Data/D{rnd.randrange(4)}/S{rnd.randrange(3)}"
        data = rnd.randbytes(rnd.randrange(200, 6000)).translate(bytes(0x41 + (b & 15) for b in range(256)))
        if i % 10 == 9:
            body = gbx_writer.node_body([(0x03079FF0, data, True)])
            out[f"{folder}/F{i:03}.Clip.Gbx"] = gbx_writer.build_gbx(class_id=0x03079000, body=body,
                                                                     empty_user_data=True)
        else:
            out[f"{folder}/F{i:03}.dat"] = data
    return out


def _tree(tmp_path, files):
    paks = {"P": [PakFile(path, data, compress=i % 4 != 0) for i, (path, data) in enumerate(files.items())]}
    write_packs(tmp_path, paks)
    cache = ByteLRU(64 << 20)
    root = build_tree(str(tmp_path), TreeContext(gbx_mode="file", cache=cache))
    return root.children()["P.pak"].children()["Data"], cache


def _walk(folder, path=""):
    """(folder, name, path) of every file, depth first in listing order: what tar opens."""
    for name, e in folder.children().items():
        if e.is_dir:
            yield from _walk(e, f"{path}/{name}")
        else:
            yield folder, name, f"{path}/{name}"


def test_the_walk_order_is_the_tree_walks_order(tmp_path):
    data, _ = _tree(tmp_path, _files())
    files = [(f, n) for f, n, _ in _walk(data)]
    # from a file in the middle of some folder: the rest of the walk, across folders
    folder, name = files[40]
    got = list(ahead.walk_from(folder, name))
    assert got == [f.children()[n].entry for f, n in files[40:]]


def test_a_walk_waits_for_one_batch_and_reads_every_byte(tmp_path):
    written = _files()
    data, cache = _tree(tmp_path, written)
    walk = list(_walk(data))       # every folder listed: what the cache holds before any read
    before = cache.current_bytes
    waited = started = from_memory = 0
    for folder, name, path in walk:
        assert isinstance(folder, PakFolder)
        f = folder.children()[name]
        assert isinstance(f, PakEntryFile)
        # what the FUSE layer does on open (the background batch is run at once here)
        plan = folder.read_ahead(name)
        if plan.background is not None:
            started += 1
            plan.background()
        if plan.now is not None:
            waited += 1
            plan.now()
        got = f.read(0, f.size(), wait=False)
        if got is not None:
            from_memory += 1
        else:
            got = f.read(0, f.size())
        assert got == written["Data" + path], path
        assert f.prefetch(f.size()) == []      # read to its end: nothing to prepare
    assert waited == 1
    # batches of READ_AHEAD_FILES (the files are far below READ_AHEAD_BYTES): each but the first started by a mark
    assert started == -(-len(written) // ahead.READ_AHEAD_FILES) - 1
    assert from_memory == len(written)
    # every entry read ahead was served, and left the cache
    assert cache.current_bytes == before


def test_a_mark_starts_one_batch(tmp_path):
    data, _ = _tree(tmp_path, _files())
    folder, name, _ = next(_walk(data))
    now = folder.read_ahead(name).now
    assert now is not None
    now()
    marked = [(f, n) for f, n, _ in _walk(data) if f.children()[n].entry.ahead_mark]
    assert len(marked) == 1
    f, n = marked[0]
    assert f.read_ahead(n).background is not None and f.read_ahead(n).background is None


def _entries(data):
    return [(f, n, f.children()[n].entry) for f, n, _ in _walk(data)]


def test_a_reader_waits_for_a_batch_in_flight_instead_of_decrypting_again(tmp_path, monkeypatch):
    data, _ = _tree(tmp_path, _files())
    files = _entries(data)
    folder, name, first = files[0]
    decrypted = []
    real = ahead._decrypted
    monkeypatch.setattr(ahead, "_decrypted", lambda batch: decrypted.append(list(batch)) or real(batch))
    group = folder._tree.arc.entries
    claimed = ahead._claim([e for _, _, e in files[:5]], group)     # a batch in flight holds them
    assert len(claimed) == 5
    done = threading.Event()
    now = folder.read_ahead(name).now
    assert now is not None
    reader = threading.Thread(target=lambda: (now(), done.set()))
    reader.start()
    assert not done.wait(0.2)           # waiting for the batch, not reading
    ahead._release(claimed[1:], group)
    assert not done.wait(0.1)           # its own entry is still in flight
    ahead._release(claimed[:1], group)
    assert done.wait(5)
    reader.join()
    assert decrypted == [] and not first.checked    # nothing read twice: its read verifies it


def test_a_background_batch_starts_after_a_batch_in_flight(tmp_path):
    data, _ = _tree(tmp_path, _files())
    files = _entries(data)
    group = files[0][0]._tree.arc.entries
    claimed = ahead._claim([e for _, _, e in files[:ahead.READ_AHEAD_FILES]], group)
    try:
        folder, name, _ = files[ahead.READ_AHEAD_FILES // 2]
        folder._read_ahead(name, background=True)
    finally:
        ahead._release(claimed, group)
    got = [e.checked for _, _, e in files[: 3 * ahead.READ_AHEAD_FILES]]
    # the claimed ones are left to their batch; the next READ_AHEAD_FILES are verified
    assert got == [False] * ahead.READ_AHEAD_FILES + [True] * ahead.READ_AHEAD_FILES \
        + [False] * ahead.READ_AHEAD_FILES
    assert not group.claims
