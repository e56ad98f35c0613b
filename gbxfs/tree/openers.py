"""The opener registry: which file kinds become folders, and how.

Adding a format is one line in DEFAULT_OPENERS; the first opener that matches
wins, so the order matters (ManiaPlanet .Pack.Gbx before GBX). An opener
matches a file by name (cheap, no I/O), then optionally by a condition on the
context (`when`: GBX folders only in gbx_mode "folder") and a content probe
(reads a few bytes; a probe that fails leaves the file plain), and holds the view factory `factory(name, source, ctx) -> Dir` that builds
the folder (ViewFactory in gbxfs/tree/contract.py).

Matching a file never builds its view: the folder shown is a ViewDir that
calls the factory on first listing. Listing a folder of 50 paks therefore
decrypts nothing, whatever the pak view does when it is called.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gbxfs.tree import gp2view
from gbxfs.tree.context import TreeContext
from gbxfs.tree.contract import ViewFactory
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.logs import log_failure
from gbxfs.tree.model import BytesFile, Dir, Entry, ErrorFolder, RealFile, SourceFile
from gbxfs.tree.pak.pack import open_pack_gbx, probe_pack_gbx
from gbxfs.tree.pak.view import open_pak
from gbxfs.tree.source import ByteSource

log = logging.getLogger("gbxfs.tree")

Factory = ViewFactory
Probe = Callable[[str, ByteSource], bool]


@dataclass
class Opener:
    kind: str
    factory: Factory
    suffixes: tuple[str, ...] = ()              # lower-case name endings; () = any name
    probe: Probe | None = None                  # cheap content check, after the name matched
    when: Callable[[TreeContext], bool] | None = None   # e.g. only in gbx_mode "folder"
    list_ahead: bool = False    # its folders may be listed before asked for (model.Dir.list_ahead)

    def matches(self, name: str, source: ByteSource, ctx: TreeContext) -> bool:
        if self.suffixes and not name.lower().endswith(self.suffixes):
            return False
        if self.when is not None and not self.when(ctx):
            return False
        if self.probe is not None:
            try:
                return bool(self.probe(name, source))
            except Exception as e:  # noqa: BLE001 - a probe bug must not hide the file: show it plain
                log_failure(log, e, "%s probe failed on %s", self.kind, name)
                return False
        return True


def _gbx_folders(ctx: TreeContext) -> bool:
    return ctx.gbx_mode == "folder"


DEFAULT_OPENERS: list[Opener] = [
    Opener("pak", open_pak, suffixes=(".pak",)),
    # ManiaPlanet packs end in .Gbx but are archives: before the GBX opener
    Opener("pack", open_pack_gbx, suffixes=(".pack.gbx",), probe=probe_pack_gbx),
    Opener("gbx", open_gbx, suffixes=(".gbx",), when=_gbx_folders, list_ahead=True),
    # GP2 track files are .DAT files; the probe tells them from other .dat files
    Opener("gp2", gp2view.open_gp2, suffixes=(".dat",), probe=gp2view.probe),
]


class ViewDir(Dir):
    """A file shown as a folder by a format view. The view is built on the
    first listing and then answers every listing itself. If building it
    fails unexpectedly, the folder holds error.txt and the original bytes
    instead, so one bad file stays one bad folder."""

    __slots__ = ("kind", "source", "_factory", "_ctx", "_view", "_own_xattrs", "list_ahead")

    def __init__(self, name: str, kind: str, factory: Factory, source: ByteSource, ctx: TreeContext,
                 list_ahead: bool = False):
        self._own_xattrs: dict = {}
        super().__init__(name, mtime_ns=source.mtime_ns, access=getattr(source, "access", None))
        self.list_ahead = list_ahead    # the opener's (model.Dir.list_ahead)
        self.kind = kind
        self.source = source
        self._factory = factory
        self._ctx = ctx
        self._view: Dir | None = None

    # the folder's attributes: its own, plus the view root's once it is open (class id, error)
    @property
    def xattrs(self):
        view = self._view
        return self._own_xattrs if view is None else {**self._own_xattrs, **view.xattrs}

    @xattrs.setter
    def xattrs(self, value) -> None:
        self._own_xattrs = value

    def view(self) -> Dir:
        """The view's folder, built on first use."""
        view = self._view
        if view is None:
            with self._lock:
                if self._view is None:
                    self._view = self._open_view()
                view = self._view
        return view

    def _list(self) -> Mapping[str, Entry]:
        view = self.view()
        try:
            return view.children()
        except Exception as e:  # noqa: BLE001 - a view whose listing fails is replaced by the error folder
            return self._replaced(view, e).children()

    def _list_now(self) -> Mapping[str, Entry] | None:
        view = self._view
        return None if view is None else view.children(wait=False)

    def _find(self, name: str) -> Entry | None:
        """What the view finds by name, listed or not (a GBX folder's embedded/), in one call."""
        view = self.view()
        try:
            return view.child(name)
        except Exception as e:  # noqa: BLE001 - a view whose lookup fails is replaced by the error folder
            return self._replaced(view, e).child(name)

    def _replaced(self, view: Dir, e: Exception) -> Dir:
        """The error folder for a view whose listing failed (once, whoever asks)."""
        with self._lock:
            if self._view is view:
                self._view = self._error_view(e)
            assert self._view is not None       # `view` was open: replaced here, or by another thread
            return self._view

    @property
    def unlisted(self) -> frozenset[str]:
        """The view's names found by name but never listed (model.PartlyListedDir)."""
        return getattr(self.view(), "unlisted", frozenset())

    def peek(self) -> Mapping[str, Entry] | None:
        view = self._view
        return None if view is None else view.peek()

    def _open_view(self) -> Dir:
        try:
            view = self._factory(self.name, self.source, self._ctx)
            if not isinstance(view, Dir):
                raise TypeError(f"the {self.kind} view returned {type(view).__name__}, not a folder")
            return view
        except Exception as e:  # noqa: BLE001 - one bad file never takes the folder down
            return self._error_view(e)

    def _error_view(self, e: Exception) -> Dir:
        log_failure(log, e, "could not open %s as %s", self.name, self.kind)
        reason = f"{type(e).__name__}: {e}"
        text = f"{self.name} could not be shown as a {self.kind} folder.\n{reason}\n"
        ext = os.path.splitext(self.name)[1].lower()
        return ErrorFolder(self.name, reason, [BytesFile("error.txt", text.encode("utf-8", "replace")),
                                               SourceFile("original" + ext, self.source)],
                           xattrs={"user.gbxfs.error": reason.encode("utf-8", "replace")})


def open_entry(name: str, source: ByteSource, ctx: TreeContext,
               openers: Sequence[Opener] | None = None) -> Entry:
    """The tree entry for a named byte source: the first matching view as a
    (lazy) folder, else the bytes as a plain file."""
    for opener in DEFAULT_OPENERS if openers is None else openers:
        if opener.matches(name, source, ctx):
            return ViewDir(name, opener.kind, opener.factory, source, ctx, opener.list_ahead)
    # a source with an access of its own is a real file (tree/source.py FileSource): its
    # mode as it is; any other (a pak's or a ZIP's entry) is made from its container
    return (SourceFile if getattr(source, "access", None) is None else RealFile)(name, source)


def install(ctx: TreeContext, openers: Sequence[Opener] | None = None) -> TreeContext:
    """Make ctx.open_child(name, source) use this registry, so container views recurse."""
    def open_child(name: str, source: ByteSource) -> Entry:
        return open_entry(name, source, ctx, openers)

    ctx.open_child = open_child
    return ctx
