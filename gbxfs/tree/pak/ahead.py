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

from collections.abc import Iterator

from gbxfs.formats.pak import SMALL_ENTRY, decrypt_streams
from gbxfs.tree.pak.entry import PakEntry
from gbxfs.tree.pak.group import EntryGroup

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


def read_ahead(folder, name: str, group: EntryGroup, background: bool = False) -> None:
    """Verify the unread small entries from `name` on into the cache (worker
    thread), and mark the middle of the batch for the next one. Entries
    already verified or claimed by a batch in flight at the start are passed
    over (a background batch starts from the entry that triggered it); the
    batch stops at the first such one after that (another reader or batch
    covers what follows) or at its bounds. The batch's entries are decrypted
    together (formats/pak/batch.py), then each is verified on its own.
    Not `background` (a reader waits for `name`): when `name` itself is in a
    batch in flight, wait for that batch to verify it rather than decrypt it
    a second time. `group`: the pak's entries' (its batches' claims)."""
    claims = group.claims
    batch: list[PakEntry] = []
    budget = 0
    full = False
    for scanned, e in enumerate(walk_from(folder, name)):
        if not scanned and not background and not e.checked and e in claims:
            _wait(e, group)
            return
        if len(batch) >= READ_AHEAD_FILES or budget >= READ_AHEAD_BYTES:
            full = True
            break
        if scanned >= SCAN_LIMIT:
            break
        taken = e.checked or e in claims
        if taken or not 0 < e.size <= SMALL_ENTRY:
            if batch and taken:
                break
            continue
        budget += e.size
        batch.append(e)
    batch = _claim(batch, group)
    if full and batch:
        # marked before verifying: a reader reaching it while this batch still runs
        # starts the next one, which passes over what this one claimed
        batch[len(batch) // 2].ahead_mark = True
    try:
        for e, plain in zip(batch, _decrypted(batch)):
            try:
                e.read_ahead(plain)
            except OSError:
                break   # the pak cannot be read: the entry's own read reports it
            finally:
                _release((e,), group)
    finally:
        _release(batch, group)


# seconds a reader waits for a batch in flight to verify its entry; afterwards its
# own read verifies it (the entry's lock keeps that to one verification)
CLAIM_WAIT = 10.0


def _claim(batch: list[PakEntry], group: EntryGroup) -> list[PakEntry]:
    """Claim the batch's entries, up to the first one another batch claimed
    since they were chosen (what is left is that batch's)."""
    with group.progress:
        for i, e in enumerate(batch):
            if e in group.claims:
                batch = batch[:i]
                break
            group.claims[e] = True
    return batch


def _release(entries, group: EntryGroup) -> None:
    """Drop the claims on `entries` (verified, or given up) and wake the waiters."""
    with group.progress:
        gone = False
        for e in entries:
            gone = group.claims.pop(e, None) is not None or gone
        if gone:
            group.progress.notify_all()


def _wait(entry: PakEntry, group: EntryGroup) -> None:
    """Until the batch that claimed `entry` is done with it (or CLAIM_WAIT)."""
    with group.progress:
        group.progress.wait_for(lambda: entry not in group.claims, CLAIM_WAIT)


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
