"""One line per failure for users; the traceback only when asked for.

A deep or hostile file can raise with thousands of frames (a RecursionError
prints about 3,000 lines); a terminal or the daemon's log gets one line per
failure, and the full traceback only with GBXFS_DEBUG=1 or debug logging (-d).
"""
from __future__ import annotations

import logging
import os

MAX_LINE = 400


def debug_wanted(logger: logging.Logger) -> bool:
    return bool(os.environ.get("GBXFS_DEBUG")) or logger.isEnabledFor(logging.DEBUG)


def one_line(e: BaseException) -> str:
    """`Type: message`, on one line and of bounded length."""
    text = " ".join(str(e).split())
    if len(text) > MAX_LINE:
        text = text[:MAX_LINE] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def log_failure(logger: logging.Logger, e: BaseException, msg: str, *args, level: int = logging.ERROR) -> None:
    """Log `msg % args: Type: message`, with the traceback only in debug mode."""
    logger.log(level, msg + ": %s", *args, one_line(e), exc_info=e if debug_wanted(logger) else None)
