"""Reading a pak's small entries ahead, in the order a whole-tree walk opens them.

tar, cp -r, find -exec and the like open a folder's files in listing order and
go down into each subfolder where the listing has it (depth first), so after
`name` in a folder come its later entries, then the folder's later siblings
in its parent, and so on up. One worker-thread visit verifies the next few
unread small entries in that order (crossing into folders not listed yet,
which it lists: a pak folder's listing is made from memory) and leaves their
bytes in the cache, where the FUSE layer serves them from the trio loop.

A batch marks the entry at its middle: opening that one starts the next
batch in the background (the FUSE layer does not wait for it), so the next
entries are decrypted and inflated on the other core while the first ones
are served. Decryption (pycryptodome) and zlib release the GIL.

The folder side is duck-typed (tree/pak/entries.py's PakFolder):
`ahead_items(after)` yields ("dir", folder) or ("file", PakEntry) for the
children from `after` on (all of them for None), and `ahead_parent` is the
folder it is listed in (None at the top of a pak).
"""
from __future__ import annotations

from typing import Iterator

from gbxfs.formats.pak.batch import decrypt_streams
from gbxfs.formats.pak.entry import SMALL_ENTRY, PakEntry

# what one batch verifies at most: entries and bytes (the bytes stay in the cache
# until served, so two batches in flight hold about 2 MiB)
READ_AHEAD_FILES = 32
READ_AHEAD_BYTES = 1 << 20
# entries a batch may look at, read or passed over (already verified, large,
# empty): bounds the time spent walking a tree that is mostly read already
SCAN_LIMIT = 4 * READ_AHEAD_FILES


def walk_from(folder, name: str) -> Iterator[PakEntry]:
    """The pak entries from `name` in `folder` on, in depth-first listing order,
    then those after `folder` in its parent, and so on up to the pak's top."""
    stack = [folder.ahead_items(name)]
    child = folder
    while True:
        while stack:
            for kind, item in stack[-1]:
                if kind == "file":
                    yield item
                else:
                    stack.append(item.ahead_items(None))
                    break
            else:
                stack.pop()
        parent = child.ahead_parent
        if parent is None:
            return
        items = parent.ahead_items(child.name)
        next(items, None)       # `child` itself: done above
        stack.append(items)
        child = parent


def read_ahead(folder, name: str) -> None:
    """Verify the unread small entries from `name` on into the cache (worker
    thread), and mark the middle of the batch for the next one. Entries
    already verified at the start are passed over (the background batch starts
    from the entry that triggered it); the batch stops at the first verified
    one after that (another reader covers what follows) or at its bounds.
    The batch's entries are decrypted together (formats/pak/batch.py), then
    each is verified on its own."""
    batch: list[PakEntry] = []
    budget = 0
    full = False
    for scanned, e in enumerate(walk_from(folder, name)):
        if len(batch) >= READ_AHEAD_FILES or budget >= READ_AHEAD_BYTES:
            full = True
            break
        if scanned >= SCAN_LIMIT:
            break
        if e.checked or not 0 < e.size <= SMALL_ENTRY:
            if batch and e.checked:
                break
            continue
        budget += e.size
        batch.append(e)
    for e, plain in zip(batch, _decrypted(batch)):
        try:
            e.read_ahead(plain)
        except OSError:
            break   # the pak cannot be read: the entry's own read reports it
    if full:    # more to read where this batch stopped: the next one starts halfway through
        batch[len(batch) // 2].ahead_mark = True


def _decrypted(batch: list[PakEntry]) -> list[bytes | None]:
    """Each entry's stored bytes decrypted (no folds), in as few calls as the
    pak's layout allows; None where an entry decrypts on its own."""
    streams, at = [], []
    for i, e in enumerate(batch):
        s = e.whole_stream()
        if s is not None:
            streams.append(s)
            at.append(i)
    out: list[bytes | None] = [None] * len(batch)
    if len(streams) > 1:
        for i, plain in zip(at, decrypt_streams(streams)):
            out[i] = plain
    return out


def take_mark(entry: PakEntry) -> bool:
    """True once for an entry a batch marked: its opening starts the next batch
    (event loop; the mark is cleared here, so one batch starts one more)."""
    if entry.ahead_mark:
        entry.ahead_mark = False
        return True
    return False
