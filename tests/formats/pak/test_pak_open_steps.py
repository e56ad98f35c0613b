"""The quick steps of opening a pak, each against the plain way it stands for:
the folder records parsed from the pages at hand (fetched when the
field-by-field reading fetched them), the folder paths in one pass, folders
made field by field, the file records in a short loop, the pieces of the table
asked for, the header read ahead, the typed-name candidates found with rfind,
and the sums and candidates in one pass over the columns."""
from __future__ import annotations

import hashlib
import random
import struct

import pytest

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.pak import header as header_module, tablesum
from gbxfs.formats.pak import table as table_module
from gbxfs.formats.pak.cipher import PAGE
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.records import MAX_DEPTH, MAX_NAME, PakFolder, plain_component, decode_name, make_folders, split_name
from gbxfs.formats.pak.stream import PageReader
from gbxfs.formats.pak.table import FIXED, MIN_PIECE, read_files


class _PlainPages:
    """A stream of plain bytes handing out pages as EncryptedStream does; `pos`:
    how far it was fetched."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def fetch(self, n: int = PAGE) -> bytes:
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out


def _folders_field_by_field(src: PageReader, count: int) -> list[tuple[int, str]]:
    """The folder table read as it was before _read_folders: three read() calls a folder."""
    out = []
    for _ in range(count):
        parent = int.from_bytes(src.read(4), "little", signed=True)
        n = int.from_bytes(src.read(4), "little")
        if n > MAX_NAME:
            raise PakError(f"folder name of {n} bytes is too long (limit {MAX_NAME})")
        out.append((parent, decode_name(src.read(n))))
    return out


def _outcome(read, data: bytes, count: int, lead: int):
    stream = _PlainPages(data)
    src = PageReader(stream, len(data))
    src.read(lead)
    try:
        got = read(src, count)
    except (PakError, GbxError) as e:
        return type(e).__name__, str(e)       # the header is refused: no feed follows
    # what comes after the table, and the pages fetched so far (the folder feed lands on the next one)
    return got, src.consumed, stream.pos, src.read(min(4, src.remaining))


@pytest.mark.parametrize("seed", range(8))
def test_folder_records_are_read_and_fetched_as_field_by_field(seed):
    rng = random.Random(seed)
    for _ in range(80):
        count = rng.randint(0, 100)
        records = b""
        # empty names: each folder takes exactly its 8 bytes, the least fetch_through counts on
        style = rng.choice(((0,), (0, 0, 0, 1, 2), (0, 1, 5, 12, 40, 255, 300, rng.randint(0, 700))))
        for _ in range(count):
            n = rng.choice(style)
            if rng.random() < 0.01:
                n = MAX_NAME + rng.randint(1, 3)        # too long: refused at that folder
            records += struct.pack("<iI", rng.randint(-1, count), n) + rng.randbytes(min(n, 900))
        # the table ending where a page ends at times: a fetch one byte too far shows
        start = rng.choice((rng.randrange(60), -len(records) % PAGE))
        data = rng.randbytes(start) + records + rng.randbytes(rng.choice((0, 3, 400)))
        lead = rng.randrange(start + 1)
        if rng.random() < 0.2:
            data = data[:rng.randrange(len(data) + 1)]   # truncated somewhere
            lead = min(lead, len(data))
        assert _outcome(header_module._read_folders, data, count, lead) == \
            _outcome(_folders_field_by_field, data, count, lead)


@pytest.mark.parametrize("straddle", (False, True))
def test_a_refused_folder_table_is_not_fetched_far_ahead(straddle):
    """A hostile count (the rest of a large file / 8) and a too-long name: the
    refusal comes with at most READ_AHEAD more fetched than field by field."""
    from gbxfs.formats.pak.stream import READ_AHEAD
    good = struct.pack("<iI", -1, 3) + b"abc"
    bad = struct.pack("<iI", -1, MAX_NAME + 1)
    # straddle: the good record runs past the first page, so the buffer runs out before the bad one
    lead = PAGE - 5 if straddle else 16
    data = bytes(lead) + good + bad + bytes(1 << 22)
    count = (len(data) - lead) // 8
    fetched = []
    for read in (header_module._read_folders, _folders_field_by_field):
        stream = _PlainPages(data)
        src = PageReader(stream, len(data))
        src.read(lead)
        with pytest.raises(PakError, match="too long"):
            read(src, count)
        fetched.append(stream.pos)
    assert fetched[0] <= fetched[1] + READ_AHEAD, fetched


def _paths_first_to_last(parents, own):
    return header_module._paths_any_order(parents, own)


@pytest.mark.parametrize("seed", range(6))
def test_folders_resolved_in_one_pass_are_the_general_ways(seed):
    """Parents listed first (the one-pass way): the same paths and the same refusal of a
    folder nested too deep as the general way; every folder as PakFolder(...) makes it."""
    rng = random.Random(seed)
    for _ in range(60):
        n = rng.randint(0, 40)
        parents = [-1 if i == 0 or rng.random() < 0.2 else rng.randrange(i) for i in range(n)]
        if rng.random() < 0.3 and n:    # a long chain: some folder may nest more than MAX_DEPTH levels
            parents = [i - 1 for i in range(n)]
        names = [rng.choice(("a\\", "b\\c\\", "", "\\", "x", "d\\" * rng.randint(1, 12), "..\\", "n/m\\")) for _ in range(n)]
        raw = list(zip(parents, names))
        own = [split_name(name) for name in names]
        try:
            want = _paths_first_to_last(parents, own)
        except PakError as e:
            with pytest.raises(PakError) as got:
                header_module._resolve_folders(raw)
            assert str(got.value) == str(e)
            continue
        got = header_module._resolve_folders(raw)
        assert got == [PakFolder(i, parents[i], names[i], want[i]) for i in range(n)]
        assert all(len(f.parts) <= MAX_DEPTH for f in got)


def test_made_folders_are_the_dataclass_made_by_its_init():
    made = make_folders([-1, 0], ["a\\", "b\\"], [("a",), ("a", "b")])
    want = [PakFolder(0, -1, "a\\", ("a",)), PakFolder(1, 0, "b\\", ("a", "b"))]
    assert made == want and [hash(f) for f in made] == [hash(f) for f in want]
    assert all(type(f) is PakFolder for f in made)
    with pytest.raises(AttributeError):       # still frozen
        made[0].name = "c"


def test_split_name_is_the_component_rule():
    rng = random.Random(3)
    for _ in range(20000):
        name = "".join(rng.choices("a.\\/\0", k=rng.randint(0, 7)))
        assert split_name(name) == tuple(plain_component(p) for p in name.split("\\") if p)


def _files_reference(data: bytes, count: int, n_folders: int):
    """The file records parsed one by one (what read_files gives)."""
    pos, out = 0, []
    for i in range(count):
        if pos + 8 > len(data):
            raise PakError(f"pak header truncated: file {i} of {count} is cut off")
        f, n = struct.unpack_from("<iI", data, pos)
        if n > MAX_NAME:
            raise PakError(f"file name of {n} bytes is too long (limit {MAX_NAME})")
        if pos + 8 + n + FIXED.size > len(data):
            raise PakError(f"pak header truncated: file {i} of {count} is cut off")
        out.append((pos, f, n))
        pos += 8 + n + FIXED.size
    return data[:pos], out


@pytest.mark.parametrize("seed", range(6))
def test_file_records_in_any_pieces_are_the_records_one_by_one(seed):
    rng = random.Random(seed)
    folders = [PakFolder(0, -1, "", ()), PakFolder(1, 0, "a\\", ("a",))]
    for _ in range(40):
        count = rng.randint(0, 300)
        grouped = rng.random() < 0.5
        data = b""
        for i in range(count):
            n = rng.choice((0, 3, 10, 30, MAX_NAME)) if rng.random() < 0.1 else rng.randint(1, 16)
            if rng.random() < 0.003:
                n = MAX_NAME + 1
            f = (i * 2 // max(count, 1)) if grouped else rng.randrange(2)
            data += struct.pack("<iI", f, n) + rng.randbytes(n) + rng.randbytes(FIXED.size)
        if rng.random() < 0.2:
            data = data[:rng.randrange(len(data) + 1)]
        stream = data + rng.randbytes(5000)     # the header stream goes on into the entries' data
        at = [0]

        def more(n):
            k = min(n, rng.choice((n, n, 1, 7, 300)))     # up to n bytes, fewer at times
            out = stream[at[0]:at[0] + k]
            at[0] += len(out)
            return out
        try:
            table_raw, recs = _files_reference(stream, count, len(folders))
        except PakError as e:
            with pytest.raises(PakError) as got:
                read_files(more, count, folders, hashlib.md5())
            assert str(got.value) == str(e)
            continue
        digest = hashlib.md5()
        table, size = read_files(more, count, folders, digest)
        assert size == len(table_raw) and digest.digest() == hashlib.md5(table_raw).digest()
        # kept: each record but its folder and name length (the offsets' and the folder column's)
        assert table.raw == b"".join(table_raw[p + 8:p + 8 + n + FIXED.size] for p, _, n in recs)
        assert list(table.offsets) == [p - 8 * i for i, (p, _, _) in enumerate(recs)]
        assert list(table.folder) == [f for _, f, _ in recs]
        assert [table.stored_name(i) for i in range(count)] == [decode_name(table_raw[p + 8:p + 8 + n])
                                                               for p, _, n in recs]
        assert table.grouped == all(a <= b for a, b in zip(table.folder, table.folder[1:]))
        assert table.special() == [i for i, (_, _, n) in enumerate(recs)
                                   if len(split_name(table.stored_name(i))) != 1]


def test_the_table_is_asked_for_in_pieces_close_to_its_size():
    """The header stream goes on into the entries' data: what read_files asks for
    beyond the table stays a small part of it (and a piece's least size)."""
    rng = random.Random(1)
    folders = [PakFolder(0, -1, "", ())]
    for count, name_len in ((20, 9), (2500, 10), (2500, 30), (30000, 14)):
        data = b"".join(struct.pack("<iI", 0, k := rng.randint(name_len - 3, name_len + 3)) + rng.randbytes(k)
                        + rng.randbytes(FIXED.size) for _ in range(count))
        stream = data + bytes(1 << 21)
        asked = []

        def more(n):
            at = sum(asked)
            asked.append(len(stream[at:at + n]))
            return stream[at:at + n]
        table, size = read_files(more, count, folders, hashlib.md5())
        assert size == len(data)
        assert sum(asked) - size <= max(MIN_PIECE, size // 12), (count, name_len, asked)
        assert len(asked) <= 4 + size // table_module.PIECE


def _without_extension_reference(table, wanted):
    out = []
    for i in range(len(table)):
        at = table.offsets[i]
        end = table.offsets[i + 1] if i + 1 < len(table) else len(table.raw)
        name = table.raw[at:end - FIXED.size]
        if wanted(table.row(i)[1][4]) and b"." not in name.rpartition(b"\\")[2]:
            out.append(i)
    return out


@pytest.mark.parametrize("chunk", (3, table_module.COLUMN_CHUNK))
def test_one_pass_gives_the_sums_and_the_names_without_extension(chunk, monkeypatch):
    rng = random.Random(chunk)
    names = [bytes(rng.choices(b"ab.\\\xff", k=rng.randint(0, 6))) for _ in range(200)]
    raw = b"".join(struct.pack("<iI", 0, len(n)) + n + FIXED.pack(0, rng.randrange(99), rng.randrange(99), 0,
                                                                    rng.randrange(5), rng.choice((0, 4, 1 << 32)))
                   for n in names)
    pieces = [raw]
    table, _ = read_files(lambda k: pieces.pop() if pieces else b"", len(names), [PakFolder(0, -1, "", ())],
                          hashlib.md5())
    monkeypatch.setattr(tablesum, "COLUMN_CHUNK", chunk)
    monkeypatch.setattr(table_module, "COLUMN_CHUNK", chunk)
    asked = []

    def wanted(c):
        asked.append(c)
        return c % 2 == 0
    s, ids = tablesum.scan(table, wanted)
    assert sorted(asked) == sorted(set(table.column("class_id")))      # once per class id
    assert ids == _without_extension_reference(table, wanted)
    assert 0 < len(ids) < len(names)
    assert s == tablesum.sums(table) and tablesum.scan(table) == (s, [])
    assert s.size == sum(table.column("size")) and s.compressed == sum(bool(f & 0x7C) for f in table.column("flags"))


@pytest.mark.parametrize("count", (3, 2500))
def test_opening_a_pak_decrypts_little_more_than_its_header(count):
    """A header's stream runs on to the end of the file: opening reads (and
    decrypts) the header and a little more, not a fixed 64 KiB or a table's worth
    more, however much data follows."""
    from gbxfs.formats.pak import packlist
    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.stream import HEADER_AHEAD
    from gbxfs.formats.pak.writer import PakFile, build_pak, make_key_string

    rng = random.Random(count)
    files = [PakFile(f"Data/F{i % 7}/{rng.randbytes(4).hex()}.dat", b"", compress=False) for i in range(count)]
    files.append(PakFile("Data/big.bin", rng.randbytes(1 << 18), compress=False))
    ks = make_key_string("open")
    pak = build_pak(files, ks)
    read = []

    def read_at(offset, n):
        read.append(min(n, len(pak) - offset))
        return pak[offset:offset + n]
    arc = PakArchive(read_at, len(pak), packlist.derive_key(ks))
    assert arc.header.md5_ok and len(arc.files) == count + 1
    header = arc.header.data_offset
    assert header < sum(read) <= header * 17 // 16 + 2 * HEADER_AHEAD, (header, read)
