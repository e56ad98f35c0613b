"""A plain-text key file for packs whose keys do not come in a packlist.dat
(ManiaPlanet/TM2020 packs), given with --packlist FILE:

    # comment
    Stadium.Pack.Gbx   0123456789ABCDEF0123456789ABCDEF

one pack a line: its file name (or its name without the .pak / .Pack.Gbx /
.Title.Pack.Gbx ending), then its 16-byte Blowfish key as 32 hex digits.
Names match case-insensitively. The key is used as given (no derivation).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gbxfs.formats.pak.errors import PakError

SUFFIXES = (".title.pack.gbx", ".pack.gbx", ".pak")
MAX_TEXT = 1 << 20


def pack_stem(name: str) -> str:
    low = name.lower()
    for s in SUFFIXES:
        if low.endswith(s):
            return low[: -len(s)]
    return low


@dataclass
class KeyEntry:
    name: str
    key: bytes


@dataclass
class KeyFile:
    entries: list[KeyEntry] = field(default_factory=list)
    signature_ok: bool | None = None     # a text file has no signature (packlist.dat's field)

    def find(self, pack_name: str) -> KeyEntry | None:
        want = pack_stem(pack_name)
        for e in self.entries:
            if pack_stem(e.name) == want:
                return e
        return None


def parse(data: bytes) -> KeyFile:
    if len(data) > MAX_TEXT:
        raise PakError(f"key file of {len(data)} bytes is too long (limit {MAX_TEXT})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PakError("key file is not UTF-8 text") from None
    out = KeyFile()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.rsplit(None, 1)
        if len(parts) != 2:
            raise PakError(f"key file line {n}: expected '<pack name> <32 hex digits>'")
        try:
            key = bytes.fromhex(parts[1])
        except ValueError:
            raise PakError(f"key file line {n}: the key is not hexadecimal") from None
        if len(key) != 16:
            raise PakError(f"key file line {n}: the key has {len(key)} bytes, not 16")
        out.entries.append(KeyEntry(parts[0], key))
    if not out.entries:
        raise PakError("key file holds no key")
    return out
