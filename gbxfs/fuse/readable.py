"""Waiting for the FUSE device to be readable, without a pass through trio's
scheduler when a request is queued already.

pyfuse3 waits for every request with trio.lowlevel.wait_readable: an epoll
registration, a scheduler pass and an epoll wait, about a third of what
pyfuse3 and trio spend per request (benchmarks/README.md, read_floor.py).
When the kernel queued the next request while the last one was answered
(a RELEASE is asynchronous: `tar` has already sent its next OPEN), a poll
with no timeout says so and the request is read at once. At most MAX_STREAK
requests are taken that way in a row: then a real wait lets the other tasks
run (worker threads' results, background batches).
"""
from __future__ import annotations

import select
import types

import trio

# requests answered one after the other without a scheduler pass at most
MAX_STREAK = 16


class ReadableFirst:
    """wait_readable for one file descriptor (the FUSE device's); any other
    goes to trio's own wait."""

    def __init__(self, wait=trio.lowlevel.wait_readable):
        self._wait = wait
        self._poll = select.poll()
        self._fd: int | None = None
        self.streak = 0

    async def wait_readable(self, fd) -> None:
        if self.streak < MAX_STREAK:
            if self._fd is None:
                self._fd = fd
                self._poll.register(fd, select.POLLIN)
            if fd == self._fd and self._poll.poll(0) == [(fd, select.POLLIN)]:
                self.streak += 1
                return
        self.streak = 0
        await self._wait(fd)


def lowlevel() -> types.ModuleType:
    """trio.lowlevel with a ReadableFirst wait_readable (for pyfuse3's trio)."""
    shim = types.ModuleType("trio.lowlevel")
    shim.__dict__.update(vars(trio.lowlevel))
    shim.wait_readable = ReadableFirst().wait_readable
    return shim
