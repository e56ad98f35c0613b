"""What a pak folder says about itself: the text of .pak-info.txt
(`name = value` lines) and the folder shown when a pak cannot be opened."""
from __future__ import annotations

from typing import Any

from gbxfs.formats.pak import TableSums, by_storage, sums
from gbxfs.tree.model import BytesFile, Dir, ErrorFolder
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.tree.pak.names import long_name_lines

INFO_NAME = ".pak-info.txt"
ERROR_NAME = "error.txt"
ERROR_XATTR = "user.gbxfs.error"
PROOF_XATTR = "user.pak.verification"   # an entry's proof (formats/pak/verification.py)


def error_dir(name: str, info: str, error: str, mtime: int) -> Dir:
    """A pak that cannot be opened: its info text and error.txt, never a failure."""
    d = ErrorFolder(name, error, [BytesFile(INFO_NAME, info.encode("utf-8", "replace")),
                                  BytesFile(ERROR_NAME, (error + "\n").encode("utf-8", "replace"))],
                    mtime_ns=mtime)
    d.xattrs[ERROR_XATTR] = error.encode("utf-8", "replace")
    return d


def render_info(name: str, arc: PakArchive | None, keysrc: Any, error: str | None,
                version: int | None = None, typed: list | None = None, table_sums: TableSums | None = None) -> str:
    """The text of .pak-info.txt; `table_sums`: sums(arc.files) if at hand
    (names.typed_renames_and_sums makes it with the typed names)."""
    lines = [f"pak = {name}"]
    if arc is not None:
        version = arc.version
    if version is not None:
        lines.append(f"version = {version}")
    lines += key_lines(keysrc)
    if arc is not None:
        h = arc.header
        # one pass over its fields: a table may list a million files
        s = table_sums if table_sums is not None else sums(arc.files)
        lines += [
            f"header.md5 = {md5_text(h)}",
            f"header.flags = {h.flags:#x}",
            f"header.folder_feed = {feed_text(h.folder_feed)}",
            f"header.data_offset = {h.data_offset}",
            f"header.metadata_offset = {h.meta_offset}",
            f"folders = {len(h.folders)}",
            f"files = {s.files}",
            f"files.compressed = {s.compressed}",
            f"files.stored = {s.files - s.compressed}",
            f"files.no_feed_flag = {s.no_feed}",
            f"files.total_size = {s.size}",
            f"files.stored_size = {s.stored_size}",
        ]
        lines += verification_lines(s, arc.version)
        if h.md5_ok:
            meta = arc.metadata()
            lines.append(f"metadata.gbx_headers = {len(meta.headers)}")
            lines.append(f"metadata = {metadata_text(meta)}")
    lines.append("status = " + ("ok" if error is None and (arc is None or arc.header.md5_ok)
                                else f"error: {error or 'header MD5 mismatch'}"))
    lines += typed_lines(typed)
    if arc is not None and h.md5_ok:
        lines += long_name_lines(arc.files)
    return "\n".join(lines) + "\n"


def verification_lines(s: TableSums, version: int) -> list[str]:
    """What proves the table's files: `verification.stored = none: ...`."""
    return [f"verification.{kind} = {label}" for kind, label in by_storage(s.files, s.compressed, version)]


def key_lines(keysrc: Any) -> list[str]:
    if keysrc is None:
        return []
    lines = [f"key.packlist = {keysrc.packlist_path or '(none)'}"]
    if keysrc.entry_name is not None:
        lines.append(f"key.entry = {keysrc.entry_name}")
    if keysrc.signature_ok is not None:
        lines.append(f"key.packlist_signature = {signature_text(keysrc.signature_ok)}")
    return lines


# the values of .pak-info.txt that `gbxfs info` shows too (cli/info_pak.py), alike
def md5_text(h) -> str:
    return "ok" if h.md5_ok else f"MISMATCH (stored {h.stored_md5.hex()})"


def feed_text(feed: bytes | None) -> str:
    return f"applied ({feed.hex()})" if feed else "not applied"


def signature_text(ok: bool | None) -> str:
    """None: a key file with no signature (a text key list)."""
    if ok is None:
        return "none (a text key file has no signature)"
    return "ok" if ok else "BAD (HMAC-MD5 mismatch; keys used anyway)"


def metadata_text(meta) -> str:
    return "ok" if meta.error is None else f"error: {meta.error}"


def typed_lines(typed: list | None) -> list[str]:
    """Entries shown under a typed name (tree/pak/names.py): shown <- stored."""
    if not typed:
        return []
    lines = [f"typed_names = {len(typed)}"]
    lines += [f"  {'/'.join(rec.parts[:-1] + (t,))} <- {rec.name}" for rec, t in typed]
    return lines
