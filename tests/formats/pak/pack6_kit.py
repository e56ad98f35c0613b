"""Test-side tools for version 6-18 packs: sample files covering every flag
combination, and reference models of the version 12+ cipher written from
the public facts per block (not with gbxfs.formats.pak.cipher6)."""
from __future__ import annotations

import itertools
import random
import struct

from Crypto.Cipher import Blowfish as RefBlowfish

from pak_testkit import random_body

KEY = bytes.fromhex("00112233445566778899aabbccddeeff")
FOLDERS = ["Data", "Data/Sub", "Data/Third"]       # third name > 4 chars: the folder feed applies
M64 = (1 << 64) - 1


def needs_lz4(version: int) -> None:
    """Version 18 packs need the lz4 package (a declared dependency): without
    it only their tests skip, with the reason."""
    if version >= 18:
        import pytest
        pytest.importorskip("lz4.block")


def feeding_gbx(seed: int, children: int = 8) -> bytes:
    """A test-chunk GBX whose nodes feed ivXor on several pages."""
    return random_body(seed, children).bytes()


RAW = random.Random(7).randbytes(3000) + bytes(5000) + b"tail" * 300
GBX = feeding_gbx(1)


def combo_files(PackFile) -> list:
    """Every file flag combination: stored/compressed x encrypted/PublicFile/
    ForceNoCrypt x feeds/no dummy write, for a raw file and a GBX."""
    files = []
    for comp, (pub, nc), feeds in itertools.product((False, True), ((False, False), (True, False), (False, True)),
                                                   (True, False)):
        tag = f"{int(comp)}{int(pub)}{int(nc)}{int(feeds)}"
        files.append(PackFile(f"Data/Sub/raw{tag}.bin", RAW, compress=comp, public=pub, no_crypt=nc, feeds=feeds))
        files.append(PackFile(f"Data/Gbx{tag}.Clip.Gbx", GBX, compress=comp, public=pub, no_crypt=nc, feeds=feeds))
    return files


def expected(rec) -> bytes:
    return RAW if rec.name.startswith("raw") else GBX


def ref_decrypt_v12(ecb_decrypt, iv: bytes, cipher: bytes, folds: dict[int, int]) -> bytes:
    """Version 12+ decryption block by block, as the facts state it: at each
    page start the pending ivXor goes into the IV; plain = D(C) ^ iv; then
    iv = (iv >> 47) ^ (iv * 9) ^ C."""
    v = int.from_bytes(iv, "little")
    out = bytearray()
    for at in range(0, len(cipher), 8):
        if at in folds:
            v ^= folds[at]
        c = cipher[at : at + 8]
        out += struct.pack("<Q", int.from_bytes(ecb_decrypt(c), "little") ^ v)
        v = ((v >> 47) ^ (v * 9) ^ int.from_bytes(c, "little")) & M64
    return bytes(out)


def ref_ecb16(key: bytes):
    """16-round Blowfish over little-endian words, from pycryptodome."""
    def rev(b: bytes) -> bytes:
        return b"".join(b[i : i + 4][::-1] for i in range(0, len(b), 4))
    bf = RefBlowfish.new(rev(key), RefBlowfish.MODE_ECB)
    return lambda block: rev(bf.decrypt(rev(block)))
