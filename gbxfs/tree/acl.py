"""Who may reach a real file or folder: its permission bits, owner and POSIX ACL.

The mount shows each entry with the access of the real file or folder it
comes from (`Access`), and the kernel checks it for the caller
(default_permissions, and the ACL handed over as `system.posix_acl_access`:
gbxfs/fuse/ops.py). An extended ACL is kept as the kernel's xattr value:
a 4-byte version (2), then 8 bytes per entry (tag u16, permissions u16, id u32),
little-endian. An ACL of the three base entries only says what the mode says;
the kernel stores none then, and so does this module.
"""
from __future__ import annotations

import errno
import os
import stat
import struct
from collections.abc import Callable

# (permission bits, uid, gid) of the real file or folder an entry comes from, and its
# extended POSIX ACL (the xattr's bytes) when it has one
Access = tuple[int, int, int] | tuple[int, int, int, bytes]

ACL_XATTR = "system.posix_acl_access"
_VERSION = 2
_ENTRY = struct.Struct("<HHI")
# an xattr this size or larger is not read (the kernel allows far fewer entries)
_MAX_ACL = 64 * 1024
_NO_ACL = {errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOENT, errno.EPERM, errno.EACCES}


def read_acl(path: str) -> bytes | None:
    """The extended POSIX access ACL of `path` (symlinks followed), or None."""
    try:
        value = os.getxattr(path, ACL_XATTR)
    except OSError as e:
        if e.errno in _NO_ACL:
            return None
        raise
    if len(value) < 4 or len(value) > _MAX_ACL or (len(value) - 4) % _ENTRY.size:
        return None
    if struct.unpack_from("<I", value)[0] != _VERSION or (len(value) - 4) // _ENTRY.size <= 3:
        return None
    return value


def access_of(path: str, st: os.stat_result) -> Access:
    """(permission bits, uid, gid) of a real file or folder, plus its extended ACL when it has one."""
    base = (stat.S_IMODE(st.st_mode) & 0o777, st.st_uid, st.st_gid)
    acl = read_acl(path)
    return base if acl is None else base + (acl,)


def acl(access: Access | None) -> bytes | None:
    """The extended ACL an access carries, if any."""
    return access[3] if access is not None and len(access) > 3 else None


def map_permissions(value: bytes, fn: Callable[[int], int]) -> bytes:
    """The ACL `value` with every entry's rwx bits passed through `fn`."""
    out = bytearray(value)
    for at in range(4, len(out), _ENTRY.size):
        tag, perm, ident = _ENTRY.unpack_from(out, at)
        _ENTRY.pack_into(out, at, tag, fn(perm & 7), ident)
    return bytes(out)


def without_x(access: Access | None) -> Access | None:
    """The access of a file made from a source (a pak's files, a GBX folder's
    parts, the index CSVs): the source's, read and write bits only, in the
    mode and in every ACL entry. Only a real file passed through keeps its x
    (tree/model.py `exact_mode`)."""
    if access is None:
        return None
    extended = acl(access)
    base = (access[0] & 0o666, access[1], access[2])
    return base if extended is None else base + (map_permissions(extended, lambda p: p & 0o6),)


def open_to_all(access: Access | None, bits: int) -> bool:
    """True when owner, group and everyone else all have `bits` (0o4 read, 0o1
    search) and no ACL entry can take them away from anyone."""
    if access is None or acl(access) is not None:
        return False
    wanted = bits * 0o111
    return access[0] & wanted == wanted


def searchable_by_all(path: str) -> bool:
    """open_to_all for search (x) of a real folder."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return open_to_all(access_of(path, st), 0o1)
