"""The directory requests (opendir, readdirplus, releasedir): what `find` sends,
four per folder, so each guards itself (guard.failure) rather than through
guard.handler's wrapper, a coroutine more per request (about a microsecond:
17,000 requests for a `find` of a Packs folder of 30,000 files).
"""
from __future__ import annotations

import errno
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pyfuse3

from gbxfs.fuse.guard import brief, fail, failure
from gbxfs.fuse.listing import DOTS, DirHandle, SharedAttributes, listed_with_sizes, reply_listed, snapshot
from gbxfs.tree.model import Dir

if TYPE_CHECKING:
    from gbxfs.fuse.attrs import AttrPolicy
    from gbxfs.fuse.inodes import Inode, InodeTable
    from gbxfs.fuse.scheduler import Scheduler
    from gbxfs.tree.model import Entry

log = logging.getLogger("gbxfs.fuse")
DEBUG = logging.DEBUG


class DirectoryOps:
    """Mixed into fuse/ops.py's Operations (its _node, _entry, _work, inodes,
    policy, _dirs, _fh and scheduler)."""

    if TYPE_CHECKING:   # Operations' own (ops.py)
        policy: AttrPolicy
        inodes: InodeTable
        _fh: Iterator[int]
        _dirs: dict[int, DirHandle]
        scheduler: Scheduler
        _common: SharedAttributes

        async def _work(self, fn: Callable, *args: Any) -> Any: ...
        def _node(self, inode: int) -> Inode: ...
        async def _entry(self, node: Inode) -> Entry: ...

    async def opendir(self, inode, ctx=None):
        if log.isEnabledFor(DEBUG):   # -d: every request, as it arrives
            log.debug("opendir%s", brief((inode,)))
        try:
            node = self._node(inode)
            entry = node.entry      # at hand for a folder the kernel got from a listing
            if entry is None:
                entry = await self._entry(node)
            if not isinstance(entry, Dir):
                raise fail(errno.ENOTDIR)
            fh = next(self._fh)
            self._dirs[fh] = DirHandle(node, entry)
            return fh
        except Exception as e:  # noqa: BLE001 - a handler's contract: EIO and one log line
            raise failure("opendir", (inode,), e) from None

    async def readdir(self, fh, start_id, token):
        if log.isEnabledFor(DEBUG):
            log.debug("readdir%s", brief((fh, start_id)))
        try:
            h = self._dirs.get(fh)
            if h is None:
                raise fail(errno.EBADF)
            if h.rows is None:
                kids, sizes = h.entry.children(wait=False), None     # a Dir (opendir)
                if kids is None:    # in a worker thread: the first sizes that need work too, in the same visit
                    kids, sizes = await self.scheduler.listing(h.entry, listed_with_sizes,
                                                               lambda: self._walk_context(h.node))
                snapshot(self.inodes, h, kids, sizes)
                assert h.rows is not None       # made by snapshot
            # offsets: item i is followed by offset i + 1; the kernel hands back the last one it took
            pos = start_id
            while pos < 2:          # "." and ".."
                if not pyfuse3.readdir_reply(token, DOTS[pos], self._common.dot(h.parent if pos else h.node), pos + 1):
                    return
                pos += 1
            if pos < len(h.rows.names) + 2:
                await reply_listed(h, pos, token, self.inodes, self.policy, self._work, self._common)
        except Exception as e:  # noqa: BLE001 - a handler's contract: EIO and one log line
            raise failure("readdir", (fh, start_id), e) from None

    def _walk_context(self, node):
        """(name, parent entry, parent's name, grandparent entry) of a folder's node,
        for listing ahead (ahead.py); None where not at hand (event loop, no work)."""
        parent = self.inodes.parent_of(node)
        grand = None if parent is None else self.inodes.parent_of(parent)
        return (node.name or "", None if parent is None else parent.entry,
                (parent.name or "") if parent is not None else "",
                None if grand is None else grand.entry)

    async def releasedir(self, fh):
        if log.isEnabledFor(DEBUG):
            log.debug("releasedir%s", brief((fh,)))
        self._dirs.pop(fh, None)        # cannot fail

    async def fsyncdir(self, fh, datasync):
        pass
