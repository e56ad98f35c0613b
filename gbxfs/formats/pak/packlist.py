"""packlist.dat: the per-pak Blowfish keys (docs/formats/pak.md).

Layout: u8 version, u8 count, u32 crc, u32 salt, then per pak
{u8 flags, u8 nameLen, name, key[32]}, then a 16-byte HMAC-MD5 signature.
Names and keys are XOR-masked with MD5s salted by the decimal salt; the
pak's Blowfish key is MD5(unmasked key string + "NadeoPak").
"""
from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass, field

from gbxfs.formats.pak.errors import PakError

# Constants of the game's key derivation (docs/formats/pak.md).
NAME_SALT = b"6611992868945B0B59536FC3226F3FD0"
KEY_SALT = b"B97C1205648A66E04F86A1B5D5AF9862"
SIGN_SALT = b"E3554B5828AF14F11AA42A5EAF0AEFC8"
KEY_SUFFIX = b"NadeoPak"
SIG_SIZE = 16
KEY_FIELD = 32


def _xor_cycle(data: bytes, mask: bytes) -> bytes:
    return bytes(b ^ mask[i % len(mask)] for i, b in enumerate(data))


def _md5(*parts: bytes) -> bytes:
    return hashlib.md5(b"".join(parts)).digest()


@dataclass(frozen=True)
class PackEntry:
    name: str           # as stored (original case), e.g. "Stadium"
    flags: int
    key_string: bytes   # the unmasked 32-byte key string
    key: bytes          # the 16-byte Blowfish key


@dataclass
class Packlist:
    version: int
    salt: int
    entries: list[PackEntry] = field(default_factory=list)
    signature_ok: bool = False
    stored_crc: int = 0

    def find(self, pak_name: str) -> PackEntry | None:
        """Entry for a pak file name ("stadium.PAK" or "Stadium"), case-insensitively."""
        want = pak_name.lower()
        if want.endswith(".pak"):
            want = want[:-4]
        for e in self.entries:
            if e.name.lower() == want:
                return e
        return None


def derive_key(key_string: bytes) -> bytes:
    return _md5(key_string, KEY_SUFFIX)


def _decode_name(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def parse(data: bytes) -> Packlist:
    """Parse packlist.dat. A bad signature is reported (signature_ok), not refused."""
    if len(data) < 10 + SIG_SIZE:
        raise PakError(f"packlist.dat too short ({len(data)} bytes)")
    version, count, crc, salt = struct.unpack_from("<BBII", data, 0)
    s = str(salt).encode()
    name_mask = _md5(NAME_SALT, s)
    body_end = len(data) - SIG_SIZE
    pos = 10
    out = Packlist(version=version, salt=salt, stored_crc=crc)
    for i in range(count):
        if pos + 2 > body_end:
            raise PakError(f"packlist.dat truncated in entry {i}", pos)
        flags, name_len = data[pos], data[pos + 1]
        pos += 2
        if pos + name_len + KEY_FIELD > body_end:
            raise PakError(f"packlist.dat truncated in entry {i}", pos)
        name = _xor_cycle(data[pos : pos + name_len], name_mask)
        pos += name_len
        key_mask = _md5(name, s, KEY_SALT)
        key_string = _xor_cycle(data[pos : pos + KEY_FIELD], key_mask)
        pos += KEY_FIELD
        out.entries.append(PackEntry(_decode_name(name), flags, key_string, derive_key(key_string)))
    if pos != body_end:
        raise PakError(f"packlist.dat has {body_end - pos} unexpected bytes before the signature", pos)
    expected = hmac.new(_md5(SIGN_SALT, s), data[:body_end], "md5").digest()
    out.signature_ok = hmac.compare_digest(expected, data[body_end:])
    return out


def build(entries: list[tuple[str, bytes]], salt: int, flags: int = 0, version: int = 1) -> bytes:
    """packlist.dat for (pak name, 32-byte key string) pairs, correctly signed."""
    if len(entries) > 255:
        raise ValueError("a packlist holds at most 255 paks")
    s = str(salt).encode()
    name_mask = _md5(NAME_SALT, s)
    out = bytearray(struct.pack("<BBII", version, len(entries), 0, salt))
    for name, key_string in entries:
        raw = name.encode("utf-8")
        if len(raw) > 255 or len(key_string) != KEY_FIELD:
            raise ValueError("pak name must be <= 255 bytes and the key string 32 bytes")
        out += bytes((flags, len(raw)))
        out += _xor_cycle(raw, name_mask)
        out += _xor_cycle(key_string, _md5(raw, s, KEY_SALT))
    out += hmac.new(_md5(SIGN_SALT, s), bytes(out), "md5").digest()
    return bytes(out)
