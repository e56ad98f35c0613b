"""`gbxfs info` for paks: `summary(path, data) -> dict` (see gbxfs/cli/info.py).

The only I/O is looking for packlist.dat beside `path` (case-insensitively),
since a version 3 pak says nothing without its key. Problems are reported in
the dict ("error", "bad_input"), as the info command expects.
"""
from __future__ import annotations

import os
from typing import Any

from gbxfs.formats.pak import packgbx
from gbxfs.formats.pak.archive import PakArchive, peek_version
from gbxfs.formats.pak.archive6 import PackArchive
from gbxfs.formats.pak.errors import PakError
from gbxfs.tree.pak.keys import packlist_beside, read_packlist


def _pack_table(out: dict[str, Any], read_at, size: int) -> dict[str, Any]:
    """What a version 6+ pack shows without any key (keys: the mount's --packlist)."""
    try:
        arc = PackArchive(read_at, size, None)
    except PakError as e:   # the header summary stands; say why no table
        return {**out, "table_error": e.reason}
    out["table"] = arc.header_mode
    if arc.table is None:
        return {**out, "table_error": arc.table_error}
    files = arc.files
    out.update(files=len(files), public_files=sum(1 for f in files if not f.encrypted),
               need_key=sum(1 for f in files if f.encrypted), total_size=sum(f.size for f in files))
    return out


def summary(path: str, data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"path": path, "kind": "pak", "size": len(data)}
    read_at = lambda o, n: data[o:o + n]  # noqa: E731
    try:
        version = peek_version(read_at, len(data))
    except PakError as e:
        return {**out, "error": e.reason, "bad_input": True}
    out["version"] = version
    if version >= 6:
        try:
            h = packgbx.parse(data[:16 << 20])
        except PakError as e:
            return {**out, "error": e.reason, "bad_input": True}
        out.update(pack="ManiaPlanet", checksum=h.checksum.hex(), decrypt_flags=h.decrypt_flags,
                   author=h.author.login if h.author else None, title_id=h.title_id,
                   comment=h.comment, included_packs=len(h.included), header_size=h.header_size)
        return _pack_table(out, read_at, len(data))
    pl_path = packlist_beside(path)
    out["packlist"] = pl_path
    if pl_path is None:
        return {**out, "error": "no packlist.dat beside the pak: its header is encrypted"}
    try:
        pl = read_packlist(pl_path)
    except (OSError, PakError) as e:
        return {**out, "error": f"packlist.dat unreadable: {e}"}
    out["packlist_signature_ok"] = pl.signature_ok
    entry = pl.find(os.path.basename(path))
    if entry is None:
        return {**out, "error": "packlist.dat has no key for this pak"}
    try:
        arc = PakArchive(read_at, len(data), entry.key)
    except PakError as e:
        return {**out, "error": e.reason, "bad_input": True}
    h = arc.header
    out.update(header_md5_ok=h.md5_ok, folder_feed=h.folder_feed is not None, folders=len(h.folders),
               files=len(h.files), compressed=sum(1 for f in h.files if f.compressed),
               total_size=sum(f.size for f in h.files),
               roots=sorted({f.parts[0] for f in h.files if f.parts}))
    if h.md5_ok:
        meta = arc.metadata()
        out["gbx_headers"] = len(meta.headers)
        out["metadata_error"] = meta.error
    else:
        out.update(error="header MD5 mismatch (corrupt pak or wrong key)", bad_input=True)
    return out
