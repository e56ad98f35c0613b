"""Where each file of a pak's table shows in the tree, without a node per file.

    index = PakIndex(table)
    index.listing(node, table, reserved, typed, make_file, make_folder, shown) -> {shown name: entry}

A folder of the tree is a node: made from the folder table (every path prefix
of every folder) and from the backslash sub-paths some stored file names have.
A million files in a thousand folders make a thousand nodes; the files stay
in the table, grouped by table folder (an index array, or nothing when the
table lists them folder by folder already). A node's listing, with the names
made unique, is computed when the folder is listed, in the same order and with
the same names every time: so a listing made again after eviction is
identical, and node ids are stable (they follow the table's order).

Names follow tree/pak/entries.py's rules: folders of the folder table first
(in its order), then the files in table order, a folder a sub-path creates
taking its place where its first file came; a later name equal to an earlier
one (or to a name the view reserves) gets "~N". A name longer than the
platform takes is shortened (tree/longnames.py).
"""
from __future__ import annotations

import bisect
import heapq
import itertools
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from gbxfs.formats.pak import FileTable, plain_component
from gbxfs.tree.longnames import SURELY_FITS, fit

# what one node costs (object, dicts, lists, name strings); rounded up
NODE_COST = 600

_Made = TypeVar("_Made")    # what a listing's make_file and make_folder make


class _Node:
    __slots__ = ("subs", "by_name", "folders", "extra")

    def __init__(self):
        self.subs: list[tuple[int, str, int]] = []   # (file index that created it or -1, name, node)
        self.by_name: dict[str, int] = {}
        self.folders: list[int] = []                 # table folders shown here
        self.extra: list[int] = []                   # sub-path files shown here


class PakIndex:
    __slots__ = ("nodes", "order", "starts", "special", "nbytes", "counts", "mixed", "__weakref__")

    def __init__(self, table: FileTable):
        self.nodes = [_Node()]
        folders = table.folders
        node_of = self._place(folders)    # by table folder
        special = table.special()
        self.special = frozenset(special)
        # the nodes some file of which comes from a sub-path (spans() is None): the nodes
        # such files show in, and those where they create a sub-folder
        mixed: set[int] = set()
        for i in special:
            parts = table[i].parts
            if parts:
                node = self._node(parts[:-1], i, mixed)
                self.nodes[node].extra.append(i)
                mixed.add(node)
        self.mixed = frozenset(mixed)
        column = table.folder
        # table order is usually folder by folder: then a folder's files are one range of it
        if table.grouped:
            self.order = None
            self.starts = array("I", (bisect.bisect_left(column, f) for f in range(len(folders) + 1)))
        else:
            # each folder's files in table order, one after the other: what a stable sort by
            # folder gives, in one short step per file (read_files checked every folder index)
            runs: list[list[int]] = [[] for _ in folders]
            for i, f in enumerate(column):
                runs[f].append(i)
            flat: list[int] = []
            for run in runs:
                flat += run
            self.order = array("i")
            self.order.fromlist(flat)       # an array from a list: the fastest way in
            # where each folder's run starts in that order
            self.starts = array("I", [0])
            self.starts.extend(itertools.accumulate(map(len, runs)))
        # what each node lists (size(): asked per folder a listing shows)
        starts = self.starts
        self.counts = array("I", [len(n.subs) + len(n.extra) for n in self.nodes])
        for folder, node in zip(folders, node_of):
            self.counts[node] += starts[folder.index + 1] - starts[folder.index]
        self.nbytes = (sys.getsizeof(self) + NODE_COST * len(self.nodes) + 4 * len(self.starts)
                       + (0 if self.order is None else 4 * len(self.order)) + 64 * len(self.special)
                       + 4 * len(self.counts) + 64 * len(self.mixed))

    def _place(self, folders) -> list[int]:
        """The node of each table folder (made with its missing parents), each shown
        in its node. A folder whose parent came before it starts from the parent's
        node (its path is the parent's and its own name's parts): the walk from
        the root would pass only nodes the parent made."""
        nodes = self.nodes
        node_of: list[int] = []
        for folder in folders:
            parent, parts = folder.parent, folder.parts
            if 0 <= parent < len(node_of):
                d, parts = node_of[parent], parts[len(folders[parent].parts):]
            else:
                d = 0
            for p in parts:         # usually one
                node = nodes[d]
                sub = node.by_name.get(p)
                if sub is None:
                    sub = node.by_name[p] = len(nodes)
                    nodes.append(_Node())
                    node.subs.append((-1, p, sub))
                d = sub
            node_of.append(d)
            nodes[d].folders.append(folder.index)
        return node_of

    def _node(self, parts: Iterable[str], created: int, mixed: set[int] | None = None) -> int:
        """The node of path `parts`, made with its missing parents; `created`: the
        file index whose sub-path makes them (-1: the folder table), their parents
        then added to `mixed`."""
        d = 0
        for p in parts:
            node = self.nodes[d]
            sub = node.by_name.get(p)
            if sub is None:
                sub = node.by_name[p] = len(self.nodes)
                self.nodes.append(_Node())
                node.subs.append((created, p, sub))
                if created >= 0 and mixed is not None:
                    mixed.add(d)
            d = sub
        return d

    def _files(self, folder: int) -> Iterator[int]:
        ids = self.ids(self.starts[folder], self.starts[folder + 1])
        special = self.special
        return (i for i in ids if i not in special) if special else iter(ids)

    def size(self, node: int) -> int:
        """How many entries the node lists (before names the view adds)."""
        return self.counts[node]

    def spans(self, node: int) -> tuple[list[tuple[int, str, int]], list[tuple[int, int]]] | None:
        """The node's sub-folders ((-1, name, node id) as in _Node.subs) and where its
        files are in folder order (positions a..b, table indices ids(a, b)), one span
        per table folder shown here, when no file of it comes from a sub-path (then
        listing() shows the sub-folders, then the files in table order); else None.
        The spans include the `special` files, which show elsewhere or nowhere."""
        if node in self.mixed:
            return None
        n, starts = self.nodes[node], self.starts
        if len(n.folders) == 1:     # most nodes: one table folder (asked per folder listed)
            f = n.folders[0]
            return n.subs, [(starts[f], starts[f + 1])]
        return n.subs, [(starts[f], starts[f + 1]) for f in n.folders]

    def ids(self, a: int, b: int) -> range | array:
        """The table indices at positions a..b of folder order (the table grouped by
        table folder, stably: ascending within each folder)."""
        return range(a, b) if self.order is None else self.order[a:b]

    def listing(self, node: int, table: FileTable, reserved: frozenset[str], typed,
                make_file: Callable[[str, int, tuple], _Made], make_folder: Callable[[str, int], _Made],
                shown: dict[str, _Made], short_names: bool = True) -> dict[str, _Made]:
        """Fill `shown` (name -> what make_folder / make_file made) with the node's
        sub-folders and files in listing order, without a record per file:
        make_folder(shown name, node id), make_file(shown name, file index, fixed
        fields as FileTable.fixed_fields gives them). Names already in `shown` must
        be in `reserved` too. `typed(name, class_id)` gives a file's typed name or None.
        `short_names`: names too long to show are shortened (tree/longnames.py)."""
        fit_ = fit if short_names else _as_is
        n = self.nodes[node]
        streams = [self._files(f) for f in n.folders]
        if n.extra:
            streams.append(iter(n.extra))
        files = streams[0] if len(streams) == 1 else heapq.merge(*streams)
        subs = iter(n.subs)
        pending = next(subs, None)
        special = self.special

        for i, stored, fixed in table.rows(files):
            while pending is not None and pending[0] < i:
                name = _unique(fit_(pending[1]), shown, reserved, fit_)
                shown[name] = make_folder(name, pending[2])
                pending = next(subs, None)
            if i in special:        # a sub-path: shown in the folder it names, under its last part
                name = table[i].parts[-1]
            elif "/" in stored or "\0" in stored or stored == "." or stored == "..":
                name = plain_component(stored)   # tree/pak/entries.py's naming rules (one plain component)
            else:
                name = stored
            if "." not in name:
                name = typed(name, fixed[4]) or name
            if len(name) > SURELY_FITS:
                name = fit_(name)       # the stored name stays in user.pak.stored_name, .pak-info.txt
            if name in shown or name in reserved:
                name = _unique(name, shown, reserved, fit_)
            shown[name] = make_file(name, i, fixed)
        while pending is not None:
            name = _unique(fit_(pending[1]), shown, reserved, fit_)
            shown[name] = make_folder(name, pending[2])
            pending = next(subs, None)
        return shown


def _as_is(name: str, suffix: str = "") -> str:
    return name + suffix


def _unique(name: str, taken, reserved: frozenset[str], fit_=fit) -> str:
    if name not in taken and name not in reserved:
        return name
    i = 2
    while fit_(name, f"~{i}") in taken or fit_(name, f"~{i}") in reserved:
        i += 1
    return fit_(name, f"~{i}")
