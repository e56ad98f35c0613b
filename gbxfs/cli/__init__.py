"""Command line entry point: dispatches to one module per command family.

Exit codes (documented in the README):
  0  success
  1  some files could not be processed (e.g. unverifiable pak entries skipped)
  2  usage error
  3  input not found
  4  bad input (corrupt, truncated, unsupported file)
  5  mount failed
  70 internal error (a bug)
"""
from __future__ import annotations

import importlib
import sys

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BAD_INPUT = 4
EXIT_MOUNT_FAILED = 5
EXIT_INTERNAL = 70

# command name -> "module:function"; each function takes argv (list[str]), returns an exit
# code, and its docstring's first line is what `gbxfs --help` says about the command.
COMMANDS: dict[str, str] = {
    "mount": "gbxfs.cli.mount:main",
    "umount": "gbxfs.cli.umount:umount_main",
    "ls": "gbxfs.cli.browse:ls_main",
    "cat": "gbxfs.cli.browse:cat_main",
    "extract": "gbxfs.cli.extract:main",
    "info": "gbxfs.cli.info:main",
    "coverage": "gbxfs.cli.coverage:main",
    "demo": "gbxfs.cli.demo:main",
}


def _command(name: str):
    module_name, func_name = COMMANDS[name].split(":")
    return getattr(importlib.import_module(module_name), func_name)


def overview() -> str:
    """`gbxfs --help`: every command of COMMANDS with its one-line description."""
    width = max(map(len, COMMANDS))
    lines = ["usage: gbxfs COMMAND [ARGS...]",
             "       gbxfs SOURCE MOUNTPOINT [-o OPT,...] [-f] [-d]   (the same as gbxfs mount)",
             "       gbxfs --version",
             "", "commands:"]
    for name in COMMANDS:
        try:
            doc = _command(name).__doc__ or ""
        except (ImportError, AttributeError) as e:
            doc = f"(unavailable: {e})"
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
    func = _command(argv[0])
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


def run() -> None:
    sys.exit(main())
