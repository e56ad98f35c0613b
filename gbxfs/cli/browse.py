"""gbxfs ls / gbxfs cat: the mounted tree without FUSE.

PATH may go inside paks and GBX folders, e.g.
Packs/Sample.pak/Sample/Media/Clips/Clip0.Clip.Gbx/header. The longest
prefix of PATH that exists on disk is opened like a mount source, and the
rest is walked in the virtual tree.
"""
from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import time

from gbxfs.cli.exits import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import Dir, Entry, File
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import NotADir, NotFound, effective_mtime_ns, walk

log = logging.getLogger("gbxfs")

_CHUNK = 1 << 20


def open_path(path: str, ctx: TreeContext | None = None) -> list[Entry]:
    """The chain of entries (outermost first) for a real-or-virtual path.
    Raises NotFound / NotADir."""
    rest: list[str]
    real, rest = os.path.abspath(path), []
    while not os.path.lexists(real):
        head, tail = os.path.split(real)
        if head == real:
            raise NotFound("no such file or directory", path)
        rest.insert(0, tail)
        real = head
    try:
        root = build_tree(real, ctx or TreeContext())
    except OSError as e:
        raise NotFound(e.strerror or "cannot open", path) from None
    return walk(root, "/".join(rest))


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("path")
    p.add_argument("--gbx", choices=("folder", "file"), default="folder",
                   help="show .Gbx files as folders (default) or as plain files")
    p.add_argument("--packlist", metavar="FILE", help="packlist.dat with the pak keys")
    p.add_argument("--verified-only", action="store_true",
                   help="refuse pak entries no checksum can prove (stored or LZ4), as -o verified_only")


def _context(args) -> TreeContext:
    return TreeContext(gbx_mode=args.gbx,
                       packlist_path=os.path.abspath(args.packlist) if args.packlist else None,
                       verified_only=args.verified_only)


def _line(name: str, entry: Entry, mtime_ns: int, long: bool) -> str:
    shown = name + ("/" if entry.is_dir else "")
    if not long:
        return shown
    if isinstance(entry, Dir):
        kind, size = "d", "-"
    else:
        assert isinstance(entry, File)      # an entry is a Dir or a File
        kind, size = ("!" if entry.error else "-"), str(entry.size())
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime_ns / 1e9))
    return f"{kind} {size:>10} {stamp} {shown}"


def ls_main(argv: list[str]) -> int:
    """List a folder of the gbxfs tree (real or inside paks/GBX files)."""
    p = argparse.ArgumentParser(prog="gbxfs ls", description=ls_main.__doc__)
    _common(p)
    p.add_argument("-l", dest="long", action="store_true",
                   help="long listing: kind (d dir, - file, ! unreadable), size, mtime, name")
    args = p.parse_args(argv)
    try:
        chain = open_path(args.path, _context(args))
        target = chain[-1]
        mtime = effective_mtime_ns(chain)
        if isinstance(target, Dir):
            lines = [_line(n, e, e.mtime_ns if e.mtime_ns is not None else mtime, args.long)
                     for n, e in sorted(target.children().items())]
        else:
            lines = [_line(target.name, target, mtime, args.long)]
    except (NotFound, NotADir) as e:
        print(f"gbxfs: {args.path}: {e.reason}", file=sys.stderr)
        return EXIT_NOT_FOUND
    except Exception as e:  # a format error deeper down: the file is bad, not the command
        log.debug("ls failed", exc_info=True)
        print(f"gbxfs: {args.path}: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:  # `gbxfs ls X | head`
        _silence_stdout()
    return EXIT_OK


def _silence_stdout() -> None:
    # the reader went away; keep the interpreter's final flush from complaining
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def cat_main(argv: list[str]) -> int:
    """Write a file of the gbxfs tree (real or inside paks/GBX files) to stdout."""
    p = argparse.ArgumentParser(prog="gbxfs cat", description=cat_main.__doc__)
    _common(p)
    args = p.parse_args(argv)
    try:
        chain = open_path(args.path, _context(args))
        target = chain[-1]
        if len(chain) > 1:
            _read_index_headers(chain[-2], target)
        if isinstance(target, Dir):
            print(f"gbxfs: {args.path}: is a directory", file=sys.stderr)
            return EXIT_USAGE
        assert isinstance(target, File)
        if target.error:
            print(f"gbxfs: {args.path}: cannot be read: {target.error}", file=sys.stderr)
            return EXIT_BAD_INPUT
        out = sys.stdout.buffer
        size, offset = target.size(), 0
        while offset < size:
            data = target.read(offset, min(_CHUNK, size - offset))
            if not data:
                raise EOFError(f"short read at {offset} of {size} bytes")
            out.write(data)
            offset += len(data)
        out.flush()
    except (NotFound, NotADir) as e:
        print(f"gbxfs: {args.path}: {e.reason}", file=sys.stderr)
        return EXIT_NOT_FOUND
    except BrokenPipeError:  # `gbxfs cat X | head`
        _silence_stdout()
        return EXIT_OK
    except Exception as e:
        log.debug("cat failed", exc_info=True)
        print(f"gbxfs: {args.path}: cannot be read: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


_INDEX_NAME = re.compile(r"(maps|replays)(~\d+)?\.csv")
_FEW = 50      # an index of fewer files is made before a bar would show


def _read_index_headers(folder: Entry, target: Entry) -> None:
    """Before the first maps.csv / replays.csv of a big folder is made, read the
    headers its rows come from, one by one, with a progress bar on a terminal
    (they stay in the tree's cache, so the index is then made from them)."""
    from gbxfs.cli.progress import bar
    from gbxfs.tree.cached import CachedFile
    from gbxfs.tree.gbx.index import MAPS, REPLAYS, indexed_names, summary_header_of

    m = _INDEX_NAME.fullmatch(target.name)
    if m is None or not isinstance(target, CachedFile) or not isinstance(folder, Dir):
        return
    kids = folder.children()
    names = indexed_names(kids)[MAPS if m.group(1) == "maps" else REPLAYS]
    if len(names) < _FEW:
        return
    with bar(f"{target.name}: reading headers", total=len(names)) as b:
        for name in names:
            try:
                summary_header_of(kids[name])
            except Exception:       # the index shows the file with empty cells: it says so itself
                log.debug("header of %s", name, exc_info=True)
            b.update()
