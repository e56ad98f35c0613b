"""Names of pak entries as shown: typed names for hashed ones, and the full
stored names of entries whose names are too long to show whole.

Many stored names are hashes with no extension; the file table's class id
then tells the type (docs/formats/pak.md). Such an entry is shown as
`<stored name>.<extension the class implies>` (classdb.class_extension:
generated data, "Texture.Gbx" for CPlugBitmap, "dds" for CPlugFileDds), so
a GBX becomes a GBX folder and a raw file gets a usable extension. The
stored name stays in the `user.pak.stored_name` xattr and .pak-info.txt.
Names that already carry an extension are never changed.
"""
from __future__ import annotations

from gbxfs.formats.gbx import classdb
from gbxfs.formats.pak import TableSums, scan
from gbxfs.tree.longnames import NAME_MAX, too_long

STORED_NAME_XATTR = "user.pak.stored_name"
CLASS_XATTR = "user.pak.class_id"


def typed_name(stored: str, class_id: int, pack_version: int) -> str | None:
    """The typed name of an entry whose stored (last) name has no extension,
    None when it keeps its stored name."""
    if "." in stored or not stored:
        return None
    ext = classdb.class_extension(class_id, new=pack_version >= 6)
    return None if ext is None else f"{stored}.{ext[1]}"


def typed_renames_and_sums(arc, enabled: bool = True) -> tuple[list[tuple[object, str]], TableSums]:
    """(record, typed name) for every entry of `arc` shown under a typed name (none
    when not `enabled`), and tablesum.sums(arc.files): what an info file shows,
    in one pass over the table's fields."""
    table = arc.files
    new = arc.version >= 6

    def has_extension(class_id: int) -> bool:       # asked once per class id
        return classdb.class_extension(class_id, new=new) is not None
    s, ids = scan(table, has_extension if enabled else None)
    # typed_name's own tests passed on the raw table: a record only for these files
    out = []
    for i in ids:
        rec = table[i]
        t = typed_name(rec.parts[-1], rec.class_id, arc.version) if rec.parts else None
        if t is not None:
            out.append((rec, t))
    return out, s


def long_name_lines(table) -> list[str]:
    """.pak-info.txt / pack-info.txt lines naming, in full, every folder and file
    whose name has a part too long to show (tree/longnames.py shortens it)."""
    folders = ["/".join(f.parts) + "/" for f in table.folders if any(map(too_long, f.parts))]
    files = []
    for i in table.names_longer_than(NAME_MAX):
        rec = table[i]
        if any(map(too_long, rec.parts)):
            files.append("/".join(rec.parts))
    if not folders and not files:
        return []
    lines = [f"long_names = {len(folders) + len(files)} (shown shortened to {NAME_MAX} bytes; "
             f"a file's full name is also in {STORED_NAME_XATTR})"]
    return lines + [f"  {path}" for path in folders + files]
