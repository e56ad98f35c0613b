"""Random-access byte sources that views read from.

A view never opens files itself: it gets a ByteSource (a real file, a pak
entry, a slice of another file) and reads ranges from it.
"""
from __future__ import annotations

import errno
import os
import stat
import threading
from collections import OrderedDict
from typing import Protocol

from gbxfs.tree.acl import access_of


class ByteSource(Protocol):
    size: int          # exact size in bytes, known up front
    mtime_ns: int      # modification time shown for everything derived from it

    def read_at(self, offset: int, size: int) -> bytes:
        """Return up to `size` bytes at `offset` (fewer only at the end)."""
        ...


class OpenFiles:
    """Keeps at most `limit` idle file descriptors open across the FileSources of
    one tree (TreeContext.open_files: one per mount or command, no process-wide pool).

    A folder may hold thousands of files; keeping one fd per file seen would
    exhaust the process limit, and opening per read costs a syscall pair on
    every FUSE read. Descriptors in use by a read are never closed under it."""

    def __init__(self, limit: int = 256):
        self.limit = limit
        self._lock = threading.Lock()
        self._open: OrderedDict[FileSource, None] = OrderedDict()

    def acquire(self, src: FileSource, may_open: bool = True) -> int | None:
        with self._lock:
            if src._fd is not None:
                self._open.move_to_end(src)
                src._users += 1
                return src._fd
        if not may_open:
            return None
        # open and check outside the lock: the FUSE loop takes it for cached
        # reads (may_open=False) and must not wait on a slow open of another file
        fd, st = open_regular_stat(src.path)
        try:
            if src._identity != _identity(st):
                # replaced or rewritten since the tree saw it: its size and
                # everything derived from it are stale, never serve those bytes
                raise OSError(errno.EIO, "file changed on disk since it was listed", src.path)
        except BaseException:
            os.close(fd)
            raise
        spare: int | None = fd
        with self._lock:
            if src._fd is None:
                src._fd, spare = fd, None
                self._open[src] = None
            else:       # another thread opened it meanwhile
                self._open.move_to_end(src)
            src._users += 1       # before trimming: the descriptor is in use
            self._trim()
            mine = src._fd
        if spare is not None:
            os.close(spare)
        return mine

    def release(self, src: FileSource) -> None:
        with self._lock:
            src._users -= 1

    def close(self, src: FileSource) -> None:
        with self._lock:
            if src._fd is not None and src._users == 0:
                self._close(src)

    def open_count(self) -> int:
        return len(self._open)

    def close_all(self) -> None:
        """Close every idle descriptor (the tree is done: a command ends, a test's tree goes)."""
        with self._lock:
            for src in list(self._open):
                if src._users == 0:
                    self._close(src)

    def __del__(self) -> None:
        # a tree dropped without close_all (a CLI command's, a test's) leaves no descriptor
        # behind: they belong to this pool alone
        for src in list(self._open):
            fd, src._fd = src._fd, None
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _trim(self) -> None:
        excess = len(self._open) - self.limit
        if excess <= 0:
            return
        idle: list[FileSource] = []
        for src in self._open:  # least recently used first; no copy of the pool per open
            if src._users == 0:
                idle.append(src)
                if len(idle) == excess:
                    break
        for src in idle:
            self._close(src)

    def _close(self, src: FileSource) -> None:
        assert src._fd is not None      # closed only while open
        os.close(src._fd)
        src._fd = None
        del self._open[src]


_NOWAIT = getattr(os, "RWF_NOWAIT", None)   # Linux 4.14+


def not_regular(path: str) -> OSError:
    return OSError(errno.EINVAL, "not a regular file (a FIFO, device or socket is never read)", path)


def open_regular(path: str) -> int:
    """A descriptor for reading `path`, which must be a regular file. Opened
    non-blocking: opening a FIFO would otherwise wait for a writer forever,
    and a device could block or never end."""
    return open_regular_stat(path)[0]


def open_regular_stat(path: str) -> tuple[int, os.stat_result]:
    """open_regular(path) and the descriptor's stat (its check made with it)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular(path: str, limit: int) -> bytes:
    """The whole of a regular file of at most `limit` bytes (OSError otherwise)."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise OSError(errno.EFBIG, f"{size} bytes is more than the {limit}-byte limit", path)
        chunks, left = [], limit + 1     # a file growing meanwhile still stops at the limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise OSError(errno.EFBIG, f"more than the {limit}-byte limit", path)
        return data
    finally:
        os.close(fd)


def _identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    # ctime: a rewrite that keeps the size and sets the mtime back still changes it
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class FileSource:
    """A real file on disk, read with pread (thread-safe, no shared offset).

    Size and mtime are taken when the source is created: the tree shows a
    snapshot of each file (a real directory re-lists changed files anew)."""

    def __init__(self, path: str, st: os.stat_result | None = None, files: OpenFiles | None = None):
        self.path = path
        # the tree's descriptor pool; None: a descriptor per read, closed after it
        self._files = files
        st = st if st is not None else os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path)
        self.size = st.st_size
        self.mtime_ns = st.st_mtime_ns
        # shown for the file and everything derived from it (the kernel checks it: default_permissions)
        self.access = access_of(path, st)
        self._identity = _identity(st)
        self._fd: int | None = None
        self._users = 0

    def read_at(self, offset: int, size: int) -> bytes:
        if offset >= self.size or size <= 0:
            return b""
        files = self._files
        # without a pool: a descriptor for this read alone (the check after it still holds)
        fd = open_regular(self.path) if files is None else files.acquire(self)
        assert fd is not None           # may_open: a descriptor, or OSError
        try:
            data = os.pread(fd, min(size, self.size - offset), offset)
            self._check(fd)
            return data
        finally:
            if files is None:
                os.close(fd)
            else:
                files.release(self)

    def _check(self, fd: int) -> None:
        # after the read: a file rewritten, grown or cut before or during it (an fd
        # kept open sees the new bytes) is answered with EIO, never with mixed bytes
        if _identity(os.fstat(fd)) != self._identity:
            raise OSError(errno.EIO, "file changed on disk since it was listed", self.path)

    def read_at_nowait(self, offset: int, size: int) -> bytes | bytearray | None:
        """The bytes when the file is open and the kernel has them in its page
        cache; None when getting them could wait for a disk (read_at in a
        worker thread then). Lets the FUSE loop answer cached reads itself."""
        files = self._files
        if _NOWAIT is None or files is None:
            return None
        if offset >= self.size or size <= 0:
            return b""
        fd = files.acquire(self, may_open=False)
        if fd is None:
            return None
        try:
            buf = bytearray(min(size, self.size - offset))
            got = os.preadv(fd, [buf], offset, _NOWAIT)
            self._check(fd)
        except OSError:   # EAGAIN: not cached; EOPNOTSUPP: cannot tell; EIO: changed (read_at says so)
            return None
        finally:
            files.release(self)
        # the buffer itself (bytes-like): FUSE copies it into its reply, a bytes() copy would be one more
        return buf if got == len(buf) else None

    def close(self) -> None:
        if self._files is not None:
            self._files.close(self)


class BytesSource:
    """Bytes already in memory (an embedded file, a test fixture)."""

    def __init__(self, data: bytes, mtime_ns: int = 0):
        self.data = data
        self.size = len(data)
        self.mtime_ns = mtime_ns

    def read_at(self, offset: int, size: int) -> bytes:
        return bytes(self.data[offset : offset + size])


def read_all(src: ByteSource, limit: int | None = None) -> bytes:
    """The whole source (refusing sources larger than `limit`)."""
    if limit is not None and src.size > limit:
        raise ValueError(f"source of {src.size} bytes exceeds the {limit}-byte limit")
    return src.read_at(0, src.size)
