"""The opener registry: which file kinds become folders, and how.

Adding a format is one line in DEFAULT_OPENERS. An opener matches a file by
name (cheap, no I/O), then optionally by a content probe (reads a few bytes),
and names a view factory `factory(name, source, ctx) -> Dir` by
"module:function" string, so the registry never imports a view before it is
needed and a view that does not exist yet simply leaves that kind as a plain
file.

Matching a file never builds its view: the folder shown is a ViewDir that
calls the factory on first listing. Listing a folder of 50 paks therefore
decrypts nothing, whatever the pak view does when it is called.
"""
from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from gbxfs.tree.context import TreeContext
from gbxfs.tree.logs import log_failure
from gbxfs.tree.model import BytesFile, Dir, Entry, ErrorFolder, SourceFile
from gbxfs.tree.source import ByteSource

log = logging.getLogger("gbxfs.tree")

Factory = Callable[[str, ByteSource, TreeContext], Dir]
Probe = Callable[[str, ByteSource], bool]


@dataclass
class Opener:
    kind: str
    factory: str | Factory                      # "module:function" or a callable
    suffixes: tuple[str, ...] = ()              # lower-case name endings; () = any name
    probe: str | Probe | None = None            # cheap content check, after the name matched
    when: Callable[[TreeContext], bool] | None = None   # e.g. only in gbx_mode "folder"
    _resolved: dict = field(default_factory=dict, repr=False, compare=False)

    def _get(self, attr: str):
        """The callable behind `attr`, importing it on first use; None when its
        module does not exist (a view not written yet)."""
        if attr in self._resolved:
            return self._resolved[attr]
        target = getattr(self, attr)
        fn = target
        if isinstance(target, str):
            module_name, func_name = target.split(":")
            try:
                fn = getattr(importlib.import_module(module_name), func_name)
            except ModuleNotFoundError as e:
                if e.name != module_name:
                    raise
                log.debug("%s view %s not available: %s", self.kind, module_name, e)
                fn = None
            except AttributeError:
                log.debug("%s view %s has no %s yet", self.kind, module_name, func_name)
                fn = None
        self._resolved[attr] = fn
        return fn

    def matches(self, name: str, source: ByteSource, ctx: TreeContext) -> bool:
        if self.suffixes and not name.lower().endswith(self.suffixes):
            return False
        if self.when is not None and not self.when(ctx):
            return False
        if self._get("factory") is None:
            return False
        if self.probe is not None:
            probe = self._get("probe")
            if probe is None:
                return False
            try:
                return bool(probe(name, source))
            except Exception as e:  # a probe bug must not hide the file: show it plain
                log_failure(log, e, "%s probe failed on %s", self.kind, name)
                return False
        return True


def _gbx_folders(ctx: TreeContext) -> bool:
    return ctx.gbx_mode == "folder"


DEFAULT_OPENERS: list[Opener] = [
    Opener("pak", "gbxfs.tree.pakview:open_pak", suffixes=(".pak",)),
    # ManiaPlanet packs end in .Gbx but are archives: before the GBX opener
    Opener("pack", "gbxfs.tree.pakview:open_pack_gbx", suffixes=(".pack.gbx",),
           probe="gbxfs.tree.pakview:probe_pack_gbx"),
    Opener("gbx", "gbxfs.tree.gbxview:open_gbx", suffixes=(".gbx",), when=_gbx_folders),
    # GP2 track files are .DAT files; the probe tells them from other .dat files
    Opener("gp2", "gbxfs.tree.gp2view:open_gp2", suffixes=(".dat",), probe="gbxfs.tree.gp2view:probe"),
]


class ViewDir(Dir):
    """A file shown as a folder by a format view. The view is built on the
    first listing and then answers every listing itself (its folder may
    change, e.g. error.txt appearing once a body was parsed). If building it
    fails unexpectedly, the folder holds error.txt and the original bytes
    instead, so one bad file stays one bad folder."""

    __slots__ = ("kind", "source", "_factory", "_ctx", "_view", "_own_xattrs")

    def __init__(self, name: str, kind: str, factory: Factory, source: ByteSource, ctx: TreeContext):
        super().__init__(name, mtime_ns=source.mtime_ns, access=getattr(source, "access", None))
        self.kind = kind
        self.source = source
        self._factory = factory
        self._ctx = ctx
        self._view: Dir | None = None

    # the folder's attributes: its own, plus the view root's once it is open (class id, error)
    @property
    def xattrs(self):  # type: ignore[override]
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

    def children(self) -> Mapping[str, Entry]:
        view = self.view()
        try:
            return view.children()
        except Exception as e:   # a view whose listing fails is replaced by the error folder
            with self._lock:
                if self._view is view:
                    self._view = self._error_view(e)
                view = self._view
            return view.children()

    def loaded(self) -> bool:
        view = self._view
        return view is not None and view.loaded()

    def peek(self) -> Mapping[str, Entry] | None:
        view = self._view
        return None if view is None else view.peek()

    def _open_view(self) -> Dir:
        try:
            view = self._factory(self.name, self.source, self._ctx)
            if not isinstance(view, Dir):
                raise TypeError(f"the {self.kind} view returned {type(view).__name__}, not a folder")
            return view
        except Exception as e:
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
            return ViewDir(name, opener.kind, opener._get("factory"), source, ctx)
    return SourceFile(name, source)


def install(ctx: TreeContext, openers: Sequence[Opener] | None = None) -> TreeContext:
    """Make ctx.open_child(name, source) use this registry, so container views recurse."""
    def open_child(name: str, source: ByteSource) -> Entry:
        return open_entry(name, source, ctx, openers)

    ctx.open_child = open_child
    return ctx
