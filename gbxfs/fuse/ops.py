"""pyfuse3 request handlers over the tree: a thin adapter.

What the tree answers goes to the kernel; when and where its work runs is the
Scheduler's (fuse/scheduler.py): only answers that need no work (known sizes,
bytes already in memory, listings already made) are given from the trio loop.
Every handler turns an unexpected exception into EIO and logs it, so one bad
file never takes the mount down.
"""
from __future__ import annotations

import errno
import itertools
import logging
import os
import threading
from collections.abc import Callable, Mapping

import pyfuse3

from gbxfs.fuse.attrs import BLKSIZE, AttrPolicy, make_attributes, negative_entry, stable
from gbxfs.fuse.dirs import DirectoryOps
from gbxfs.fuse.guard import fail, handler, read_only
from gbxfs.fuse.inodes import Inode, InodeTable
from gbxfs.fuse.listing import DirHandle, SharedAttributes, inherit
from gbxfs.fuse.scheduler import THREADS, Scheduler
from gbxfs.tree.acl import ACL_XATTR, acl, map_permissions, without_x
from gbxfs.tree.logs import log_failure
from gbxfs.tree.model import Dir, Entry, File
from gbxfs.tree.walk import NotADir, NotFound, walk

log = logging.getLogger("gbxfs.fuse")

# a listed file's name is found on the event loop in a folder of at most this many
# entries (one BLAKE2b hash each, about a microsecond: well under a millisecond)
NAMES_ON_LOOP = 256
NAMES_KEPT = 8      # folders whose names by inode number are kept (a lookup map each)


class Operations(DirectoryOps, pyfuse3.Operations):
    supports_dot_lookup = True
    enable_writeback_cache = False
    # the kernel checks the source's POSIX ACLs too (asking system.posix_acl_access)
    enable_acl = True

    def __init__(self, tree: Entry, *, policy: AttrPolicy | None = None, threads: int = THREADS,
                 scheduler: Scheduler | None = None, statfs_path: str | None = None):
        super().__init__()
        self.policy = policy or AttrPolicy()
        self.inodes = InodeTable(tree, tree.mtime_ns or 0)
        self.scheduler = scheduler or Scheduler(threads)    # when work runs (fuse/scheduler.py)
        self._statfs_path = statfs_path
        self._fh = itertools.count(1)
        self._files: dict[int, File] = {}
        self._dirs: dict[int, DirHandle] = {}
        self._common = SharedAttributes()   # what readdirplus replies share (fuse/listing.py)
        # folder inode -> {inode: name} of its listing, for files held from a listing
        self._names: dict[int, dict[int, str]] = {}
        self._names_lock = threading.Lock()

    # -- helpers ---------------------------------------------------------

    async def _work(self, fn: Callable, *args):
        return await self.scheduler.work(fn, *args)

    def _node(self, inode: int) -> Inode:
        node = self.inodes.get(inode)
        if node is None:  # the kernel never asks for an inode it forgot; be safe anyway
            raise fail(errno.ESTALE)
        return node

    async def _entry(self, node: Inode) -> Entry:
        """The node's entry; found again by its path when the tree dropped it
        (its listing was evicted from the cache: made again, it is the same)."""
        entry = node.entry
        if entry is None and node.path is None:    # a file held from a listing: find its name
            folder = node.folder
            assert folder is not None           # a listed file's node has its folder's
            entry, name = self._known_leaf(node)
            if entry is None:
                kids = await self._children(await self._entry(folder))
                names = self._names.get(folder.inode)
                if len(kids) <= NAMES_ON_LOOP or (names is not None and node.inode in names):
                    # known, or a few hundred hashes: no worker-thread hop per file opened
                    name = self._listed_name(folder, kids, node.inode)
                else:
                    name = await self._work(self._listed_name, folder, kids, node.inode)
                entry = None if name is None else kids.get(name)
                if entry is None:       # gone from its folder (a real folder changed)
                    raise fail(errno.ESTALE)
            assert name is not None             # an entry found by its name
            node.path = self.inodes.child_path(folder, name)
            node.mtime_ns, node.access = inherit(entry, folder)
        elif entry is None:
            try:
                entry = (await self._work(walk, self.inodes.root.entry, node.path))[-1]
            except (NotFound, NotADir):
                raise fail(errno.ESTALE) from None
        node.entry = entry
        return entry

    def _known_leaf(self, node: Inode) -> tuple[Entry | None, str | None]:
        """A listed file's entry and name when its folder's names by inode number are
        kept and the folder's listing is at hand (peek: no work, no listing), else
        (None, None). Not for real folders, whose listings are checked against the disk."""
        assert node.folder is not None          # a listed file's node has its folder's
        names = self._names.get(node.folder.inode)
        name = names.get(node.inode) if names is not None else None
        parent = node.folder.entry if name is not None else None
        if name is None or not isinstance(parent, Dir) or parent.revalidates:
            return None, None
        kids = parent.peek()
        return (kids.get(name) if kids is not None else None), name

    def _listed_name(self, folder: Inode, kids: Mapping[str, Entry], inode: int) -> str | None:
        """The name in `kids` (folder's listing) whose path has inode number `inode`;
        the last few folders' numbers are kept (worker thread)."""
        names = self._names.get(folder.inode)
        if names is None or inode not in names:
            names = {self.inodes.number(self.inodes.child_path(folder, n)): n for n in kids}
            with self._names_lock:      # worker threads share it
                self._names[folder.inode] = names
                while len(self._names) > NAMES_KEPT:
                    self._names.pop(next(iter(self._names)))
        return names.get(inode)

    async def _children(self, entry: Entry) -> Mapping[str, Entry]:
        if not isinstance(entry, Dir):
            raise fail(errno.ENOTDIR)
        return await self.scheduler.children(entry)

    async def _child(self, entry: Entry, name: str) -> Entry | None:
        """What a lookup finds: a real folder re-checks the file on disk first."""
        if not isinstance(entry, Dir):
            raise fail(errno.ENOTDIR)
        return await self.scheduler.child(entry, name)

    async def _size(self, entry: Entry) -> int:
        return await self.scheduler.size(entry)

    def _attrs(self, node: Inode, size: int, entry: Entry) -> pyfuse3.EntryAttributes:
        """The node's attributes: kept on a node once made when they cannot change
        (attrs.stable), so repeated getattrs and lookups only hand them back."""
        a = node.attrs
        if a is None:
            kids = entry.peek() if isinstance(entry, Dir) else None      # one look for both
            a = make_attributes(node.inode, entry, node.mtime_ns, size, self.policy, node.access, kids)
            if stable(entry, kids):
                node.attrs = a
        return a

    async def _node_at(self, path: str) -> tuple[Inode, Entry]:
        """The node for `path` and its entry, walking from the root if the kernel
        does not hold it (only '..' lookups on an exported mount get here).
        Counts one lookup."""
        node = self.inodes.find_path(path)
        if node is not None:
            entry = await self._entry(node)
            return self.inodes.remember(path, entry, node.mtime_ns, node.inode, node.access), entry
        chain = await self._work(walk, self.inodes.root.entry, path)
        mtime, access = self.inodes.root.mtime_ns, self.inodes.root.access
        for e in chain:
            mtime = e.mtime_ns if e.mtime_ns is not None else mtime
            access = e.access if e.access is not None else access
        return self.inodes.remember(path, chain[-1], mtime, access=access), chain[-1]

    # -- lookups and attributes ------------------------------------------

    @handler
    async def lookup(self, parent_inode, name, ctx=None):
        parent = self._node(parent_inode)
        sname = os.fsdecode(name)
        entry: Entry | None
        if sname == ".":
            entry = await self._entry(parent)
            assert parent.path is not None      # found by _entry
            node = self.inodes.remember(parent.path, entry, parent.mtime_ns, parent.inode, parent.access)
            return self._attrs(node, 0, entry)
        if sname == "..":
            node, entry = await self._node_at(parent.parent_path)
            return self._attrs(node, 0, entry)
        entry = await self._child(await self._entry(parent), sname)
        if entry is None:
            return negative_entry(self.policy)
        path = self.inodes.child_path(parent, sname)
        mtime, access = inherit(entry, parent)
        known = self.inodes.find_path(path)
        if (known is not None and known.attrs is not None and known.entry is entry
                and known.mtime_ns == mtime and known.access == access):
            return self.inodes.remember(path, entry, mtime, known.inode, access).attrs
        size = await self._size(entry)   # before counting a reference: it may fail
        node = self.inodes.remember(path, entry, mtime, access=access)
        return self._attrs(node, size, entry)

    async def forget(self, inode_list):
        try:
            for inode, count in inode_list:
                self.inodes.forget(inode, count)
        except Exception as e:  # noqa: BLE001 - forget must not raise
            log_failure(log, e, "forget failed")

    @handler
    async def getattr(self, inode, ctx=None):
        node = self._node(inode)
        if node.attrs is not None:      # kept: no entry needed (it may have to be found again)
            return node.attrs
        entry = await self._entry(node)
        return self._attrs(node, await self._size(entry), entry)

    # -- files -----------------------------------------------------------

    @handler
    async def open(self, inode, flags, ctx=None):
        node = self._node(inode)
        entry = await self._entry(node)
        if isinstance(entry, Dir):
            raise fail(errno.EISDIR)
        if flags & os.O_ACCMODE != os.O_RDONLY:
            raise fail(errno.EROFS)
        fh = next(self._fh)
        self._files[fh] = entry  # type: ignore[assignment]  # not a Dir: a File
        # an archive folder may read the entry and its next ones ahead in one
        # worker-thread visit: their reads are then answered from the loop
        # a file held from a listing has its folder's node at hand
        parent = node.folder or (self.inodes.find_path(node.parent_path) if node.path else None)
        await self.scheduler.opening(parent.entry if parent is not None else None, entry.name)
        # contents never change for a given entry: let the kernel keep its page cache
        return pyfuse3.FileInfo(fh=fh, keep_cache=True)

    @handler
    async def read(self, fh, off, size):
        entry = self._files.get(fh)
        if entry is None:
            raise fail(errno.EBADF)
        if entry.error:
            log.debug("read of %s refused: %s", entry.name, entry.error)
            raise fail(errno.EIO)
        return await self.scheduler.read(entry, off, size)

    @handler
    async def release(self, fh):
        self._files.pop(fh, None)

    async def flush(self, fh):
        # nothing to flush, ever: ENOSYS makes the kernel stop sending FLUSH on
        # every close (one round trip per file opened, for nothing)
        raise fail(errno.ENOSYS)

    async def fsync(self, fh, datasync):
        pass

    @handler
    async def access(self, inode, mode, ctx=None):
        self._node(inode)
        return not (mode & os.W_OK)

    # -- file system -----------------------------------------------------

    @handler
    async def statfs(self, ctx=None):
        s = pyfuse3.StatvfsData()
        s.f_bsize = BLKSIZE
        s.f_frsize = 512
        if self._statfs_path:
            # the size of what is shown is unknown without opening everything:
            # report the underlying file system's size, and nothing free (read-only)
            real = await self._work(os.statvfs, self._statfs_path)
            s.f_blocks = real.f_blocks * real.f_frsize // 512
        s.f_bfree = s.f_bavail = 0
        s.f_files = len(self.inodes)
        s.f_ffree = s.f_favail = 0
        s.f_namemax = 255
        return s

    # -- extended attributes ---------------------------------------------

    async def _xattrs(self, node: Inode, name: str | None) -> dict[str, bytes]:
        entry = await self._entry(node)
        # a folder may get attributes when listed (a view's class id, a pak folder's
        # error): list it for user.* questions only (ls -l asks for security.* and
        # system.* on every entry and must not decrypt every pak in a folder)
        if isinstance(entry, Dir) and entry.peek() is None and (name is None or name.startswith("user.")):
            await self._children(entry)
        attrs: dict[str, bytes | str] = dict(entry.xattrs)
        if isinstance(entry, File) and entry.error:
            attrs.setdefault("user.gbxfs.error", entry.error)
        return {k: v if isinstance(v, bytes) else str(v).encode() for k, v in attrs.items()}

    @handler
    async def getxattr(self, inode, name, ctx=None):
        sname = os.fsdecode(name)
        node = self._node(inode)
        # every attribute the tree shows is a user.* one: `ls -l` asks security.* of each
        # file, which must not make a listed pak file's record and entry (tree/pak/files.py)
        if sname == ACL_XATTR:
            return await self._acl(node)
        if not sname.startswith("user."):
            raise fail(pyfuse3.ENOATTR)
        value = (await self._xattrs(node, sname)).get(sname)
        if value is None:
            raise fail(pyfuse3.ENOATTR)
        return value

    async def _acl(self, node: Inode) -> bytes:
        """The source's ACL for the kernel's permission checks, as the mode is shown:
        a folder made from a file gets x where r is set (fuse/attrs.py shown_mode), a
        file made from a source loses every x (file_owner)."""
        value = acl(node.access)
        if value is None:
            raise fail(pyfuse3.ENOATTR)
        entry = await self._entry(node)
        if entry.is_dir and not entry.exact_mode:
            value = map_permissions(value, lambda p: p | (p & 0o4) >> 2)
        elif not entry.is_dir and not entry.exact_mode:
            stripped = acl(without_x(node.access))
            if stripped is None:
                raise fail(pyfuse3.ENOATTR)
            value = stripped
        return value

    @handler
    async def listxattr(self, inode, ctx=None):
        return [os.fsencode(k) for k in await self._xattrs(self._node(inode), None)]

    # -- everything that would write -------------------------------------

    setattr = read_only(pyfuse3.Operations.setattr)
    mknod = read_only(pyfuse3.Operations.mknod)
    mkdir = read_only(pyfuse3.Operations.mkdir)
    unlink = read_only(pyfuse3.Operations.unlink)
    rmdir = read_only(pyfuse3.Operations.rmdir)
    symlink = read_only(pyfuse3.Operations.symlink)
    rename = read_only(pyfuse3.Operations.rename)
    link = read_only(pyfuse3.Operations.link)
    create = read_only(pyfuse3.Operations.create)
    write = read_only(pyfuse3.Operations.write)
    setxattr = read_only(pyfuse3.Operations.setxattr)
    removexattr = read_only(pyfuse3.Operations.removexattr)
