"""gbxfs extract SOURCE DEST: unpack paks into real files.

SOURCE is a .pak / .Pack.Gbx or a folder holding them at any depth (a game
folder with its Packs/; packlist.dat beside the paks, or --packlist FILE: a
packlist.dat or a key file). DEST receives <folder under SOURCE>/<Pak>/<path
inside the pak> with every file's original bytes (GBX files as plain files)
under its stored name; --typed-names gives hashed names the extension their
class implies, as the mount shows them. A file already in DEST is left alone
when it holds the same bytes (counted as skipped) and is never overwritten
without --force (reported, exit code 1). Entries are streamed
in pieces into a temporary file that is renamed only once the entry is
read whole and, where the format has a checksum (zlib's Adler-32), verified,
so memory stays bounded and no file that failed its check is left behind.
Stored and LZ4 entries have no checksum: they are written as they decrypt
and counted at the end ("N of them unverifiable"); --verified-only skips
them instead.
Nothing under DEST is followed: folders are opened relative to their parent
with O_NOFOLLOW, temporary files are created with O_EXCL under unique names.
Unverifiable entries (and paks that cannot be opened) are reported and
skipped; the exit code is then 1. The last line gives the totals: files and
bytes written, files skipped as identical, not overwritten, failed.
--png also writes NAME.dds.png beside every NAME.dds written (or kept as
identical), decoded by Pillow (formats/image.py); a texture it cannot decode
is reported as failed and gets no PNG.
"""
from __future__ import annotations

import argparse
import os
import secrets
import stat
import sys
from collections.abc import Iterator, Mapping

from gbxfs.cli.exits import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from gbxfs.cli.progress import bar, say
from gbxfs.formats import image
from gbxfs.formats.pak.archive import peek_version
from gbxfs.formats.pak.errors import PakError
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import Entry, File
from gbxfs.tree.pak.entries import PakEntryFile, PakFolder
from gbxfs.tree.pak.info import ERROR_NAME
from gbxfs.tree.pak.view import open_pak
from gbxfs.tree.source import FileSource


class Report:
    """What became of each entry, the progress bar, and the totals at the end."""

    def __init__(self, quiet: bool, force: bool = False, png: bool = False):
        self.quiet = quiet
        self.force = force
        self.png = png          # --png: a PNG beside every .dds written (or kept as identical)
        self.written = 0
        self.bytes = 0
        self.identical = 0
        self.refused = 0
        self.failed = 0
        self.unproven = 0      # written, but no checksum in the format proves them
        self.bar = bar("extract")

    def fail(self, what: str, why: str) -> None:
        self.failed += 1
        self.bar.update()
        say(f"gbxfs extract: {what}: skipped: {why}", err=True)

    def ok(self, what: str, size: int, unproven: str | None = None) -> None:
        self.written += 1
        self.bytes += size
        self.unproven += unproven is not None
        self.bar.update()
        if not self.quiet:
            say(what)

    def same(self, what: str) -> None:
        self.identical += 1
        self.bar.update()
        if not self.quiet:
            say(f"{what} (identical, kept)")

    def refuse(self, what: str, why: str) -> None:
        self.refused += 1
        self.bar.update()
        say(f"gbxfs extract: {what}: not overwritten: {why} (--force replaces it)", err=True)

    def totals(self) -> str:
        unproven = (f", {self.unproven} of them unverifiable (stored or LZ4: no checksum in the format;"
                    f" --verified-only skips them)") if self.unproven else ""
        return (f"gbxfs extract: {self.written} files written ({self.bytes} bytes){unproven}, "
                f"{self.identical} skipped as identical, {self.refused} not overwritten, {self.failed} failed")


PACK_SUFFIXES = (".pak", ".pack.gbx")


def find_paks(source: str) -> list[str]:
    """The paks and packs of `source`: itself, or every one in the folder tree
    under it (a game folder's Packs/, GameData/...), in a stable order."""
    if not os.path.isdir(source):
        return [source]
    found = []
    for folder, subdirs, names in os.walk(source):
        subdirs.sort()
        for n in sorted(names):
            path = os.path.join(folder, n)
            if n.lower().endswith(PACK_SUFFIXES) and os.path.isfile(path):
                found.append(path)
    return found


class Skip(Exception):
    """This entry (or folder) cannot be written; the rest goes on."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def _open_dir_at(parent: int, name: str) -> int:
    """A folder `name` under the folder open as `parent`, created if missing.
    Nothing under DEST is followed: a symlink there is replaced by a real
    folder (the link itself is removed, never what it points to); another
    kind of file is left alone and the folder skipped."""
    for _ in range(2):
        try:
            os.mkdir(name, 0o777, dir_fd=parent)
        except FileExistsError:
            pass
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=parent)
        except OSError as e:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if not stat.S_ISLNK(st.st_mode):
                raise Skip(f"{_why(e)}: something else than a folder is in the way") from None
            os.unlink(name, dir_fd=parent)
    raise Skip("a symlink keeps reappearing in the way")


def _kept(f: PakEntryFile, parent: int, name: str, rep: Report, label: str) -> bool:
    """Whether `name` is already there and stays (identical bytes, or no --force);
    False: nothing is in the way, or --force lets it be replaced."""
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        rep.fail(label, "a folder is in the way")
    elif stat.S_ISLNK(st.st_mode):
        return False      # replaced by the rename (a link itself, never what it points to)
    elif stat.S_ISREG(st.st_mode) and st.st_size == f.size() and _same_bytes(f, parent, name):
        rep.same(label)   # also with --force: it replaces only what differs
    elif rep.force:
        return False
    elif not stat.S_ISREG(st.st_mode):
        rep.refuse(label, "something else than a file is in the way")
    else:
        rep.refuse(label, "a different file is there")
    return True


def _same_bytes(f: PakEntryFile, parent: int, name: str) -> bool:
    """The entry's bytes against the file `name` (of the same size), piece by piece."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    with os.fdopen(fd, "rb") as have:
        for piece in f.entry.pieces():
            if have.read(len(piece)) != piece:
                return False
    return True


def _write_entry(f: PakEntryFile, parent: int, name: str, rep: Report, label: str) -> None:
    """Stream the entry into a new, uniquely named temporary file (O_EXCL: never an
    existing file or link) and rename it over `name` once it is verified; a file
    already there is compared first (_kept)."""
    identical = rep.identical
    try:
        if _kept(f, parent, name, rep, label):
            if rep.identical > identical:
                _png_beside(parent, name, rep, label)
            return
    except PakError as e:
        rep.fail(label, e.reason)
        return
    for _ in range(8):
        tmp = f".gbxfs-part.{secrets.token_hex(8)}"
        try:
            fd = os.open(tmp, _NEW_FILE, 0o666, dir_fd=parent)
            break
        except FileExistsError:
            continue
    else:
        raise Skip("no free temporary name")
    size = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for piece in f.entry.pieces():
                out.write(piece)
                size += len(piece)
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except PakError as e:
        _unlink_at(parent, tmp)
        rep.fail(label, e.reason)
        return
    except OSError as e:
        _unlink_at(parent, tmp)
        rep.fail(label, _why(e))
        return
    except BaseException:
        _unlink_at(parent, tmp)
        raise
    rep.ok(label, size, f.entry.unproven)
    _png_beside(parent, name, rep, label)


def _png_beside(parent: int, name: str, rep: Report, label: str) -> None:
    """--png: `name`.png beside a .dds just written, decoded by formats/image.py; a
    texture it cannot decode is reported (no PNG: never a wrong picture)."""
    if not (rep.png and name.lower().endswith(".dds")):
        return
    out, label = name + ".png", label + ".png"
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    with os.fdopen(fd, "rb") as dds:
        try:
            png = image.to_png(dds.read())
        except image.ImageError as e:
            rep.fail(label, f"no PNG: {e}")
            return
    try:
        st = os.stat(out, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        fd = os.open(out, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
        with os.fdopen(fd, "rb") as have:
            same = have.read(len(png) + 1) == png
        if same:
            return rep.same(label)      # also with --force: it replaces only what differs
        if not rep.force:
            return rep.refuse(label, "a different file is there")
    tmp = f".gbxfs-part.{secrets.token_hex(8)}"
    try:
        with os.fdopen(os.open(tmp, _NEW_FILE, 0o666, dir_fd=parent), "wb") as w:
            w.write(png)
        os.replace(tmp, out, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        _unlink_at(parent, tmp)
        raise
    rep.ok(label, len(png))


def _unlink_at(parent: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=parent)
    except FileNotFoundError:
        pass


def _extract(kids: Mapping[str, Entry], dest_fd: int, rep: Report, label: str) -> None:
    """Depth-first without recursion: one frame (an open folder and the rest of
    its listing) per level, so nesting depth costs no Python stack."""
    stack: list[tuple[int, Iterator[tuple[str, Entry]], str]] = [(dest_fd, iter(list(kids.items())), label)]
    try:
        while stack:
            fd, items, where = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                if stack:           # dest_fd belongs to the caller
                    os.close(fd)
                continue
            name, e = item
            here = f"{where}/{name}"
            try:
                if isinstance(e, PakFolder):
                    sub = _open_dir_at(fd, name)
                    try:
                        listing = iter(list(e.children().items()))
                    except BaseException:
                        os.close(sub)
                        raise
                    stack.append((sub, listing, here))
                elif isinstance(e, PakEntryFile):
                    _write_entry(e, fd, name, rep, here)
            except Skip as s:
                rep.fail(here, str(s))
            except OSError as err:
                rep.fail(here, _why(err))
    finally:
        for fd, _, _ in stack[1:]:
            os.close(fd)


def _open_dest(dest: str, parts: tuple[str, ...]) -> int:
    """DEST itself (the user's choice, made if missing), then each of `parts` under
    it, made if missing and never followed when a link (_open_dir_at)."""
    os.makedirs(dest, exist_ok=True)
    fd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    for part in parts:
        try:
            sub = _open_dir_at(fd, part)
        finally:
            os.close(fd)
        fd = sub
    return fd


def extract_pak(path: str, dest: str, ctx: TreeContext, rep: Report, under: tuple[str, ...] = ()) -> None:
    """Unpack one pak into DEST/<under...>/<its name>/ (`under`: the folders between
    SOURCE and the pak, kept as they are)."""
    name = os.path.basename(path)
    label = "/".join(under + (name,))
    try:
        src = FileSource(path, files=ctx.open_files)
    except OSError as e:
        rep.fail(label, _why(e))
        return
    try:
        kids = open_pak(name, src, ctx).children()
        if ERROR_NAME in kids and not any(isinstance(e, (PakFolder, PakEntryFile)) for e in kids.values()):
            error_txt = kids[ERROR_NAME]
            assert isinstance(error_txt, File)      # error.txt is a file
            reason = error_txt.read(0, 1 << 16).decode("utf-8", "replace").strip()
            rep.fail(label, reason)
            return
        pak_fd = _open_dest(dest, under + (name,))
        try:
            _extract(kids, pak_fd, rep, label)
        finally:
            os.close(pak_fd)
    except Skip as s:
        rep.fail(label, str(s))
    except PakError as e:
        rep.fail(label, e.reason)
    except OSError as e:
        rep.fail(label, _why(e))
    finally:
        src.close()


def main(argv: list[str]) -> int:
    """Unpack paks: DEST/<Pak>.pak/<path inside> with the original bytes, also from subfolders."""
    p = argparse.ArgumentParser(prog="gbxfs extract", description=main.__doc__)
    p.add_argument("source", help="a .pak file, or a folder with paks at any depth (a game folder)")
    p.add_argument("dest", help="destination folder")
    p.add_argument("--packlist", metavar="FILE", help="packlist.dat with the keys (default: next to the paks)")
    p.add_argument("--typed-names", action="store_true",
                   help="name hashed entries with the extension their class implies (as the mount does)")
    p.add_argument("-f", "--force", action="store_true",
                   help="replace files already in DEST that differ (default: keep them and say so)")
    p.add_argument("--verified-only", action="store_true",
                   help="skip entries no checksum can prove (stored or LZ4) instead of writing them")
    p.add_argument("--png", action="store_true", help="also write NAME.dds.png beside every NAME.dds")
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
    ctx = TreeContext(gbx_mode="file", typed_names=args.typed_names, short_names=False,
                      packlist_path=os.path.abspath(args.packlist) if args.packlist else None,
                      verified_only=args.verified_only)
    rep = Report(args.quiet, force=args.force, png=args.png)
    try:
        for pak in paks:
            under = os.path.relpath(os.path.dirname(pak), args.source) if pak != args.source else os.curdir
            extract_pak(pak, args.dest, ctx, rep, () if under == os.curdir else tuple(under.split(os.sep)))
    finally:
        rep.bar.close()
    print(rep.totals(), file=sys.stderr)
    return EXIT_PARTIAL if rep.failed or rep.refused else EXIT_OK
