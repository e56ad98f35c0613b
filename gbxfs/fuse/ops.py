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
from collections.abc import Callable, Mapping

import pyfuse3

from gbxfs.fuse.attrs import BLKSIZE, AttrPolicy, make_attributes, negative_entry, stable
from gbxfs.fuse.dirs import DirectoryOps
from gbxfs.fuse.guard import brief, fail, handler, read_only
from gbxfs.fuse.inodes import POSITIONS, SLOT_BITS, SLOT_MASK, Inode, InodeTable, at_position, position, stamp
from gbxfs.fuse.listing import DirHandle, SharedAttributes, inherit
from gbxfs.fuse.scheduler import THREADS, Scheduler
from gbxfs.tree.acl import ACL_XATTR, acl, map_permissions, without_x
from gbxfs.tree.logs import log_failure
from gbxfs.tree.model import Dir, Entry, File

log = logging.getLogger("gbxfs.fuse")


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

    # -- helpers ---------------------------------------------------------

    async def _work(self, fn: Callable, *args):
        return await self.scheduler.work(fn, *args)

    def _node(self, inode: int) -> Inode:
        node = self.inodes.get(inode)
        if node is None:  # the kernel never asks for an inode it forgot; be safe anyway
            raise fail(errno.ESTALE)
        return node

    async def _entry(self, node: Inode) -> Entry:
        """The node's entry; found again from its number when the tree dropped it
        (its listing was evicted from the cache: made again, it is the same): its
        folder's entry (found the same way), then the entry at its position in the
        folder's listing, or of its name in the folder's name log (fuse/inodes.py)."""
        entry = node.entry
        if entry is None:
            folder = self.inodes.parent_of(node)
            assert folder is not None           # the root's entry is never dropped
            parent = folder.entry       # at hand for a file held from a listing: no coroutine more
            if parent is None:
                parent = await self._entry(folder)
            logged = self.inodes.logged(node.inode)
            if logged is None:
                # the listing at hand (peek: no work, not counted as a use), else listed now
                kids = parent.peek() if isinstance(parent, Dir) else None
                name, entry = at_position(kids, node.inode & SLOT_MASK) if kids is not None else (None, None)
                if entry is None:
                    name, entry = at_position(await self._children(parent), node.inode & SLOT_MASK)
            else:
                name, was = logged
                entry = await self._child(parent, name)
                if entry is not None and stamp(entry) != was:
                    entry = None    # a new file under that name has a number of its own
            if entry is None:       # gone from its folder (a real folder changed)
                raise fail(errno.ESTALE)
            node.name = name
            node.mtime_ns, node.access = inherit(entry, folder)
            node.entry = entry
        return entry

    async def _number(self, folder: Inode, parent: Dir, name: str, entry: Entry) -> int:
        """The number of `entry`, called `name` in `folder` (whose entry is `parent`):
        its position in the listing, or (a real folder, a name found but not listed)
        its index in the folder's name log."""
        fid = self.inodes.folder_id(folder.inode)
        if not parent.revalidates:
            k = position(await self._children(parent), name)
            if k is not None and k < POSITIONS:
                return fid << SLOT_BITS | k
        return self.inodes.named(fid, name, entry)

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

    # -- lookups and attributes ------------------------------------------

    @handler
    async def lookup(self, parent_inode, name, ctx=None):
        parent = self._node(parent_inode)
        sname = os.fsdecode(name)
        entry: Entry | None
        if sname == "." or sname == "..":
            node = parent if sname == "." else self.inodes.parent_of(parent) or self.inodes.root
            entry = await self._entry(node)
            node = self.inodes.remember(node.inode, node.name, entry, node.mtime_ns, node.access)
            return self._attrs(node, 0, entry)
        folder = await self._entry(parent)
        entry = await self._child(folder, sname)
        if entry is None:
            return negative_entry(self.policy)
        inode = await self._number(parent, folder, sname, entry)  # type: ignore[arg-type]  # a Dir (_child)
        mtime, access = inherit(entry, parent)
        known = self.inodes.full(inode)
        if (known is not None and known.attrs is not None and known.entry is entry
                and known.mtime_ns == mtime and known.access == access):
            return self.inodes.remember(inode, sname, entry, mtime, access).attrs
        size = await self._size(entry)   # before counting a reference: it may fail
        node = self.inodes.remember(inode, sname, entry, mtime, access)
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
        entry = node.entry
        if entry is None:
            entry = await self._entry(node)
        if isinstance(entry, Dir):
            raise fail(errno.EISDIR)
        if flags & os.O_ACCMODE != os.O_RDONLY:
            raise fail(errno.EROFS)
        fh = next(self._fh)
        self._files[fh] = entry  # type: ignore[assignment]  # not a Dir: a File
        # an archive folder may read the entry and its next ones ahead in one
        # worker-thread visit: their reads are then answered from the loop
        parent = self.inodes.parent_of(node)
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

    async def release(self, fh):
        # once per file read: no guard.handler wrapper (a coroutine more), as fuse/dirs.py
        if log.isEnabledFor(logging.DEBUG):
            log.debug("release%s", brief((fh,)))
        self._files.pop(fh, None)       # cannot fail

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
