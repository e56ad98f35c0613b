"""GP2 track files (F1CTxx.DAT) as folders of decoded sections.

API for the opener registry (gbxfs/tree/openers.py):

    probe(name, source) -> bool           should this file be shown as a GP2 folder?
    open_gp2(name, source, ctx) -> Dir    the folder (lazy: decodes on first listing)

`probe` is cheap for everything that is not GP2: a `.dat` name check, then
one 32-byte read of the offset table at 0x1000 checked against the file
size. Only a file that passes (in practice: a GP2 track) is read whole (at
most MAX_TRACK_SIZE) and walked structurally, so that a broken track is
answered False and stays a plain file, as docs/formats/mount.md says. F1GP (GP1)
tracks and other .dat files fail the 32-byte check.

The folder lists original.dat, info.txt, the CSV/text renderings of
gbxfs.formats.gp2.folder, and sections/NN.<name>.bin, the raw regions in
file order (their concatenation is original.dat). Renderings are produced
on first read of each file. For `gbxfs info`, use
gbxfs.formats.gp2.describe(data).

The decoded track and the renderings live in ctx.cache, not in the tree
(see gbxfs/tree/cached.py): a listed folder keeps names and sizes only, so browsing
a thousand tracks does not keep a thousand tracks in memory.
"""
from __future__ import annotations

import functools

from gbxfs.formats.gp2 import TABLE_AT, TABLE_SIZE, Gp2Error, decode, folder_files, looks_like_gp2, section_files
from gbxfs.tree.cached import CachedFile, ParsedBytesFile
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import Dir, Entry, SourceFile
from gbxfs.tree.source import ByteSource, read_all

SUFFIX = ".dat"
# Real tracks are 30-50 KB; the format's offsets are u32, but anything this
# large is not a track the game could load, so it is not read whole.
MAX_TRACK_SIZE = 8 * 1024 * 1024
# memory a decoded track keeps per byte of file (sector and command objects),
# measured on the corpus tracks with tracemalloc (about 6), rounded up
TRACK_COST_PER_BYTE = 10


def probe(name: str, source: ByteSource) -> bool:
    if not name.lower().endswith(SUFFIX) or source.size > MAX_TRACK_SIZE:
        return False
    if not looks_like_gp2(source.read_at(TABLE_AT, TABLE_SIZE), source.size):
        return False
    try:
        decode(read_all(source, MAX_TRACK_SIZE))
    except Gp2Error:
        return False
    return True


def open_gp2(name: str, source: ByteSource, ctx: TreeContext) -> Dir:
    """The track folder. Raises Gp2Error on first listing if the file is not
    (or no longer) a valid GP2 track; the registry's ViewDir turns that
    into error.txt + the original bytes."""
    return Dir(name, load=lambda: _entries(source, ctx), mtime_ns=source.mtime_ns,
               xattrs={"user.gp2.format": b"GP2 track"})


def _track(source: ByteSource, ctx: TreeContext):
    """The decoded track and its bytes, from the cache or decoded (again)."""
    def make():
        data = read_all(source, MAX_TRACK_SIZE)
        return (decode(data), data), TRACK_COST_PER_BYTE * len(data) + 4096
    return ctx.cache.get_or_make(("gp2.track", source), make)


def _render(source: ByteSource, ctx: TreeContext, file_name: str) -> bytes:
    return dict(folder_files(*_track(source, ctx)))[file_name]()


def _section(source: ByteSource, ctx: TreeContext, i: int) -> bytes:
    return _track(source, ctx)[0].sections[i].data


def _entries(source: ByteSource, ctx: TreeContext) -> list[Entry]:
    track, data = _track(source, ctx)
    entries: list[Entry] = []
    for file_name, _ in folder_files(track, data):
        if file_name == "original.dat":
            entries.append(SourceFile(file_name, source))
        else:
            entries.append(CachedFile(file_name, ctx.cache, ("gp2.view", source, file_name),
                                      functools.partial(_render, source, ctx, file_name)))
    sections = [ParsedBytesFile(n, functools.partial(_section, source, ctx, i), size=len(raw),
                                xattrs={"user.gp2.offset": str(s.offset).encode()})
                for i, ((n, raw), s) in enumerate(zip(section_files(track), track.sections))]
    entries.append(Dir("sections", children=sections))
    return entries
