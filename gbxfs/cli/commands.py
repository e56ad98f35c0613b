"""Dispatching `gbxfs COMMAND ...` to the command's function."""
from __future__ import annotations

import sys
from typing import Callable

from gbxfs.cli import browse, coverage, demo, extract, info, mount, thumbnail, umount
from gbxfs.cli.exits import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE

# command name -> function; each takes argv (list[str]), returns an exit code, and its
# docstring's first line is what `gbxfs --help` says about the command.
COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "mount": mount.main,
    "umount": umount.umount_main,
    "ls": browse.ls_main,
    "cat": browse.cat_main,
    "extract": extract.main,
    "info": info.main,
    "coverage": coverage.main,
    "demo": demo.main,
    "thumbnail": thumbnail.main,
}


def overview() -> str:
    """`gbxfs --help`: every command of COMMANDS with its one-line description."""
    width = max(map(len, COMMANDS))
    lines = ["usage: gbxfs COMMAND [ARGS...]",
             "       gbxfs SOURCE MOUNTPOINT [-o OPT,...] [-f] [-d]   (the same as gbxfs mount)",
             "       gbxfs --version",
             "", "commands:"]
    for name in COMMANDS:
        doc = COMMANDS[name].__doc__ or ""
        first_line = (doc.strip().splitlines() or [""])[0]
        lines.append(f"  {name:<{width}}  {first_line}")
    lines += ["", "gbxfs COMMAND --help describes a command's arguments and options."]
    return "\n".join(lines) + "\n"


def version() -> str:
    """The installed distribution's version (pyproject.toml), else "unknown"."""
    from importlib import metadata
    try:
        return metadata.version("gbxfs")
    except metadata.PackageNotFoundError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        (sys.stdout if argv else sys.stderr).write(overview())
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] in ("-V", "--version"):
        print(f"gbxfs {version()}")
        return EXIT_OK
    if argv[0] not in COMMANDS:
        # `gbxfs SOURCE MOUNTPOINT` (also what mount -t fuse.gbxfs runs)
        argv = ["mount"] + argv
    func = COMMANDS[argv[0]]
    try:
        return func(argv[1:])
    except KeyboardInterrupt:
        return 130
    except SystemExit:
        raise
    except Exception:  # a bug: never a traceback for the user unless asked
        import logging
        import os

        logging.getLogger("gbxfs").debug("internal error", exc_info=True)
        if os.environ.get("GBXFS_DEBUG"):
            raise
        print("gbxfs: internal error", file=sys.stderr)
        return EXIT_INTERNAL
