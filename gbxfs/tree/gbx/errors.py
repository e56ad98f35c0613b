"""error.txt of a GBX folder: every problem known so far, from the header,
the body's parse and the files derived from it.

The folder asks on every listing, and the FUSE layer lists a loaded folder on
its event loop: collecting only peeks at the cache, never parses.
"""
from __future__ import annotations

import threading

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.tree.gbx.info import describe
from gbxfs.tree.gbx.digest import BodyFiles, body_problems
from gbxfs.tree.gbx.parse import GbxParse, _bare
from gbxfs.tree.model import Entry, RenderedFile

ERROR_XATTR = "user.gbxfs.error"


class Problems:
    """The known problems of one GBX file, and the error.txt that lists them."""

    def __init__(self, p: GbxParse, files: BodyFiles):
        self.p = p
        self.files = files
        self._noted: dict[str, BaseException] = {}   # problems found by derived files
        self._file: tuple[int, Entry] | None = None
        self._lock = threading.Lock()
        self._header: list[tuple[str, BaseException]] = []   # last seen, for when the cache lost it

    def note(self, what: str, e: BaseException) -> None:
        with self._lock:
            self._noted.setdefault(what, _bare(e))   # no traceback: it would keep the parse alive

    def known(self) -> list[tuple[str, BaseException]]:
        p = self.p
        out: list[tuple[str, BaseException]] = []
        if p.source_error:
            out.append(("file bytes", GbxError(f"cannot be verified: {p.source_error}")))
        ph = p.ctx.cache.get(("gbx.header", p.source))
        if ph is not None:
            found: list[tuple[str, BaseException]] = []
            if ph.error is not None:
                found.append(("header", ph.error))
            elif ph.header is not None:
                found += [(f"header chunk {c.chunk_id:08X}", _bare(c.error)) for c in ph.header.chunks
                          if c.error is not None]
            self._header = found
        out += self._header
        # the body's digest keeps its problems when the parse itself was evicted
        d = self.files.peek()
        if d is not None:
            out += d.problems
        else:
            pb = p.ctx.cache.get(("gbx.body", p.source))
            if pb is not None:
                out += body_problems(pb)
        with self._lock:
            out += list(self._noted.items())
        # one failure is recorded on the chunk, its node and the body alike: list it once
        seen: set[int] = set()
        return [(w, e) for w, e in out if not (id(e) in seen or seen.add(id(e)))]

    def error_file(self, xattrs: dict) -> Entry | None:
        """error.txt when a problem is known (and the folder's error xattr set), else None."""
        errs = self.known()
        if not errs:
            return None
        with self._lock:
            if self._file is None or self._file[0] != len(errs):
                text = "".join(describe(w, e) + "\n" for w, e in errs)
                f = RenderedFile("error.txt", lambda t=text: t.encode("utf-8", "replace"))
                self._file = (len(errs), f)
                xattrs[ERROR_XATTR] = str(errs[0][1]).encode("utf-8", "replace")
            return self._file[1]
