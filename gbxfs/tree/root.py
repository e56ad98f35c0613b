"""The root of the tree: a real folder, passed through, with views for the
file kinds the opener registry knows.

Real directories become RealDirs (listed on first access, re-listed when the
directory changes on disk); real files go through the registry, which turns
paks, GBX and GP2 files into folders and leaves everything else a plain file
backed by a FileSource.

Symlinks are followed only while they stay inside the source folder: a link
pointing outside it, a dangling link, or a directory link back onto a folder
already on the current path (a loop) is left out of the listing. A link is
also left out when a folder it jumps over could refuse someone: every real
folder on its target's path that is not also on the link's own path must be
searchable by owner, group and others and carry no ACL (the daemon follows
links as itself; the kernel checks only what the mount shows, i.e. the link's
path and the target's own access). Special files (fifos, sockets, devices)
are left out too: reading them could block.

maps.csv / replays.csv list only the GBX files everyone may read (r for owner,
group and others, no ACL): they are one file for every caller, so a row of a
file some caller could not open would tell that caller its contents. They are
shown with the folder's access without any x.
"""
from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Mapping, Sequence

from gbxfs.tree.acl import access_of, open_to_all, searchable_by_all, without_x
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.index import index_files, index_group, indexed_names
from gbxfs.tree.model import LATER, Dir, Entry, Later
from gbxfs.tree.openers import Opener, install, open_entry
from gbxfs.tree.source import FileSource

log = logging.getLogger("gbxfs.tree")

# how long a listing of a real directory is trusted before its mtime is checked again
RECHECK_SECONDS = 1.0
# files looked up one by one before a folder's first listing; past these, it is listed
EARLY_MAX = 256
# a lookup in a listed real folder also checks the files of this many names after it:
# their first lookups within RECHECK_SECONDS need no check of their own (_find_now)
CHECK_AHEAD = 32


class RealDir(Dir):
    """A directory of the source folder."""

    __slots__ = ("path", "_root", "_ctx", "_seen", "_sigs", "_dir_mtime", "_checked", "_early", "_listed",
                 "_groups", "_order", "_fresh")
    exact_mode = True

    def __init__(self, name: str, path: str, *, root: str, ctx: TreeContext,
                 seen: frozenset[str] = frozenset(), mtime_ns: int | None = None, st: os.stat_result | None = None):
        super().__init__(name, mtime_ns=mtime_ns, access=None if st is None else access_of(path, st))
        self.path = path          # where to list (a followed link's real target)
        self._root = root         # real path of the source folder: links stay inside it
        self._ctx = ctx
        self._seen = seen | {os.path.realpath(path)}   # real dirs on the way here
        self._sigs: dict[str, tuple] = {}
        self._dir_mtime: int | None = None
        self._checked = 0.0
        # name -> (entry, signature) of files looked up before the first listing
        # (child()): the listing keeps these entries when their files did not change
        self._early: dict[str, tuple[Entry, tuple]] = {}
        # what the listing's maps.csv / replays.csv are made of (_indexed): the entries
        # they may show, and the names each has a row for
        self._listed: dict[str, Entry] = {}
        self._groups: dict[str, list[str]] | None = None
        # (listing, its names in order, name -> position): where a lookup's next names are
        self._order: tuple[dict, list[str], dict[str, int]] | None = None
        # name -> when its file was found unchanged by an earlier name's lookup (_check_after)
        self._fresh: dict[str, float] = {}

    def _list_now(self) -> Mapping[str, Entry] | None:
        """The listing when it was checked against the disk less than RECHECK_SECONDS ago."""
        if self._children is None or time.monotonic() - self._checked >= RECHECK_SECONDS:
            return None
        return self._list()

    def _list(self) -> dict[str, Entry]:
        with self._lock:
            now = time.monotonic()
            if self._children is None or now - self._checked >= RECHECK_SECONDS:
                mtime = os.stat(self.path).st_mtime_ns
                if self._children is None or mtime != self._dir_mtime:
                    old = self._children
                    if old is None:     # entries looked up already are kept (child())
                        old = {n: e for n, (e, _) in self._early.items()}
                        self._sigs = {n: sig for n, (_, sig) in self._early.items()}
                        self._early = {}
                    self._children = self._scan(old)
                    self._dir_mtime = mtime
                    self.mtime_ns = mtime
                self._checked = now
            assert self._children is not None       # listed now or before (never unset)
            return self._children

    revalidates = True

    def _find(self, name: str) -> Entry | None:
        entry = self._recheck(name)
        self._check_after(name)
        return entry

    def _find_now(self, name: str) -> Entry | None | Later:
        """The child `name` when the lookup of an earlier name found its file
        unchanged less than RECHECK_SECONDS ago (once: a second lookup checks the
        file itself), else LATER. No I/O: the event loop answers such a lookup,
        so that `find` entering thousands of files shown as folders, after the
        kernel's entries expired, crosses to a worker thread once per CHECK_AHEAD."""
        t = self._fresh.pop(name, None)
        kids = self._children
        if t is None or kids is None or time.monotonic() - t >= RECHECK_SECONDS:
            return LATER
        found = kids.get(name)
        return LATER if found is None else found

    def _check_after(self, name: str) -> None:
        """Check the files of the CHECK_AHEAD names after `name` in the listing (not
        folders, nor generated files): those unchanged are marked for _find_now."""
        kids = self._children
        if kids is None or len(kids) < 2:
            return
        order = self._order
        if order is None or order[0] is not kids:      # a new listing (a replaced entry keeps it)
            names = list(kids)
            order = self._order = (kids, names, {n: i for i, n in enumerate(names)})
        i = order[2].get(name)
        if i is None:
            return
        fresh: dict[str, float] = {}
        for n in order[1][i + 1:i + 1 + CHECK_AHEAD]:
            old = self._sigs.get(n)
            if old is None or old[0]:
                continue
            item = self._classify(_PathEntry(self.path, n))
            if item is not None and not item[3] and _sig(item[1], False) == old:
                fresh[n] = time.monotonic()
        self._fresh = fresh     # the marks of the previous lookup go: at most CHECK_AHEAD kept

    def _recheck(self, name: str) -> Entry | None:
        """The child `name`, re-checked on disk: a file whose size, mtime, inode or
        mode changed since the listing gets a new entry (and so drops everything
        derived from the old one: views, parses, cached renderings). A file shown
        as a folder (a pak, a .Gbx, a GP2 track) is a file here like any other.
        A real folder still there keeps its entry (its listing re-checks itself)
        with its access read again: a chmod or an ACL set on it counts at once.
        Before the first listing, a name no index could have is looked up alone
        (`ls` of one map in a folder of 100,000 lists one file, not the folder)."""
        if self._children is None and not name.endswith(".csv"):
            with self._lock:
                if self._children is None and len(self._early) < EARLY_MAX:
                    return self._look_up_early(name)
        kids = self._list()
        entry = kids.get(name)
        if entry is None or name not in self._sigs:   # not in _sigs: generated (maps.csv)
            return entry
        item = self._classify(_PathEntry(self.path, name))
        with self._lock:
            if self._children is not kids:   # re-listed meanwhile: that listing is newer
                return (self._children or {}).get(name)     # never unset once listed
            if item is None:
                self._sigs.pop(name, None)
                self._children = self._indexed({k: v for k, v in kids.items() if k != name})
                return None
            _, st, target, is_dir = item
            sig, old = _sig(st, is_dir), self._sigs.get(name)
            if isinstance(entry, RealDir) and is_dir and old is not None and old[1:3] == sig[1:3]:
                entry.access = access_of(target, st)      # the same folder: its access, now
                self._sigs[name] = sig
                return entry
            if sig == old:
                return entry
            try:
                new = self._make(name, st, target, is_dir)
            except OSError:
                return entry
            self._sigs[name] = sig
            if self._index_row(name, new) == self._index_row(name, entry):
                self._replace(kids, name, new)
            else:
                self._children = self._indexed({**kids, name: new})   # the index shows the new file
            return new

    def _index_row(self, name: str, entry: Entry) -> str | None:
        """The index with a row for `entry` (the one maps.csv / replays.csv of
        _indexed), else None."""
        if entry.is_dir and not isinstance(entry, RealDir) and not open_to_all(entry.access, 0o4):
            return None
        return index_group(name, entry)

    def _replace(self, kids: dict[str, Entry], name: str, new: Entry) -> None:
        """A changed file's new entry, in place (under the lock): the same names in
        the same order, so the listing stays what it was but for that entry, and
        its index files are made again (a new key: the file's row may change).
        A lookup of each of thousands of changed files (links whose ctime moved)
        then costs no copy of the folder's listing."""
        kids[name] = new
        if name in self._listed:
            self._listed[name] = new
        for e in index_files(self._listed, self._ctx.cache, ("gbx.index", object()), groups=self._groups):
            e.access = without_x(self.access)
            kids[e.name] = e

    def _look_up_early(self, name: str) -> Entry | None:
        """child(name) before the first listing (under the lock): the file checked
        alone, its entry kept for the listing while its signature holds."""
        item = self._classify(_PathEntry(self.path, name))
        if item is None:
            self._early.pop(name, None)
            return None
        _, st, target, is_dir = item
        sig = _sig(st, is_dir)
        known = self._early.get(name)
        if known is not None and known[1] == sig:
            return known[0]
        if known is not None and isinstance(known[0], RealDir) and is_dir and known[1][1:3] == sig[1:3]:
            known[0].access = access_of(target, st)      # the same folder: its access, now (as child())
            self._early[name] = (known[0], sig)
            return known[0]
        try:
            entry = self._make(name, st, target, is_dir)
        except OSError:
            return None
        self._early[name] = (entry, sig)
        return entry

    def _scan(self, old: dict[str, Entry]) -> dict[str, Entry]:
        """List the directory, keeping the entries of unchanged files (so views
        already opened, and their caches, survive a re-listing)."""
        found: list[tuple[str, os.stat_result, str, bool]] = []
        with os.scandir(self.path) as it:
            for de in it:
                item = self._classify(de)
                if item is not None:
                    found.append(item)
        found.sort(key=lambda item: item[0])
        kids: dict[str, Entry] = {}
        sigs: dict[str, tuple] = {}
        for name, st, target, is_dir in found:
            sig = _sig(st, is_dir)
            entry = old.get(name)
            if entry is None or self._sigs.get(name) != sig:
                try:
                    entry = self._make(name, st, target, is_dir)
                except OSError as e:  # vanished or unreadable meanwhile: leave it out
                    log.debug("skipping %s: %s", os.path.join(self.path, name), e)
                    continue
            kids[name] = entry
            sigs[name] = sig
        self._sigs = sigs
        return self._indexed(kids)

    def _indexed(self, kids: dict[str, Entry]) -> dict[str, Entry]:
        """The listing's source entries plus maps.csv / replays.csv made for them
        (under names no source entry has; a new cache key for each new listing)."""
        kids = {k: v for k, v in kids.items() if k in self._sigs}
        # files shown as folders are what the index rows come from; every name stays taken
        listed = {k: v for k, v in kids.items()
                  if not v.is_dir or isinstance(v, RealDir) or open_to_all(v.access, 0o4)}
        access = without_x(self.access)    # maps.csv / replays.csv: their folder's, no x
        self._listed, self._groups = listed, indexed_names(listed)
        for e in index_files(listed, self._ctx.cache, ("gbx.index", object()), groups=self._groups):
            e.access = access
            kids[e.name] = e
        return kids

    def _classify(self, de: os.DirEntry | _PathEntry):
        """(name, stat, path to use, is_dir) for an entry to show, or None."""
        try:
            if de.is_symlink():
                target = os.path.realpath(de.path)
                if not _inside(target, self._root):
                    log.debug("not following %s: points outside the source", de.path)
                    return None
                if not self._open_way(target):
                    log.debug("not following %s: a folder on the way to its target may refuse someone", de.path)
                    return None
                st = os.stat(target)
                if stat.S_ISDIR(st.st_mode) and target in self._seen:
                    log.debug("not following %s: a loop", de.path)
                    return None
            else:
                st = de.stat(follow_symlinks=False)
                target = de.path
        except OSError as e:  # dangling link, permission, vanished
            log.debug("skipping %s: %s", de.path, e)
            return None
        if stat.S_ISDIR(st.st_mode):
            return (de.name, st, target, True)
        if stat.S_ISREG(st.st_mode):
            return (de.name, st, target, False)
        return None

    def _open_way(self, target: str) -> bool:
        """Every real folder between the source root and `target` that is not on
        this folder's own path (checked already: by the kernel, or when a link led
        here) is searchable by everyone."""
        folder = os.path.dirname(target)
        while folder != self._root and _inside(folder, self._root) and not _inside(self.path, folder):
            if not searchable_by_all(folder):
                return False
            folder = os.path.dirname(folder)
        return True

    def _make(self, name: str, st: os.stat_result, path: str, is_dir: bool) -> Entry:
        if is_dir:
            return RealDir(name, path, root=self._root, ctx=self._ctx, seen=self._seen,
                           mtime_ns=st.st_mtime_ns, st=st)
        assert self._ctx.open_child is not None     # set by the tree builder
        return self._ctx.open_child(name, FileSource(path, st, self._ctx.open_files))


class _PathEntry:
    """The part of os.DirEntry that _classify uses, for one name (no directory scan)."""

    def __init__(self, folder: str, name: str):
        self.name = name
        self.path = os.path.join(folder, name)
        try:
            self._lst: os.stat_result | None = os.lstat(self.path)
        except OSError:
            self._lst = None

    def is_symlink(self) -> bool:
        return self._lst is not None and stat.S_ISLNK(self._lst.st_mode)

    def stat(self, follow_symlinks: bool = True) -> os.stat_result:
        if self._lst is None:
            raise FileNotFoundError(2, "vanished", self.path)
        return self._lst if not follow_symlinks else os.stat(self.path)


def _sig(st: os.stat_result, is_dir: bool) -> tuple:
    """What makes a listed entry stale when it changes."""
    if is_dir:
        return (is_dir, st.st_dev, st.st_ino, st.st_mode, st.st_uid, st.st_gid)
    # ctime too: a rewrite that keeps the size and puts the mtime back still changes it
    return (is_dir, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode, st.st_uid,
            st.st_gid)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def build_tree(source: str, ctx: TreeContext | None = None,
               openers: Sequence[Opener] | None = None) -> Entry:
    """The tree for a source folder (or a single file: a pak, a GBX, ...).

    Nothing is listed or opened here; that happens on first access."""
    ctx = install(ctx or TreeContext(), openers)
    real = os.path.realpath(source)
    st = os.stat(real)
    name = os.path.basename(real.rstrip(os.sep)) or os.sep
    if stat.S_ISDIR(st.st_mode):
        top = RealDir(name, real, root=real, ctx=ctx, mtime_ns=st.st_mtime_ns, st=st)
        ctx.root = top
        return top
    return open_entry(name, FileSource(real, st, ctx.open_files), ctx, openers)
