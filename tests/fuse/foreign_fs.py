"""A FUSE file system that is not gbxfs (an empty root folder), mounted under the
options given on the command line: `python foreign_fs.py MOUNTPOINT OPT...`.
The umount tests give it gbxfs's type name and a gbxfs-like name."""
from __future__ import annotations

import errno
import stat
import sys

import pyfuse3
import trio


class Empty(pyfuse3.Operations):
    async def getattr(self, inode, ctx=None):
        if inode != pyfuse3.ROOT_INODE:
            raise pyfuse3.FUSEError(errno.ENOENT)
        a = pyfuse3.EntryAttributes()
        a.st_ino, a.st_mode, a.st_nlink = inode, stat.S_IFDIR | 0o755, 2
        return a

    async def lookup(self, parent_inode, name, ctx=None):
        raise pyfuse3.FUSEError(errno.ENOENT)

    async def opendir(self, inode, ctx):
        return inode

    async def readdir(self, fh, start_id, token):
        return None


if __name__ == "__main__":
    pyfuse3.init(Empty(), sys.argv[1], set(sys.argv[2:]))
    try:
        trio.run(pyfuse3.main)
    finally:
        pyfuse3.close(unmount=True)
