"""The records of a pak's folder and file tables, and how stored names become paths."""
from __future__ import annotations

from dataclasses import dataclass

MAX_NAME = 0x1000        # longest folder/file name accepted (real ones are short)
# deepest path (folders + backslash sub-paths of a name) accepted; real paks nest a few levels,
# and a path this deep already nears what a file system path (4096 bytes) can hold
MAX_DEPTH = 255
COMPRESSED_FLAGS = 0x7C
NO_FEED_FLAG = 0x100000000
PACK_COMPRESSED_FLAGS = 0x3C        # version 6+ (GBX.NET.PAK's Pak6 reader)
PUBLIC_FILE_FLAG = 0x2000000000000
FORCE_NO_CRYPT_FLAG = 0x4000000000000


@dataclass(frozen=True, slots=True)
class PakFolder:
    index: int
    parent: int
    name: str                 # as stored, usually with a trailing backslash
    parts: tuple[str, ...]    # sanitized path components from the archive root


def make_folders(parents: list[int], names: list[str], paths: list[tuple[str, ...]]) -> list[PakFolder]:
    """[PakFolder(i, parents[i], names[i], paths[i]) for every i]."""
    return list(map(PakFolder, range(len(parents)), parents, names, paths))


@dataclass(frozen=True, slots=True)   # slots: a pak may list a million files
class PakFileRecord:
    index: int
    folder: int
    name: str                 # as stored; may hold backslash sub-paths
    parts: tuple[str, ...]    # sanitized path components from the archive root
    unknown: int
    size: int                 # uncompressed size
    stored_size: int          # compressed size (bytes of data after the IV, before padding)
    offset: int               # relative to dataOffset
    class_id: int
    flags: int
    version: int = 3              # pak version (6+: ManiaPlanet/TM2020 packs)
    checksum: bytes | None = None  # version 14+: a 16-byte per-file checksum (meaning not public)
    size2: int | None = None       # version 17+: one more size field (meaning not public)

    @property
    def path(self) -> str:
        return "/".join(self.parts)

    @property
    def compressed(self) -> bool:
        return bool(self.flags & (COMPRESSED_FLAGS if self.version < 6 else PACK_COMPRESSED_FLAGS))

    @property
    def encrypted(self) -> bool:
        """Version 6+ files flagged PublicFile or ForceNoCrypt are stored in clear."""
        return self.version < 6 or not self.flags & (PUBLIC_FILE_FLAG | FORCE_NO_CRYPT_FLAG)

    @property
    def feeds(self) -> bool:
        """Embedded GBX nodes feed ivXor unless the "no dummy write" bit is set
        (and only where there is a cipher to feed)."""
        return not self.flags & NO_FEED_FLAG and self.encrypted


def decode_name(raw: bytes | bytearray) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def plain_component(name: str) -> str:
    # A pak path must not escape its folder or smuggle a separator.
    name = name.replace("/", "_").replace("\0", "_")
    return "_" + name if name in (".", "..") else name


def split_name(name: str) -> tuple[str, ...]:
    if "\\" not in name:     # nearly every name: one component
        return (plain_component(name),) if name else ()
    if name.find("\\") == len(name) - 1:    # "Name\\": nearly every folder name
        return (plain_component(name[:-1]),) if len(name) > 1 else ()
    return tuple(plain_component(p) for p in name.split("\\") if p)
