"""Hostile paks whose header MD5 is still right.

Bit flips in an encrypted header only test the MD5 check. To reach the code
behind it (file table, entry sizes, the metadata section), the plain header
is rebuilt, changed field by field, its MD5 fixed, and encrypted again with
the pak's key (the writer's EncryptingStream, run under the reader's own
header parse so that the folder feed lands where the reader expects it).
"""
from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass
from typing import Callable

from gbxfs.formats.pak import packlist
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.cipher import PAGE, PakKey
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import CIPHER_OFFSET, IV_OFFSET, MAGIC, build_plain, read_header
from gbxfs.formats.pak.metadata import stored_length
from gbxfs.formats.pak.stream import EncryptingStream, plain_range


def pak_key(packlist_bytes: bytes, pak_name: str) -> bytes:
    return packlist.parse(packlist_bytes).find(pak_name).key


@dataclass
class PakParts:
    pak: bytes
    key: bytes
    plain: bytes              # the plain header (md5 .. end of the file table)
    fields: dict[str, int]    # name -> offset of a u32 in `plain`
    records: bytes            # the metadata records (inflated)
    data_offset: int
    meta_offset: int
    records_files: list[str]  # the file table's names, in order


def take_apart(pak: bytes, key: bytes) -> PakParts:
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), key)
    h = arc.header
    plain = build_plain(h.version, meta_offset=h.meta_offset, data_offset=h.data_offset,
                        meta_size=h.meta_size, meta_stored=h.meta_stored_size, extra=h.extra, flags=h.flags,
                        folders=[(f.parent, f.name) for f in h.folders],
                        files=[(r.folder, r.name, r.unknown, r.size, r.stored_size, r.offset, r.class_id, r.flags)
                               for r in h.files])
    assert plain[:16] == h.stored_md5, "the rebuilt plain header differs from the pak's"
    fields = {"meta_offset": 16, "data_offset": 20, "meta_size": 24, "meta_stored_size": 28,
              "flags": 48, "num_folders": 52}
    pos = 56
    for i, f in enumerate(h.folders):
        fields[f"folder[{i}].parent"], fields[f"folder[{i}].name_len"] = pos, pos + 4
        pos += 8 + len(f.name.encode("utf-8"))
    fields["num_files"] = pos
    pos += 4
    for i, r in enumerate(h.files):
        fields[f"file[{i}].folder"], fields[f"file[{i}].name_len"] = pos, pos + 4
        pos += 8 + len(r.name.encode("utf-8"))
        for j, name in enumerate(("unknown", "size", "stored_size", "offset", "class_id", "flags")):
            fields[f"file[{i}].{name}"] = pos + 4 * j
        pos += 28
    assert pos == len(plain)
    meta = plain_range(lambda o, n: pak[o:o + n], arc.key, h.meta_offset, stored_length(h.meta_stored_size),
                       0, h.meta_stored_size)
    records = zlib.decompress(meta)
    return PakParts(pak, key, plain, fields, records, h.data_offset, h.meta_offset, [r.name for r in h.files])


def put_together(parts: PakParts, *, change: Callable[[bytearray, dict[str, int]], None] | None = None,
                 records: bytes | None = None) -> bytes:
    """The pak again, with `change(plain, fields)` applied to its plain header
    (MD5 fixed afterwards) and/or new metadata records."""
    pak, key = parts.pak, PakKey(parts.key)
    plain = bytearray(parts.plain)
    meta = pak[parts.meta_offset:]
    if records is not None:
        z = zlib.compress(records, 9)
        meta = EncryptingStream(key, pak[parts.meta_offset:parts.meta_offset + 8], z + bytes(-len(z) % PAGE)).finish()
        struct.pack_into("<II", plain, parts.fields["meta_size"], len(records), len(z))
    if change is not None:
        change(plain, parts.fields)
    plain[:16] = bytes(16)
    plain[:16] = hashlib.md5(plain).digest()
    stream = EncryptingStream(key, pak[IV_OFFSET:CIPHER_OFFSET], bytes(plain))
    try:
        read_header(stream, struct.unpack_from("<I", pak, 8)[0], stream.length)
    except PakError:
        pass     # a header the reader refuses: encrypted all the same, the reader must refuse it too
    head = MAGIC + pak[8:12] + stream.finish()
    assert len(head) == parts.data_offset
    return head + pak[parts.data_offset:parts.meta_offset] + meta
