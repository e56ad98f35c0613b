"""gbxfs extract SOURCE DEST: unpack paks into real files.

SOURCE is a .pak / .Pack.Gbx or a folder holding them (with packlist.dat
beside them, or --packlist FILE: a packlist.dat or a key file). DEST receives
<Pak>/<path inside the pak> with every file's original bytes (GBX files as
plain files) under its stored name; --typed-names gives hashed names the
extension their class implies, as the mount shows them. Entries are streamed
in pieces into a temporary file that is renamed only once the entry is
verified, so memory stays bounded and no unverified file is left behind.
Unverifiable entries (and paks that cannot be opened) are reported and
skipped; the exit code is then 1.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Mapping

from gbxfs.cli import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from gbxfs.formats.pak.archive import peek_version
from gbxfs.formats.pak.errors import PakError
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import Entry
from gbxfs.tree.pak.entries import PakEntryFile, PakFolder
from gbxfs.tree.pak.info import ERROR_NAME
from gbxfs.tree.pak.view import open_pak
from gbxfs.tree.source import FileSource


class Report:
    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.written = 0
        self.failed = 0

    def fail(self, what: str, why: str) -> None:
        self.failed += 1
        print(f"gbxfs extract: {what}: skipped: {why}", file=sys.stderr)

    def ok(self, what: str) -> None:
        self.written += 1
        if not self.quiet:
            print(what)


PACK_SUFFIXES = (".pak", ".pack.gbx")


def find_paks(source: str) -> list[str]:
    if os.path.isdir(source):
        names = sorted(n for n in os.listdir(source) if n.lower().endswith(PACK_SUFFIXES))
        return [os.path.join(source, n) for n in names if os.path.isfile(os.path.join(source, n))]
    return [source]


def _write_entry(f: PakEntryFile, target: str, rep: Report, label: str) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = target + ".gbxfs-part"
    try:
        with open(tmp, "wb") as out:
            for piece in f.entry.pieces():
                out.write(piece)
        os.replace(tmp, target)
    except PakError as e:
        _unlink(tmp)
        rep.fail(label, e.reason)
        return
    except BaseException:
        _unlink(tmp)
        raise
    rep.ok(label)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _extract(kids: Mapping[str, Entry], dest: str, rep: Report, label: str) -> None:
    for name, e in kids.items():
        here = f"{label}/{name}"
        if isinstance(e, PakFolder):
            _extract(e.children(), os.path.join(dest, name), rep, here)
        elif isinstance(e, PakEntryFile):
            _write_entry(e, os.path.join(dest, name), rep, here)


def extract_pak(path: str, dest: str, ctx: TreeContext, rep: Report) -> None:
    name = os.path.basename(path)
    src = FileSource(path)
    try:
        kids = open_pak(name, src, ctx).children()
        if ERROR_NAME in kids and not any(isinstance(e, (PakFolder, PakEntryFile)) for e in kids.values()):
            reason = kids[ERROR_NAME].read(0, 1 << 16).decode("utf-8", "replace").strip()
            rep.fail(name, reason)
            return
        _extract(kids, os.path.join(dest, name), rep, name)
    finally:
        src.close()


def main(argv: list[str]) -> int:
    """Unpack paks: DEST/<Pak>.pak/<path inside> with the original bytes."""
    p = argparse.ArgumentParser(prog="gbxfs extract", description=main.__doc__)
    p.add_argument("source", help="a .pak file or a folder of paks")
    p.add_argument("dest", help="destination folder")
    p.add_argument("--packlist", metavar="FILE", help="packlist.dat with the keys (default: next to the paks)")
    p.add_argument("--typed-names", action="store_true",
                   help="name hashed entries with the extension their class implies (as the mount does)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not list the files written")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_OK if e.code == 0 else EXIT_USAGE
    if not os.path.exists(args.source):
        print(f"gbxfs extract: {args.source}: no such file or directory", file=sys.stderr)
        return EXIT_NOT_FOUND
    if args.packlist and not os.path.isfile(args.packlist):
        print(f"gbxfs extract: {args.packlist}: no such file", file=sys.stderr)
        return EXIT_NOT_FOUND
    paks = find_paks(args.source)
    if os.path.isfile(args.source):
        src = FileSource(args.source)
        try:
            peek_version(src.read_at, src.size)
        except PakError as e:
            print(f"gbxfs extract: {args.source}: {e.reason}", file=sys.stderr)
            return EXIT_BAD_INPUT
        finally:
            src.close()
    if not paks:
        print(f"gbxfs extract: {args.source}: no .pak or .Pack.Gbx files found", file=sys.stderr)
        return EXIT_NOT_FOUND
    ctx = TreeContext(gbx_mode="file", typed_names=args.typed_names,
                      packlist_path=os.path.abspath(args.packlist) if args.packlist else None)
    rep = Report(args.quiet)
    for pak in paks:
        extract_pak(pak, args.dest, ctx, rep)
    if rep.failed:
        print(f"gbxfs extract: {rep.written} files written, {rep.failed} skipped", file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_OK
