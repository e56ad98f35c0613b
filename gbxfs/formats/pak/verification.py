"""What proves a pak or pack entry's bytes, in the words every output uses
(info.txt and .pak-info.txt's `verification`, the user.pak.verification
xattr, `gbxfs info`).

Only zlib carries a checksum (Adler-32, checked at the stream's end). A
stored entry, GBX or not, and a version 18 LZ4 entry have none: Blowfish-CBC
decrypts a damaged entry into other bytes without complaint, and a GBX parse
accepts many of them (a float or a string is any bytes), so no parse can
prove such an entry. They are served as they decrypt and say so; a reader
that wants proven bytes only refuses them (`refusal`).
"""
from __future__ import annotations

NONE_STORED = "none: stored, no checksum in the format"
NONE_LZ4 = "none: LZ4, no checksum in the format"
ADLER32 = "verified (zlib Adler-32)"
RECOVERED = "recovered (Adler-32 verified)"
LZ4_VERSION = 18        # the pack version whose compressed files are LZ4 blocks


def no_checksum(compressed: bool, lz4: bool = False) -> str | None:
    """The label of an entry that nothing can verify, from its table fields
    alone (None: zlib's Adler-32 proves it once read)."""
    if not compressed:
        return NONE_STORED
    if lz4:
        return NONE_LZ4
    return None


def refusal(label: str) -> str:
    """The error of an unverifiable entry when only verified bytes are wanted."""
    return f"refused (verified_only): verification = {label}"


def by_storage(files: int, compressed: int, version: int) -> list[tuple[str, str]]:
    """What proves a table's files, per kind of storage that it holds:
    [("stored" | "compressed", "<label> (N files)")] (.pak-info.txt,
    pack-info.txt, `gbxfs info`). Version 18 compresses with LZ4."""
    out = []
    if files - compressed:
        out.append(("stored", f"{NONE_STORED} ({files - compressed} files)"))
    if compressed:
        label = NONE_LZ4 if version >= LZ4_VERSION else f"{ADLER32} when read"
        out.append(("compressed", f"{label} ({compressed} files)"))
    return out
