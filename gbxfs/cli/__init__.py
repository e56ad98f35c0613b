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

import sys

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BAD_INPUT = 4
EXIT_MOUNT_FAILED = 5
EXIT_INTERNAL = 70

# command name -> "module:function"; each function takes argv (list[str]) and returns an exit code.
COMMANDS: dict[str, str] = {}
COMMANDS.update({
    "mount": "gbxfs.cli.mount:main",
    "umount": "gbxfs.cli.mount:umount_main",
    "ls": "gbxfs.cli.browse:ls_main",
    "cat": "gbxfs.cli.browse:cat_main",
    "demo": "gbxfs.cli.demo:main",
})
COMMANDS["info"] = "gbxfs.cli.info:main"
COMMANDS["coverage"] = "gbxfs.cli.coverage:main"
COMMANDS["extract"] = "gbxfs.cli.extract:main"


def main(argv: list[str] | None = None) -> int:
    import importlib

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: gbxfs {" + ",".join(sorted(COMMANDS)) + "} ...", file=sys.stderr)
        return EXIT_USAGE if not argv else EXIT_OK
    name = argv[0]
    target = COMMANDS.get(name)
    if target is None and "mount" in COMMANDS:
        # `gbxfs SOURCE MOUNTPOINT` (also what mount -t fuse.gbxfs runs)
        name, target, argv = "mount", COMMANDS["mount"], ["mount"] + argv
    if target is None:
        print(f"gbxfs: unknown command {name!r}", file=sys.stderr)
        return EXIT_USAGE
    module_name, func_name = target.split(":")
    func = getattr(importlib.import_module(module_name), func_name)
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
