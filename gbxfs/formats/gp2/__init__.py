"""Grand Prix 2 track files (F1CTxx.DAT), sans-I/O: bytes in, plain objects out.

    parse(data) -> Gp2Track | None   None: not a GP2 track (offset table does not fit);
                                     raises Gp2Error when it looks like GP2 but is broken
    decode(data) -> Gp2Track         like parse, but "not GP2" is a Gp2Error too
    probe(data) -> bool              cheap check: the 32 bytes at 0x1000 and the size
    looks_like_gp2(head, size)       the same check from just those 32 bytes
    describe(data) -> str            info.txt text for `gbxfs info` (raises Gp2Error)
    folder_files(track, data)        the folder listing: (name, render() -> bytes)
    section_files(track)             the raw sections as (NN.name.bin, bytes)

Layout: docs/formats/gp2.md (one module per region: offsets, objects,
header, sectors, ccline, setup, tail, checksum, preamble); command argument
counts come from gbxfs/data/gp2_commands.tsv (tools/gen_gp2_commands.py).
"""
from gbxfs.formats.gp2.errors import Gp2Error
from gbxfs.formats.gp2.folder import folder_files, section_files
from gbxfs.formats.gp2.offsets import TABLE_AT, TABLE_SIZE, looks_like_gp2
from gbxfs.formats.gp2.render_info import describe
from gbxfs.formats.gp2.track import Gp2Track, Section, decode, parse, probe

__all__ = ["Gp2Error", "Gp2Track", "Section", "TABLE_AT", "TABLE_SIZE", "decode", "describe",
           "folder_files", "looks_like_gp2", "parse", "probe", "section_files"]
