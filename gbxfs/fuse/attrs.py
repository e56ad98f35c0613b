"""stat attributes of tree entries, as the kernel sees them."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

import pyfuse3

from gbxfs.tree.model import Access, Dir, Entry, File
from gbxfs.tree.rows import Rows

# large I/O hint: tools read in st_blksize chunks, and each FUSE request costs a round trip
BLKSIZE = 128 * 1024
FILE_MODE = stat.S_IFREG | 0o444
DIR_MODE = stat.S_IFDIR | 0o555


@dataclass
class AttrPolicy:
    """Cache lifetimes handed to the kernel, and the owner shown for every entry."""
    entry_timeout: float = 10.0      # name -> inode
    attr_timeout: float = 10.0       # inode -> attributes
    negative_timeout: float = 10.0   # "no such name"
    uid: int = field(default_factory=os.getuid)
    gid: int = field(default_factory=os.getgid)


def needs_work(entry: Entry) -> bool:
    """True when attributes cannot be computed without I/O, parsing or rendering."""
    return isinstance(entry, File) and entry.size(wait=False) is None


def file_size(entry: Entry) -> int:
    """The exact size (may render or parse: call from a worker thread unless needs_work is False)."""
    return entry.size() if isinstance(entry, File) else 0


def shown_mode(entry: Dir, access: Access | None) -> int:
    """A folder's st_mode: the source's permission bits (a folder made from a file
    with x added where r is set), or read-only defaults for sources without any.
    A file's mode is file_owner's."""
    if access is None:
        return DIR_MODE
    perm = access[0]
    return stat.S_IFDIR | (perm if entry.exact_mode else perm | (perm & 0o444) >> 2)


# "not given": ask the folder (Dir.peek)
_PEEK = object()


def make_attributes(inode: int, entry: Entry, mtime_ns: int, size: int, policy: AttrPolicy,
                    access: Access | None = None, kids=_PEEK) -> pyfuse3.EntryAttributes:
    """`kids`: a folder's entry.peek(), when the caller has it already."""
    # called once per entry a listing shows: only the fields that are not
    # EntryAttributes' zero defaults (generation, st_rdev) are set
    if not isinstance(entry, Dir):
        return file_attributes(inode, size, mtime_ns, policy, *file_owner(access, policy, entry.exact_mode))
    a = pyfuse3.EntryAttributes()
    a.st_ino = inode
    a.entry_timeout = policy.entry_timeout
    a.attr_timeout = policy.attr_timeout
    a.st_mode = shown_mode(entry, access)
    if kids is _PEEK:
        kids = entry.peek()
    # 2 + subdirectories when known; 1 (the "unknown" convention find honours)
    # rather than listing a pak just to count its folders
    a.st_nlink = 1 if kids is None else 2 + _folder_count(kids)
    a.st_blksize = BLKSIZE
    if access is None:
        a.st_uid = policy.uid
        a.st_gid = policy.gid
    else:
        a.st_uid = access[1]
        a.st_gid = access[2]
    a.st_atime_ns = a.st_mtime_ns = a.st_ctime_ns = mtime_ns
    return a


def _folder_count(kids) -> int:
    """The sub-folders of a listing; of rows without making their files' entries
    (a second `find` would otherwise make one per file of every folder)."""
    if isinstance(kids, Rows):
        return kids.folder_count()
    return sum(1 for c in list(kids.values()) if c.is_dir)


def file_owner(access: Access | None, policy: AttrPolicy, exact: bool = False) -> tuple[int, int, int]:
    """(st_mode, st_uid, st_gid) of a file shown with `access` (None: the defaults).
    `exact`: a real file passed through, its mode as it is; any other file is made
    from a source and shows the source's bits without x (tree/acl.py without_x)."""
    if access is None:
        return FILE_MODE, policy.uid, policy.gid
    perm = access[0] if exact else access[0] & 0o666
    return stat.S_IFREG | perm, access[1], access[2]


def file_attributes(inode: int, size: int, mtime_ns: int, policy: AttrPolicy, mode: int, uid: int,
                    gid: int) -> pyfuse3.EntryAttributes:
    """make_attributes of a file, its mode and owner from file_owner (a listing
    makes these once for all its files that inherit them)."""
    a = pyfuse3.EntryAttributes()
    a.st_ino = inode
    a.entry_timeout = policy.entry_timeout
    a.attr_timeout = policy.attr_timeout
    a.st_mode = mode
    a.st_size = size
    a.st_blocks = (size + 511) // 512
    a.st_blksize = BLKSIZE
    a.st_uid = uid
    a.st_gid = gid
    a.st_atime_ns = a.st_mtime_ns = a.st_ctime_ns = mtime_ns
    return a


def stable(entry: Entry, kids=_PEEK) -> bool:
    """True when the attributes made for this entry object can be kept and
    answered again: a file's exact size never changes for a given entry (a
    changed source gets a new entry); a folder's link count is final once it
    was listed, except for a real folder, which is re-listed when it changes.
    `kids`: the folder's entry.peek(), when the caller has it already."""
    if isinstance(entry, Dir):
        return not entry.revalidates and (entry.peek() if kids is _PEEK else kids) is not None
    return True


def negative_entry(policy: AttrPolicy) -> pyfuse3.EntryAttributes:
    """A "no such entry" answer the kernel may cache (st_ino 0)."""
    a = pyfuse3.EntryAttributes()
    a.st_ino = 0
    a.entry_timeout = policy.negative_timeout
    return a
