"""The one status of a GBX file, shown by `gbxfs coverage`, `gbxfs info`,
info.txt and the maps.csv / replays.csv rows alike.

- `complete`: the header and its reference table parse, every header chunk
  decodes, the body walk reached the main node's end marker exactly at the end
  of the body, and no folder of the file's view holds an error.txt (X.Gbx/,
  header/, body/, body/nodes/, ghosts/, embedded/: every problem any of them
  reports, such as a body chunk that did not decode though the walk could skip
  it, or ghost samples that do not decode);
- otherwise the body's own status when it is not `complete` (`partial`,
  `failed`, `absent`: no body, `unavailable`: the body cannot be read or
  kept), `partial` when only an error.txt tells what is missing, and `failed`
  when the header itself does not parse.

The reason names the first error.txt and its first problem. The status is
read off the folder's own error.txt files (gbxfs/tree/gbx/errors.py), so a
status and the folders can never tell different stories.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gbxfs.tree.gbx.errors import ERROR_NAME, ERROR_XATTR
from gbxfs.tree.model import Dir, Entry

COMPLETE = "complete"

# the sub-folders of a GBX folder that can hold an error.txt (found by name:
# body/nodes/, ghosts/ and embedded/ are not listed)
ERROR_FOLDERS = ("", "header", "body", "body/nodes", "ghosts", "embedded")


@dataclass(frozen=True)
class FileStatus:
    status: str
    reason: str | None = None


def _folder(root: Dir, path: str) -> Dir | None:
    d: Entry | None = root
    for part in filter(None, path.split("/")):
        d = d.child(part) if isinstance(d, Dir) else None
    return d if isinstance(d, Dir) else None


def error_files(root: Dir) -> Iterator[tuple[str, Entry | str]]:
    """(folder path, its error.txt) for each folder of a GBX folder holding one;
    (folder path, why) for a folder that cannot be listed at all."""
    for path in ERROR_FOLDERS:
        try:
            d = _folder(root, path)
            f = None if d is None else d.child(ERROR_NAME)
        except OSError as e:          # a folder answering EIO is no complete part
            yield path, f"cannot be listed: {e.strerror or e}"
            continue
        if f is not None:
            yield path, f


def _first_problem(f: Entry | str) -> str:
    v = f if isinstance(f, str) else f.xattrs.get(ERROR_XATTR, b"")
    text = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    return " ".join(text.split())      # one line


def file_status(root: Dir, body_status: str | None) -> FileStatus:
    """The status of the GBX file shown as `root` (a GbxFolder); `body_status`:
    its body walk's (None: the header does not parse)."""
    errs = list(error_files(root))
    reason = None
    if errs:
        path, f = errs[0]
        where = f"{path}/" if isinstance(f, str) else f"{path + '/' if path else ''}{ERROR_NAME}"
        reason = f"{where}: {_first_problem(f)}"
    if body_status is None:
        return FileStatus("failed", reason)
    if body_status != COMPLETE:
        return FileStatus(body_status, reason)
    return FileStatus("partial", reason) if errs else FileStatus(COMPLETE)


def status_of_entry(entry: Entry) -> Any:
    """The FileStatus of a listed entry (a file shown as a folder is opened first), None when it has none."""
    view = getattr(entry, "view", None)
    if view is not None:
        entry = view()
    f = getattr(entry, "status", None)
    return f() if f is not None else None
