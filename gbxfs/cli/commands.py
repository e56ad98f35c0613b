"""Dispatching `gbxfs COMMAND ...` to the command's function.

A command's module is imported only when that command runs: `gbxfs --version`
and `gbxfs --help` import nothing of the formats or the tree (the overview
reads each command's docstring from its module's source).
"""
from __future__ import annotations

import sys

from gbxfs.cli.exits import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE

# command name -> "module:function" under gbxfs.cli; each function takes argv
# (list[str]), returns an exit code, and its docstring's first line is what
# `gbxfs --help` says about the command.
COMMANDS: dict[str, str] = {
    "mount": "mount:main",
    "umount": "umount:umount_main",
    "ls": "browse:ls_main",
    "cat": "browse:cat_main",
    "extract": "extract:main",
    "info": "info:main",
    "coverage": "coverage:main",
    "demo": "demo:main",
}


def command(name: str):
    """The function of command `name` (its module imported now)."""
    from importlib import import_module
    module, func = COMMANDS[name].split(":")
    return getattr(import_module(f"gbxfs.cli.{module}"), func)


def _first_doc_line(target: str) -> str:
    """The first docstring line of "module:function", read from the source, not imported."""
    import ast
    from importlib import resources
    module, func = target.split(":")
    tree = ast.parse(resources.files("gbxfs.cli").joinpath(f"{module}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func:
            return ((ast.get_docstring(node) or "").strip().splitlines() or [""])[0]
    return ""


def overview() -> str:
    """`gbxfs --help`: every command of COMMANDS with its one-line description."""
    width = max(map(len, COMMANDS))
    lines = ["usage: gbxfs COMMAND [ARGS...]",
             "       gbxfs SOURCE MOUNTPOINT [-o OPT,...] [-f] [-d]   (the same as gbxfs mount)",
             "       gbxfs --version",
             "", "commands:"]
    for name, target in COMMANDS.items():
        lines.append(f"  {name:<{width}}  {_first_doc_line(target)}")
    lines += ["", "gbxfs COMMAND --help describes a command's arguments and options."]
    return "\n".join(lines) + "\n"


def version() -> str:
    """The installed distribution's version (pyproject.toml), else "unknown".

    Read from the first gbxfs-*.dist-info/METADATA on sys.path, the one
    importlib.metadata would find: importing importlib.metadata (and the email
    parser it uses) takes longer than the rest of `gbxfs --version`."""
    import os
    for folder in sys.path:
        try:
            names = [n for n in os.listdir(folder or ".") if n.startswith("gbxfs-") and n.endswith(".dist-info")]
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(folder or ".", name, "METADATA"), encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
                        if not line.strip():
                            break       # the headers end at the first empty line
            except OSError:
                continue
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
    try:
        return command(argv[0])(argv[1:])
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
