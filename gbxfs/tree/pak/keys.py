"""Finding a pak's key: its packlist.dat entry (or --packlist, which may also
be a plain-text key file: formats/pak/keyfile.py), with where it came from
for .pak-info.txt."""
from __future__ import annotations

import os

from gbxfs.formats.pak import PakError, keyfile, packlist
from gbxfs.tree.context import TreeContext
from gbxfs.tree.source import ByteSource, read_regular


def packlist_beside(path: str) -> str | None:
    """A packlist.dat (any case) in the folder of `path`."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    for n in sorted(names):
        if n.lower() == "packlist.dat":
            return os.path.join(folder, n)
    return None


def find_packlist(source: ByteSource, ctx: TreeContext) -> str | None:
    """ctx.packlist_path, else a packlist.dat next to the pak file."""
    if ctx.packlist_path:
        return ctx.packlist_path
    path = getattr(source, "path", None)
    return packlist_beside(path) if path else None


PACKLIST_LIMIT = 1 << 20   # a real packlist is a few KiB


def read_packlist(path: str) -> packlist.Packlist | keyfile.KeyFile:
    """packlist.dat, or a key file when it is not one."""
    # only a regular file: a FIFO or device named packlist.dat is refused, never waited on
    data = read_regular(path, PACKLIST_LIMIT)
    try:
        return packlist.parse(data)
    except PakError as e:
        try:
            return keyfile.parse(data)
        except PakError:
            raise e from None     # neither: report it as the packlist.dat it is named for


def load_packlist(path: str, ctx: TreeContext) -> packlist.Packlist | keyfile.KeyFile:
    """Parsed packlist.dat (or key file), cached by path and modification time."""
    st = os.stat(path)
    key = ("pak.packlist", path, st.st_mtime_ns, st.st_size)

    def make():
        pl = read_packlist(path)
        return pl, 64 * len(pl.entries) + 256
    return ctx.cache.get_or_make(key, make)


class KeySource:
    """Where a pak's key came from, for .pak-info.txt."""

    def __init__(self):
        self.packlist_path: str | None = None
        self.entry_name: str | None = None
        self.signature_ok: bool | None = None
        self.problem: str | None = None


def lookup_key(name: str, source: ByteSource, ctx: TreeContext) -> tuple[bytes | None, KeySource]:
    ks = KeySource()
    path = find_packlist(source, ctx)
    if path is None:
        ks.problem = "no packlist.dat next to the pak (and no --packlist given)"
        return None, ks
    ks.packlist_path = path
    try:
        pl = load_packlist(path, ctx)
    except (OSError, PakError) as e:
        ks.problem = f"packlist.dat unreadable: {e}"
        return None, ks
    ks.signature_ok = pl.signature_ok
    entry = pl.find(name) or pl.find(keyfile.pack_stem(name))
    if entry is None:
        ks.problem = f"packlist.dat has no entry for {name}"
        return None, ks
    ks.entry_name = entry.name
    return entry.key, ks
