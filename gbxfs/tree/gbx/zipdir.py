"""A ZIP stored inside a GBX (a map's embedded items) shown opened: `items/`,
its folders and files, each `*.gbx` member a GBX folder itself.

The ZIP comes from a hostile file, so:
- member names are split on `/` and `\\`; empty, `.` and `..` parts are dropped
  (an absolute or climbing name stays inside the folder), names are unique
  (`~N`, a file and a folder of the same name included), at most MAX_DEPTH
  parts deep;
- at most MAX_MEMBERS members; a member larger than MAX_MEMBER bytes or than
  half the cache (it could not be kept, so every read would decompress it
  again, and several at once would pass the daemon's memory bound), the
  members beyond MAX_TOTAL bytes in all, and encrypted ones are not shown;
  error.txt in items/ says which and why;
- a member's size is the one its directory entry declares; reading it
  decompresses it whole (zipfile checks the CRC), and bytes that do not match
  the declared size or CRC answer EIO, never wrong bytes.
Decompressed members live in ctx.cache; the tree keeps only names and sizes.
"""
from __future__ import annotations

import errno
import io
import zipfile
import zlib
from collections.abc import Callable, Hashable

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.gbx.nodenames import unique_name
from gbxfs.tree.model import BytesFile, Dir, Entry, SourceFile

MAX_MEMBERS = 100_000
MAX_MEMBER = 64 << 20
MAX_TOTAL = 256 << 20
MAX_DEPTH = 32
MAX_NAME = 255
ERROR_NAME = "error.txt"

_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, ValueError, RuntimeError, NotImplementedError, EOFError, OSError)


class ZipMemberSource:
    """One member's bytes as a ByteSource: size from the ZIP directory, bytes
    decompressed on first read (and checked) and kept in the cache."""

    __slots__ = ("_get_zip", "_index", "size", "mtime_ns", "_cache", "_key")

    def __init__(self, get_zip: Callable[[], bytes], index: int, size: int, mtime_ns: int | None,
                 cache: ByteLRU, key: Hashable):
        self._get_zip, self._index, self.size, self.mtime_ns = get_zip, index, size, mtime_ns
        self._cache, self._key = cache, key

    def read_at(self, offset: int, size: int) -> bytes:
        data = self._cache.get(self._key)
        if data is None:
            data = self._load()
            self._cache.put(self._key, data, len(data) + 128)
        return data[offset:offset + max(0, size)]

    def _load(self) -> bytes:
        try:
            with zipfile.ZipFile(io.BytesIO(self._get_zip())) as z:
                info = z.infolist()[self._index]
                if info.file_size != self.size:
                    raise ValueError("the ZIP changed")
                with z.open(info) as f:
                    data = f.read(self.size + 1)
        except _ZIP_ERRORS + (IndexError,) as e:
            raise OSError(errno.EIO, f"ZIP member cannot be read: {e}") from None
        if len(data) != self.size:
            raise OSError(errno.EIO, f"ZIP member holds {len(data)} bytes, its directory says {self.size}")
        return data


def _parts(name: str) -> list[str]:
    return [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]


def zip_folder(name: str, data: bytes, get_zip: Callable[[], bytes], open_member: Callable[[str, object], Entry],
               cache: ByteLRU, key: Hashable, mtime_ns: int | None = None) -> Dir:
    """The folder of the ZIP `data` (`get_zip()` gives the same bytes again later).
    `open_member(name, source)` makes a member's entry (a GBX folder for *.gbx)."""
    problems: list[str] = []
    root: dict[str, object] = {ERROR_NAME: None}     # the name is kept for error.txt
    folders: dict[tuple[str, ...], dict[str, object]] = {(): root}
    total = 0
    most = min(MAX_MEMBER, cache.max_bytes // 2)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except _ZIP_ERRORS as e:
        return Dir(name, children=[BytesFile(ERROR_NAME, f"the ZIP cannot be read: {e}\n".encode())],
                   mtime_ns=mtime_ns)
    if len(infos) > MAX_MEMBERS:
        problems.append(f"{len(infos)} members: only the first {MAX_MEMBERS} are shown")
    for index, info in enumerate(infos[:MAX_MEMBERS]):
        parts = _parts(info.filename)
        shown = info.filename.encode("unicode_escape").decode("ascii")
        if not parts:
            continue
        if len(parts) > MAX_DEPTH or any(len(p.encode("utf-8", "surrogatepass")) > MAX_NAME for p in parts):
            problems.append(f"{shown}: name too deep or too long, not shown")
            continue
        if info.is_dir():
            _folder(folders, tuple(parts))
            continue
        if info.flag_bits & 0x1:
            problems.append(f"{shown}: encrypted, not shown")
            continue
        if info.file_size > most or total + info.file_size > MAX_TOTAL:
            problems.append(f"{shown}: {info.file_size} bytes, over the limit of {most} per member "
                            f"(half the cache, {MAX_MEMBER} at most) and {MAX_TOTAL} in all; not shown")
            continue
        total += info.file_size
        d = _folder(folders, tuple(parts[:-1]))
        d[unique_name(parts[-1], d)] = (index, info.file_size)
    if problems:       # the name was held from the start: a member named so took error.txt~2
        root[ERROR_NAME] = ("\n".join(problems) + "\n").encode("utf-8", "replace")
    else:
        root.pop(ERROR_NAME)

    def build(entry_name: str, node: dict[str, object]) -> Dir:
        kids: list[Entry] = []
        for n, v in node.items():
            if isinstance(v, dict):
                kids.append(build(n, v))
            elif isinstance(v, bytes):
                kids.append(BytesFile(n, v))
            elif isinstance(v, tuple):
                src = ZipMemberSource(get_zip, v[0], v[1], mtime_ns, cache, (key, v[0]))
                kids.append(open_member(n, src) if n.lower().endswith(".gbx") else SourceFile(n, src))
        return Dir(entry_name, children=kids, mtime_ns=mtime_ns)

    return build(name, root)


def _folder(folders: dict, parts: tuple[str, ...]) -> dict[str, object]:
    """The folder for `parts`, made on the way (a file already holding a name
    makes the folder take `name~N`)."""
    for i in range(1, len(parts) + 1):
        if parts[:i] in folders:
            continue
        parent = folders[parts[:i - 1]]
        sub: dict[str, object] = {}
        parent[unique_name(parts[i - 1], parent)] = sub
        folders[parts[:i]] = sub
    return folders[parts]
