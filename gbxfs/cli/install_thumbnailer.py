"""gbxfs install-thumbnailer: previews of .Gbx and .dds files in the file manager.

Installs, for the current user only, two files named after gbxfs under
$XDG_DATA_HOME (default ~/.local/share):

  in thumbnailers/     a thumbnailer entry: file managers (Nautilus, Nemo, Caja,
                       pcmanfm, and Thunar through tumbler) run
                       `gbxfs thumbnail %i %o -s %s` for the types below
  in mime/packages/    the MIME type application/x-gbx: names ending in .gbx
                       (any case) or content starting "GBX"; and image/x-dds for
                       .dds when no MIME database of the system declares it

then rebuilds the user's MIME cache with update-mime-database when that program
is installed. --uninstall removes both files and rebuilds the cache. A file
manager that is already running may need a restart to see the new thumbnailer.
Nautilus runs thumbnailers in a sandbox that sees only the system folders
(/usr, ...): there gbxfs must be installed system-wide to be run.

Exit codes: 0 done; 2 usage; 3 a file could not be written or removed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from gbxfs.cli.exits import EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE

GBX_MIME = "application/x-gbx"
DDS_MIME = "image/x-dds"
ENTRY_NAME = "gbxfs.thumbnailer"
PACKAGE_NAME = "gbxfs.xml"
UPDATE_TIMEOUT_S = 60

# characters that make a desktop-entry Exec argument need double quotes
_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home(environ: dict[str, str]) -> Path:
    """$XDG_DATA_HOME when set to an absolute path (the base directory rule: a
    relative one is ignored), else ~/.local/share."""
    value = environ.get("XDG_DATA_HOME", "")
    if os.path.isabs(value):
        return Path(value)
    return Path(environ.get("HOME") or os.path.expanduser("~")) / ".local" / "share"


def data_dirs(environ: dict[str, str]) -> list[Path]:
    """The system data directories: $XDG_DATA_DIRS, else /usr/local/share:/usr/share."""
    value = environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return [Path(d) for d in value.split(":") if os.path.isabs(d)]


def system_knows(mime: str, environ: dict[str, str]) -> bool:
    """Whether a system MIME database (its compiled `types` list) declares `mime`."""
    for folder in data_dirs(environ):
        try:
            with open(folder / "mime" / "types", encoding="utf-8") as f:
                if any(line.strip() == mime for line in f):
                    return True
        except OSError:
            continue
    return False


def gbxfs_command() -> str:
    """The absolute path of the gbxfs command of this installation: the console
    script beside the running interpreter (a venv's bin), else the one on PATH."""
    beside = Path(sys.executable).parent / "gbxfs"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which("gbxfs")
    if found:
        return os.path.abspath(found)
    raise LookupError("no gbxfs command beside the Python interpreter nor on PATH")


def exec_argument(word: str) -> str:
    """`word` as one argument of a desktop-entry Exec value: bare when plain, else
    in double quotes with ", `, $ and \\ escaped; % doubled either way. The key
    file format then escapes every backslash once more."""
    word = word.replace("%", "%%")
    if any(c in _EXEC_RESERVED for c in word):
        quoted = "".join("\\" + c if c in '"`$\\' else c for c in word)
        word = f'"{quoted}"'
    return word.replace("\\", "\\\\")


def thumbnailer_entry(command: str, mime_types: list[str]) -> str:
    """The .thumbnailer key file: %i the input path, %o the PNG to write, %s the
    size in pixels the file manager asks for."""
    exe = exec_argument(command)
    return ("[Thumbnailer Entry]\n"
            f"TryExec={exe}\n"
            f"Exec={exe} thumbnail %i %o -s %s\n"
            f"MimeType={';'.join(mime_types)};\n")


def mime_package(with_dds: bool) -> str:
    """The shared-mime-info package: .Gbx by name (globs match case-insensitively
    unless marked case-sensitive) and by its first three bytes; .dds when asked."""
    dds = ("  <mime-type type=\"image/x-dds\">\n"
           "    <comment>DirectDraw surface</comment>\n"
           "    <magic priority=\"50\">\n"
           "      <match type=\"string\" offset=\"0\" value=\"DDS \"/>\n"
           "    </magic>\n"
           "    <glob pattern=\"*.dds\"/>\n"
           "  </mime-type>\n") if with_dds else ""
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n"
            f"  <mime-type type=\"{GBX_MIME}\">\n"
            "    <comment>GameBox file (TrackMania, ManiaPlanet)</comment>\n"
            "    <magic priority=\"50\">\n"
            "      <match type=\"string\" offset=\"0\" value=\"GBX\"/>\n"
            "    </magic>\n"
            "    <glob pattern=\"*.gbx\"/>\n"
            "  </mime-type>\n"
            f"{dds}"
            "</mime-info>\n")


def update_mime_database(mime_dir: Path) -> str:
    """Rebuild the MIME cache of `mime_dir`; a line saying what happened."""
    tool = shutil.which("update-mime-database")
    if tool is None:
        return "update-mime-database not found: the MIME type applies once the MIME cache is rebuilt"
    try:
        done = subprocess.run([tool, str(mime_dir)], capture_output=True, text=True,
                              timeout=UPDATE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"update-mime-database failed: {e}"
    if done.returncode != 0:
        return f"update-mime-database failed: {(done.stderr or '').strip()[:200]}"
    return f"updated the MIME cache in {mime_dir}"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def install(environ: dict[str, str], command: str) -> list[str]:
    """Write both files; the lines to report."""
    home = data_home(environ)
    entry, package = home / "thumbnailers" / ENTRY_NAME, home / "mime" / "packages" / PACKAGE_NAME
    with_dds = not system_knows(DDS_MIME, environ)
    _write(package, mime_package(with_dds))
    _write(entry, thumbnailer_entry(command, [GBX_MIME, DDS_MIME]))
    lines = [f"wrote {entry}", f"wrote {package}" + ("" if with_dds else f" ({DDS_MIME} comes from the system)")]
    return lines + [update_mime_database(home / "mime")]


def uninstall(environ: dict[str, str]) -> list[str]:
    """Remove both files; the lines to report."""
    home = data_home(environ)
    lines = []
    for path in (home / "thumbnailers" / ENTRY_NAME, home / "mime" / "packages" / PACKAGE_NAME):
        try:
            path.unlink()
            lines.append(f"removed {path}")
        except FileNotFoundError:
            lines.append(f"not installed: {path}")
    if (home / "mime" / "packages").is_dir():
        lines.append(update_mime_database(home / "mime"))
    return lines


def main(argv: list[str]) -> int:
    """Install (or remove) the file-manager thumbnailer for .Gbx and .dds files."""
    p = argparse.ArgumentParser(prog="gbxfs install-thumbnailer", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--uninstall", action="store_true", help="remove what install-thumbnailer installed")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_OK if e.code == 0 else EXIT_USAGE
    environ = dict(os.environ)
    try:
        lines = uninstall(environ) if args.uninstall else install(environ, gbxfs_command())
    except (OSError, LookupError) as e:
        print(f"gbxfs install-thumbnailer: {e}", file=sys.stderr)
        return EXIT_NOT_FOUND
    print("\n".join(lines))
    return EXIT_OK
