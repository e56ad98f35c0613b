"""Guards every FUSE request handler wears: a bug in a view answers EIO and is
logged (one bad file never takes the mount down), an OSError keeps its errno,
`-d` logs each request as it arrives, and writes are refused with EROFS."""
from __future__ import annotations

import errno
import functools
import logging
from collections.abc import Callable, Sequence

import pyfuse3

from gbxfs.tree.logs import log_failure

log = logging.getLogger("gbxfs.fuse")


def fail(code: int) -> pyfuse3.FUSEError:
    return pyfuse3.FUSEError(code)


def handler(fn: Callable) -> Callable:
    """FUSEError passes; an OSError keeps its errno (real files: EACCES, ...);
    anything else is a bug in some view: logged, answered with EIO."""
    name = fn.__name__

    @functools.wraps(fn)
    async def guarded(self, *args):
        if log.isEnabledFor(logging.DEBUG):   # -d: every request, as it arrives
            log.debug("%s%s", name, brief(args))
        try:
            return await fn(self, *args)
        except Exception as e:  # noqa: BLE001 - a handler's contract: EIO and one log line
            raise failure(name, args, e) from None
    return guarded


def failure(name: str, args: Sequence, e: Exception) -> pyfuse3.FUSEError:
    """What a handler answers for `e` escaping handler `name`, logged: `handler`'s
    answer, and that of handlers that guard themselves (fuse/dirs.py: one
    coroutine less per request)."""
    if isinstance(e, pyfuse3.FUSEError):
        return e
    if isinstance(e, OSError):
        log.warning("%s%s: %s", name, brief(args), e)
        return fail(e.errno or errno.EIO)
    log_failure(log, e, "%s%s failed", name, brief(args))
    return fail(errno.EIO)


def brief(args: Sequence) -> str:
    return "(" + ", ".join(repr(a) for a in args if isinstance(a, (int, bytes, str))) + ")"


def read_only(fn: Callable) -> Callable:
    @functools.wraps(fn)
    async def refuse(self, *args, **kw):
        log.debug("%s%s: read-only", fn.__name__, brief(args))
        raise fail(errno.EROFS)
    return refuse
