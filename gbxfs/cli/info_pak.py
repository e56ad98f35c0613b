"""`gbxfs info` for paks: `summary(path, data) -> dict` (see gbxfs/cli/info.py), or
`summary_file(path)` for one on disk, read in place. Each fact is named and
worded as the pak's own .pak-info.txt (pack-info.txt for a pack) says it
(gbxfs/tree/pak/info.py), `file_size` as every info.txt.

The only I/O is looking for packlist.dat beside `path` (case-insensitively),
since a version 3 pak says nothing without its key. Problems are reported in
the dict ("error", "bad_input"), as the info command expects.
"""
from __future__ import annotations

import os
from typing import Any

from gbxfs.formats.pak.archive import peek_version
from gbxfs.formats.pak.archive6 import read_pack_header
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import MAGIC
from gbxfs.formats.pak.tablesum import roots, sums
from gbxfs.formats.pak.verification import by_storage
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.tree.pak.archive6 import PackArchive
from gbxfs.tree.pak.info import feed_text, md5_text, metadata_text, signature_text
from gbxfs.tree.pak.keys import packlist_beside, read_packlist
from gbxfs.tree.source import open_regular


def _pack_table(out: dict[str, Any], read_at, size: int) -> dict[str, Any]:
    """What a version 6+ pack shows without any key (keys: the mount's --packlist)."""
    try:
        arc = PackArchive(read_at, size, None)
    except PakError as e:   # the header summary stands; say why no table
        return {**out, "table_error": e.reason}
    out["table.storage"] = arc.header_mode
    if arc.table is None:
        return {**out, "table_error": arc.table_error}
    s = sums(arc.files)      # one pass over the compact table: no record per file
    out.update({"files": s.files, "files.public": s.files - s.encrypted, "files.need_key": s.encrypted,
                "files.total_size": s.size})
    out.update((f"verification.{kind}", label) for kind, label in by_storage(s.files, s.compressed, arc.version))
    return out


def summary(path: str, data: bytes) -> dict[str, Any]:
    return summary_at(path, lambda o, n: data[o:o + n], len(data))


def summary_file(path: str) -> dict[str, Any] | None:
    """The summary of a pak on disk, read in place (None: not a pak). Only its
    header is read: a pak may be far larger than what `info` reads whole."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if os.pread(fd, len(MAGIC), 0) != MAGIC:
            return None
        return summary_at(path, lambda o, n: os.pread(fd, n, o), size)
    finally:
        os.close(fd)


def summary_at(path: str, read_at, size: int) -> dict[str, Any]:
    out: dict[str, Any] = {"path": path, "file_type": "pak", "file_size": size}
    try:
        version = peek_version(read_at, size)
    except PakError as e:
        return {**out, "error": e.reason, "bad_input": True}
    out["version"] = version
    if version >= 6:
        try:
            h = read_pack_header(read_at, size)
        except PakError as e:
            return {**out, "error": e.reason, "bad_input": True}
        out.update({"pack": "ManiaPlanet", "checksum": h.checksum.hex(), "decrypt_flags": h.decrypt_flags,
                    "author.login": h.author.login if h.author else None, "title_id": h.title_id,
                    "comment": h.comment, "included_packs": len(h.included), "header_size": h.header_size})
        return _pack_table(out, read_at, size)
    pl_path = packlist_beside(os.path.realpath(path))     # as the tree finds it (root.build_tree)
    out["key.packlist"] = pl_path
    if pl_path is None:
        return {**out, "error": "no packlist.dat beside the pak: its header is encrypted"}
    try:
        pl = read_packlist(pl_path)
    except (OSError, PakError) as e:
        return {**out, "error": f"packlist.dat unreadable: {e}"}
    out["key.packlist_signature"] = signature_text(pl.signature_ok)
    entry = pl.find(os.path.basename(path))
    if entry is None:
        return {**out, "error": "packlist.dat has no key for this pak"}
    try:
        arc = PakArchive(read_at, size, entry.key)
    except PakError as e:
        return {**out, "error": e.reason, "bad_input": True}
    header, table = arc.header, arc.files
    s = sums(table)
    out.update({"header.md5": md5_text(header), "header.folder_feed": feed_text(header.folder_feed), "folders": len(header.folders),
                "files": s.files, "files.compressed": s.compressed, "files.total_size": s.size,
                "roots": roots(table)})
    out.update((f"verification.{kind}", label) for kind, label in by_storage(s.files, s.compressed, arc.version))
    if header.md5_ok:
        meta = arc.metadata()
        out["metadata.gbx_headers"] = len(meta.headers)
        out["metadata"] = metadata_text(meta)
    else:
        out.update(error="header MD5 mismatch (corrupt pak or wrong key)", bad_input=True)
    return out
