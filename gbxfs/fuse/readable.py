"""Waiting for the FUSE device to be readable, without a pass through trio's
scheduler when a request is queued already.

pyfuse3 waits for every request with trio.lowlevel.wait_readable: an epoll
registration, a scheduler pass and an epoll wait, about a third of what
pyfuse3 and trio spend per request (benchmarks/README.md, read_floor.py).
When the kernel queued the next request while the last one was answered
(a RELEASE is asynchronous: `tar` has already sent its next OPEN), a poll
with no timeout says so and the request is read at once. At most MAX_STREAK
requests are taken that way in a row: then a real wait lets the other tasks
run (worker threads' results, background batches); a handler that starts a
task asks for the real wait at once (pass_soon).

The poll is libc's, called without releasing the GIL (ctypes.PyDLL): select's
poll gives the GIL up around even a zero timeout, and taking it back meant
waiting for a worker thread's Python work (decryption batches, GBX parses).

When nothing is queued yet and no worker thread is out, the folders waiting
in fuse/idle.py are listed first, one at a time, until a request is queued
or IDLE_NS went by (then the wait goes through trio: a listing of many folders
nobody enters, `ls -l`, must not keep signals and the other tasks waiting).
Then, still with no worker thread out (Threads.out: none can
be holding the GIL or have a result for trio), the wait lingers up to LINGER_NS
in libc's ppoll, the GIL released, before going through trio: a program
walking the mount (`find`, `tar`) sends its next request a few microseconds
after the answer, so the scheduler pass and epoll round are saved there too
(find_floor.py: a `find` of the peers' Packs folder 1.12 -> 1.00 s, the
daemon's CPU 1.04 -> 0.84 s). Nothing else can run on the loop meanwhile, so
the other tasks (signals, the memory governor's tick, _background work's
start) wait at most LINGER_NS.
"""
from __future__ import annotations

import ctypes
import select
import time
import types

import trio

from gbxfs.fuse.idle import IDLE, IdleListings

# requests answered one after the other without a scheduler pass at most
MAX_STREAK = 16
# nanoseconds a wait lingers in ppoll for the next request before going through trio
LINGER_NS = 500_000
# nanoseconds of listings between requests at most in one wait (fuse/idle.py)
IDLE_NS = 2_000_000


class _Soon:
    wanted = False      # a task was started: the next wait passes through the scheduler


def pass_soon() -> None:
    """Have the next wait for a request pass through trio's scheduler (a handler
    started a task: background work is started there, not after MAX_STREAK requests)."""
    _Soon.wanted = True


class Threads:
    """Worker threads out (ops.Operations._work counts them): a wait does not
    linger while one is, its result would wait for the linger to end."""
    out = 0


class _PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short), ("revents", ctypes.c_short)]


def _libc_int_fn(dll, name: str, argtypes: list):
    """libc's `name` as a ctypes function returning an int, or None: through
    ctypes.PyDLL it keeps the GIL, through ctypes.CDLL it releases it."""
    try:
        fn = getattr(dll(None), name)
    except (OSError, AttributeError):
        return None
    fn.argtypes = argtypes
    fn.restype = ctypes.c_int
    return fn


# poll(2), keeping the GIL
_POLL = _libc_int_fn(ctypes.PyDLL, "poll", [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int])


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


# ppoll(2), releasing the GIL while it waits
_PPOLL = _libc_int_fn(ctypes.CDLL, "ppoll", [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_void_p])


class ReadableFirst:
    """wait_readable for one file descriptor (the FUSE device's); any other
    goes to trio's own wait."""

    def __init__(self, wait=trio.lowlevel.wait_readable, poll=_POLL, ppoll=_PPOLL, linger_ns: int = LINGER_NS,
                 idle: IdleListings = IDLE):
        self._wait = wait
        self._idle = idle
        self._libc_poll = poll
        self._libc_ppoll = ppoll if poll is not None and linger_ns > 0 else None
        self._linger_ns = linger_ns
        self._fd: int | None = None
        self._ready = self._linger = None
        self.streak = 0

    def _watch(self, fd: int):
        """Two functions telling whether only POLLIN is set on fd: at once, and
        after lingering up to linger_ns (False when not lingering)."""
        if self._libc_poll is not None:
            pfd = _PollFd(fd, select.POLLIN, 0)
            at, poll = ctypes.addressof(pfd), self._libc_poll

            def ready(_keep=pfd) -> bool:
                pfd.revents = 0
                return poll(at, 1, 0) == 1 and pfd.revents == select.POLLIN
            if self._libc_ppoll is None:
                return ready, lambda: False
            ts = _Timespec(*divmod(self._linger_ns, 1_000_000_000))
            span, ppoll = ctypes.addressof(ts), self._libc_ppoll

            def linger(_keep=(pfd, ts)) -> bool:
                pfd.revents = 0
                return ppoll(at, 1, span, None) == 1 and pfd.revents == select.POLLIN
            return ready, linger
        p = select.poll()
        p.register(fd, select.POLLIN)
        return (lambda: p.poll(0) == [(fd, select.POLLIN)]), lambda: False

    def _idle_then_linger(self) -> bool:
        """List the folders waiting in `idle` until a request is queued (True),
        then linger for one; False (through trio) once IDLE_NS went by."""
        idle = self._idle
        if idle:
            end = time.perf_counter_ns() + IDLE_NS
            while idle:
                idle.run_one()
                if self._ready():
                    return True
                if time.perf_counter_ns() > end:
                    return False
        return self._linger()

    async def wait_readable(self, fd) -> None:
        if self.streak < MAX_STREAK and not _Soon.wanted:
            if self._fd is None:
                self._fd = fd
                self._ready, self._linger = self._watch(fd)
            if fd == self._fd and (self._ready() or (not Threads.out and self._idle_then_linger())):
                self.streak += 1
                return
        self.streak = 0
        _Soon.wanted = False
        await self._wait(fd)


def lowlevel() -> types.ModuleType:
    """trio.lowlevel with a ReadableFirst wait_readable (for pyfuse3's trio)."""
    shim = types.ModuleType("trio.lowlevel")
    shim.__dict__.update(vars(trio.lowlevel))
    shim.wait_readable = ReadableFirst().wait_readable
    return shim
