"""Walk a whole virtual tree the way a user's `ls -lR` + `cat` would, and sort
every outcome into "documented" or "bug".

Documented outcomes (docs/formats/mount.md "Errors", ARCHITECTURE.md):
- a directory lists (children() returns a mapping of valid names);
- a file has an exact size before reading (size(wait=False), when given, agrees) and
  reads back exactly that many bytes, in FUSE-sized pieces;
- or the file has `error` set (FUSE answers EIO without reading);
- or an operation raises OSError with errno EIO (the FUSE layer passes it on
  as EIO; used for bytes that prove unverifiable while being read).
Anything else escaping the tree (GbxError, PakError, IndexError, ...) is a
bug: the FUSE layer would log it as one.

Hangs and memory are judged by the callers with `deadline()` and `peak_memory()`.
"""
from __future__ import annotations

import contextlib
import errno
import faulthandler
import signal
import traceback
import tracemalloc
from dataclasses import dataclass, field
from typing import Iterator

import pytest

from gbxfs.tree.model import Dir, Entry, File

READ_PIECE = 128 * 1024   # the FUSE layer's st_blksize: tools read in pieces of this size
MAX_ENTRIES = 2_000_000   # a hostile listing must not make the walk itself unbounded


class Hang(BaseException):
    """Raised by deadline(); a BaseException so that no view's `except Exception`
    can swallow it and turn a hang into an error folder."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail with Hang when the block runs longer than `seconds` (main thread only).
    A hang inside C code does not see the signal: faulthandler then ends the
    whole run with the stack, so CI never waits forever."""
    def on_alarm(signum, frame):
        raise Hang(f"still running after {seconds} s: taken for a hang (this guard is generous "
                   f"on purpose; speed is measured in benchmarks/, not here)")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(seconds * 4 + 30, exit=True)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        faulthandler.cancel_dump_traceback_later()


@contextlib.contextmanager
def peak_memory() -> Iterator[list[int]]:
    """Yields a one-item list that holds, after the block, the peak of traced
    Python allocations during the block above what was allocated before it."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    out = [0]
    try:
        yield out
    finally:
        out[0] = tracemalloc.get_traced_memory()[1] - base
        if started:
            tracemalloc.stop()


@dataclass
class WalkReport:
    dirs: int = 0
    files: int = 0
    bytes_read: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)   # (path, why): documented
    bugs: list[tuple[str, str, str]] = field(default_factory=list)    # (path, operation, traceback)
    contents: dict[str, bytes] = field(default_factory=dict)          # path -> bytes, when kept

    def problems(self) -> str:
        return "\n\n".join(f"{path}: {op}\n{tb}" for path, op, tb in self.bugs[:5])

    def assert_no_bugs(self, what: str = "") -> None:
        if self.bugs:
            pytest.fail(f"{what}: {len(self.bugs)} undocumented outcomes, first ones:\n{self.problems()}",
                        pytrace=False)

    def __repr__(self) -> str:   # assertion messages: counts, not every byte kept
        return (f"WalkReport(dirs={self.dirs}, files={self.files}, bytes_read={self.bytes_read}, "
                f"unreadable={len(self.unreadable)}, bugs={len(self.bugs)})")


def _valid_name(name: object) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name


def _documented(e: BaseException) -> bool:
    return isinstance(e, OSError) and e.errno == errno.EIO


def walk_tree(root: Entry, *, keep: callable = None, max_entries: int = MAX_ENTRIES) -> WalkReport:
    """List every directory, size and read every file below `root`.
    `keep(path)`: keep the bytes of the files it accepts in report.contents."""
    report = WalkReport()
    stack: list[tuple[str, Entry]] = [("", root)]
    seen = 0
    while stack:
        path, entry = stack.pop()
        seen += 1
        if seen > max_entries:
            report.bugs.append((path, "walk", f"more than {max_entries} entries"))
            break
        try:
            _check_xattrs(entry)
        except (Hang, KeyboardInterrupt):
            raise
        except BaseException:
            report.bugs.append((path, "xattrs", traceback.format_exc()))
        if isinstance(entry, Dir):
            report.dirs += 1
            try:
                kids = entry.children()
                items = list(kids.items())
                # folders found by name only (body/nodes): walked too, they are part of the tree
                items += [(n, c) for n in sorted(getattr(entry, "unlisted", ()))
                          if (c := entry.child(n)) is not None]
            except (Hang, KeyboardInterrupt):
                raise
            except BaseException as e:
                if _documented(e):
                    report.unreadable.append((path, f"listing: {e}"))
                else:
                    report.bugs.append((path, "children", traceback.format_exc()))
                continue
            for name, child in reversed(items):
                if not _valid_name(name) or getattr(child, "name", None) != name:
                    report.bugs.append((path, "children", f"invalid name {name!r} for {child!r}"))
                    continue
                stack.append((f"{path}/{name}", child))
        elif isinstance(entry, File):
            report.files += 1
            _read_file(path, entry, report, keep)
        else:
            report.bugs.append((path, "type", f"neither Dir nor File: {entry!r}"))
    return report


def _check_xattrs(entry: Entry) -> None:
    for k, v in dict(entry.xattrs).items():
        if not isinstance(k, str) or not isinstance(v, (bytes, str)):
            raise TypeError(f"xattr {k!r} = {v!r}")


def _read_file(path: str, f: File, report: WalkReport, keep) -> None:
    op = "size"
    try:
        size = f.size()
        if not isinstance(size, int) or size < 0:
            raise TypeError(f"size() returned {size!r}")
        hint = f.size(wait=False)
        if hint is not None and hint != size:
            raise AssertionError(f"size(wait=False) {hint} != size {size}")
        if f.error:
            report.unreadable.append((path, str(f.error)))
            return
        op = "read"
        parts = []
        offset = 0
        while offset < size:
            want = min(READ_PIECE, size - offset)
            data = f.read(offset, want)
            if not isinstance(data, (bytes, bytearray)) or len(data) != want:
                raise AssertionError(f"read({offset}, {want}) gave {len(data)} bytes of a {size}-byte file")
            parts.append(bytes(data))
            offset += want
        if f.read(size, READ_PIECE):
            raise AssertionError(f"read past the end ({size}) gave bytes")
        if f.size() != size:
            raise AssertionError(f"size changed from {size} to {f.size()} after reading")
        report.bytes_read += size
        if keep is not None and keep(path):
            report.contents[path] = b"".join(parts)
    except (Hang, KeyboardInterrupt):
        raise
    except BaseException as e:
        if _documented(e):
            report.unreadable.append((path, f"{op}: {e}"))
        else:
            report.bugs.append((path, op, traceback.format_exc()))


MEMORY_LIMIT = 64 << 20    # generous: the hostile files here are at most a few hundred KiB
CASE_SECONDS = 60.0        # a hostile file takes well under a second; this catches hangs only,
                           # with room for a busy machine


def walk_files(files: dict[str, bytes], *, seconds: float = CASE_SECONDS,
               memory_limit: int = MEMORY_LIMIT, keep=None) -> WalkReport:
    """Write `files` (relative path -> bytes) into a fresh folder, build the tree
    over it as a mount would, and walk everything. Fails the test on an
    undocumented outcome, a hang, or a traced memory peak above the limit."""
    report, peak = walk_folder(files, seconds=seconds, keep=keep)
    what = ", ".join(f"{k} ({len(v)} bytes)" for k, v in files.items())
    report.assert_no_bugs(what)
    assert peak < memory_limit, f"{what}: traced memory peak {peak >> 20} MiB"
    return report


def walk_folder(files: dict[str, bytes], *, seconds: float = CASE_SECONDS, keep=None, ctx=None,
                inspect=None, trace: bool = True) -> tuple[WalkReport, int]:
    """walk_files without its verdict: (the report, the traced memory peak).
    `ctx`: the TreeContext (default: a mount's); `inspect(root, report)`: called
    after the walk, under the same deadline, while the tree still exists.
    `trace`: measure the peak (tracemalloc slows Python about twice; else 0).
    Raises Hang past `seconds`."""
    import tempfile
    from pathlib import Path

    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.root import build_tree

    with tempfile.TemporaryDirectory(prefix="gbxfs-robust-") as tmp:
        for rel, data in files.items():
            path = Path(tmp) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        with peak_memory() if trace else contextlib.nullcontext([0]) as peak:
            with deadline(seconds):
                root = build_tree(tmp, ctx if ctx is not None else TreeContext())
                report = walk_tree(root, keep=keep)
                if inspect is not None:
                    inspect(root, report)
    return report, peak[0]
