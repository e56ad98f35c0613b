"""error.txt of a GBX folder and of its sub-folders.

Each folder's error.txt lists the problems found while making that folder's
own listing, and only those, so it is there (or not) on the first listing
and on every later one, whatever the cache dropped in between:

- `X.Gbx/error.txt`: the file's bytes cannot be verified (inside a pak), the
  header does not parse, the thumbnail chunk is malformed (the header alone);
- `X.Gbx/header/error.txt`: header chunks that did not decode;
- `X.Gbx/body/error.txt`: the body's declared sizes do not fit the file (cut
  short): body/ shows no body.bin then;
- `X.Gbx/body/nodes/error.txt`: the problems of the body's parse (a body that
  does not decompress, nodes and chunks that did not decode); body/ itself is
  listed without reading the body, so a walk of the mount never parses one
  (docs/formats/mount.md);
- `X.Gbx/ghosts/error.txt`, `X.Gbx/embedded/error.txt`: ghost samples and
  control entries (inputs.csv) that did not decode, embedded content that
  cannot be shown;
- `X.Gbx/mesh/error.txt`: levels of detail that cannot be built (mesh.obj,
  mesh.lod1.obj, ...); `X.Gbx/header/error.txt` also an icon that cannot be
  made into icon.png. A derived file that cannot be made answers EIO and
  names the error.txt that says why.
"""
from __future__ import annotations

from gbxfs.tree.gbx.info import describe
from gbxfs.tree.model import Entry, RenderedFile

ERROR_NAME = "error.txt"
ERROR_XATTR = "user.gbxfs.error"


def error_file(problems: list[tuple[str, BaseException]]) -> Entry | None:
    """error.txt listing `problems` (what, exception), each once; None when there are none."""
    seen: set[int] = set()
    # one failure recorded on a chunk, its node and the body alike: listed once
    errs = []
    for w, e in problems:
        if id(e) not in seen:
            seen.add(id(e))
            errs.append((w, e))
    if not errs:
        return None
    text = "".join(describe(w, e) + "\n" for w, e in errs)
    f = RenderedFile(ERROR_NAME, lambda: text.encode("utf-8", "replace"))
    f.xattrs[ERROR_XATTR] = str(errs[0][1]).encode("utf-8", "replace")
    return f


def with_errors(entries: list[Entry], problems: list[tuple[str, BaseException]],
                xattrs: dict | None = None) -> list[Entry]:
    """`entries` and their folder's error.txt (when there is a problem); `xattrs`:
    the folder's, which then get the first problem as user.gbxfs.error."""
    f = error_file(problems)
    if f is None:
        return entries
    if xattrs is not None:
        xattrs[ERROR_XATTR] = f.xattrs[ERROR_XATTR]
    return [*entries, f]
