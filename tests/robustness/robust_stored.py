"""Paks and packs holding stored (uncompressed) GBX entries, for the bit-flip
scan and the mutation fuzz: written with the repository's writers
(formats/pak/writer.py, writer6.py) around the real GBX files of the
synthetic corpus pak (Clip*.Clip.Gbx of Sample.pak: classes the shipped
declarations read, whose nodes feed the cipher).

Every archive holds each kind of entry once: a stored GBX (encrypted, and in
packs also in clear), a compressed GBX, a stored raw file and a compressed
raw one. `entries` maps each entry's path to its bytes.
"""
from __future__ import annotations

import functools
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from corpusdata import CORPUS

from gbxfs.formats.pak import packlist
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.formats.pak.writer6 import PackFile, build_pack

SAMPLE = CORPUS / "synthetic-pak" / "Packs"
PACK_KEY = bytes.fromhex("00112233445566778899aabbccddeeff")
PACK_VERSIONS = tuple(range(6, 19))
RAW = random.Random(11).randbytes(700) + bytes(300) + b"raw!" * 50


@dataclass
class Archive:
    name: str                     # the archive's file name
    data: bytes
    key_file: tuple[str, bytes]   # (file name, bytes) beside it: packlist.dat or a pack key file
    key: bytes                    # the key PakArchive / PackArchive take
    entries: dict[str, bytes]     # path inside -> the bytes written

    def files(self, data: bytes | None = None) -> dict[str, bytes]:
        """The folder a tree is built over: the archive (or `data` in its place) and its key."""
        return {self.name: self.data if data is None else data, self.key_file[0]: self.key_file[1]}


def sample_pak() -> tuple[bytes, bytes, bytes]:
    """(Sample.pak, packlist.dat, key) of the corpus."""
    pak, plist = (SAMPLE / "Sample.pak").read_bytes(), (SAMPLE / "packlist.dat").read_bytes()
    return pak, plist, packlist.parse(plist).find("Sample").key


@functools.lru_cache(maxsize=1)
def clips() -> tuple[bytes, ...]:
    """The GBX entries of Sample.pak, read back (the compressed ones proven by Adler-32)."""
    pak, _, key = sample_pak()
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), key)
    recs = [arc.files[i] for i in range(len(arc.files))]
    return tuple(arc.entry(r).read(0, r.size) for r in recs if r.name.endswith(".Gbx"))


@functools.lru_cache(maxsize=1)
def sample_entries() -> dict[str, bytes]:
    """Every entry of Sample.pak by its path, read back (all but the stored
    Clip5 proven by Adler-32; expected.tsv's sha256 agrees: test_pak_sample)."""
    pak, _, key = sample_pak()
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), key)
    recs = [arc.files[i] for i in range(len(arc.files))]
    return {"/".join(r.parts): arc.entry(r).read(0, r.size) for r in recs}


def _smallest_two() -> tuple[bytes, bytes]:
    small = sorted(clips(), key=len)
    return small[0], small[1]


@functools.lru_cache(maxsize=1)
def stored_pak() -> Archive:
    stored, other = _smallest_two()
    files = [PakFile("Fuzz/Clips/Stored.Clip.Gbx", stored, compress=False),
             PakFile("Fuzz/Clips/Packed.Clip.Gbx", other, compress=True),
             PakFile("Fuzz/Raw/stored.bin", RAW, compress=False),
             PakFile("Fuzz/Raw/packed.bin", RAW, compress=True)]
    with tempfile.TemporaryDirectory(prefix="gbxfs-stored-") as tmp:
        paths = write_packs(tmp, {"Fuzz": files})
        data, plist = paths["Fuzz"].read_bytes(), paths["packlist.dat"].read_bytes()
    return Archive("Fuzz.pak", data, ("packlist.dat", plist), packlist.parse(plist).find("Fuzz").key,
                   {f.path: f.data for f in files})


@functools.lru_cache(maxsize=None)
def stored_pack(version: int) -> Archive:
    stored, other = _smallest_two()
    files = [PackFile("Data/Clips/Stored.Clip.Gbx", stored, compress=False),   # encrypted, feeds the cipher
             PackFile("Data/Clips/Public.Clip.Gbx", stored, compress=False, public=True),     # in clear
             PackFile("Data/Clips/Packed.Clip.Gbx", other, compress=True),
             PackFile("Data/Raw/stored.bin", RAW, compress=False, public=True),
             PackFile("Data/Raw/packed.bin", RAW, compress=True, no_crypt=True)]
    data = build_pack(files, version=version, key=PACK_KEY, header_flags=0, folders=["Data", "Data/Clips"])
    name = f"V{version}.Pack.Gbx"
    return Archive(name, data, ("packlist.dat", f"{name} {PACK_KEY.hex()}\n".encode()), PACK_KEY,
                   {f.path: f.data for f in files})
