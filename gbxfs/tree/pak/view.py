"""The pak directory view: a .pak shown as its archive tree.

    open_pak(name, source, ctx) -> Dir

Entering a pak decrypts its header only. Entries are files with the exact
size of the file table, decrypted (and verified) on first read; *.gbx
entries become GBX folders in gbx_mode "folder" (tree/pak/entries.py). A pak
that cannot be opened (no key, wrong key, corrupt or truncated header) is a
directory with .pak-info.txt and error.txt, never a failure of the mount.
ManiaPlanet/TM2020 packs (version 6+) go to tree/pak/pack.py.
"""
from __future__ import annotations

from gbxfs.formats.pak import KNOWN_VERSIONS, PakError, peek_version
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import BytesFile, Dir, ErrorFolder, RenderedFile
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.tree.pak.entries import build_tree
from gbxfs.tree.pak.info import ERROR_NAME, ERROR_XATTR, INFO_NAME, error_dir, render_info
from gbxfs.tree.pak.keys import lookup_key
from gbxfs.tree.pak.names import typed_renames_and_sums
from gbxfs.tree.pak.pack import open_pack_gbx
from gbxfs.tree.source import ByteSource


def open_pak(name: str, source: ByteSource, ctx: TreeContext) -> Dir:
    mtime = source.mtime_ns
    try:
        version = peek_version(source.read_at, source.size)
    except PakError as e:
        return error_dir(name, render_info(name, None, None, e.reason), e.reason, mtime)
    if version >= 6:
        return open_pack_gbx(name, source, ctx)
    if version not in KNOWN_VERSIONS:
        err = f"unsupported pak version {version}"
        return error_dir(name, render_info(name, None, None, err, version=version), err, mtime)
    key, ks = lookup_key(name, source, ctx)
    if key is None:
        assert ks.problem is not None       # no key: lookup_key says why
        return error_dir(name, render_info(name, None, ks, ks.problem, version=version), ks.problem, mtime)
    try:
        arc = PakArchive(source.read_at, source.size, key, cache=ctx.cache, verified_only=ctx.verified_only)
    except PakError as e:
        return error_dir(name, render_info(name, None, ks, e.reason, version=version), e.reason, mtime)

    def render() -> bytes:
        typed, s = typed_renames_and_sums(arc, ctx.typed_names)     # one pass over the table for both
        return render_info(name, arc, ks, None, typed=typed, table_sums=s).encode("utf-8", "replace")
    info = RenderedFile(INFO_NAME, render, mtime_ns=mtime)
    if not arc.header.md5_ok:
        err = "header MD5 mismatch: the file table is corrupt (or the key is wrong); entries not shown"
        d = ErrorFolder(name, err, [info, BytesFile(ERROR_NAME, (err + "\n").encode())], mtime_ns=mtime)
        d.xattrs[ERROR_XATTR] = err.encode()
        return d
    return build_tree(arc, ctx, mtime, name, [info])


