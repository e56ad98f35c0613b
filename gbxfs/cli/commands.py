"""Dispatching `gbxfs COMMAND ...` to the command's function.

A command's module is imported only when that command runs: `gbxfs --version`
and `gbxfs --help` import nothing of the formats or the tree (the overview
reads each command's docstring from its module's source).
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from gbxfs.cli.exits import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, reader_gone

# command name -> "module:function", imported when the command runs (so `gbxfs --version`
# and a mistyped command load no parser); each function takes argv (list[str]), returns an
# exit code, and its docstring's first line is what `gbxfs --help` says about the command.
COMMANDS: dict[str, str] = {
    "mount": "gbxfs.cli.mount:main",
    "umount": "gbxfs.cli.umount:umount_main",
    "ls": "gbxfs.cli.browse:ls_main",
    "cat": "gbxfs.cli.browse:cat_main",
    "extract": "gbxfs.cli.extract:main",
    "info": "gbxfs.cli.info:main",
    "coverage": "gbxfs.cli.coverage:main",
    "demo": "gbxfs.cli.demo:main",
    "thumbnail": "gbxfs.cli.thumbnail:main",
    "install-thumbnailer": "gbxfs.cli.install_thumbnailer:main",
}


def command(name: str) -> Callable[[list[str]], int]:
    """The function of command `name` (its module imported now)."""
    module, func = COMMANDS[name].split(":")
    return getattr(importlib.import_module(module), func)


def _first_doc_line(target: str) -> str:
    """The first docstring line of "module:function", read from the module's source
    without importing it (so `gbxfs --help` loads no parser)."""
    import ast
    from importlib import resources
    module, func = target.split(":")
    package, _, name = module.rpartition(".")
    source = resources.files(package).joinpath(f"{name}.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
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


def _is_mount_source(word: str) -> bool:
    """Whether `gbxfs WORD ...` means `gbxfs mount WORD ...`: WORD names an existing
    file or folder, or is written as a path (a missing one is then mount's "no
    such file"). A bare word that is neither is a mistyped command."""
    import os
    return os.path.lexists(word) or os.sep in word or word.startswith((".", "~")) or word.startswith("-")


def unknown_command(word: str) -> str:
    """The usage error for `gbxfs WORD` when WORD is no command and no path, with the
    closest command names."""
    import difflib
    close = difflib.get_close_matches(word, COMMANDS, n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return (f"gbxfs: unknown command '{word}'{hint}\n"
            f"gbxfs: no file or folder '{word}' to mount either; gbxfs --help lists the commands\n")


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
        if not _is_mount_source(argv[0]):
            sys.stderr.write(unknown_command(argv[0]))
            return EXIT_USAGE
        # `gbxfs SOURCE MOUNTPOINT` (also what mount -t fuse.gbxfs runs)
        argv = ["mount"] + argv
    try:
        return command(argv[0])(argv[1:])
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:     # `gbxfs COMMAND ... | head`: the reader had enough
        return reader_gone()
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
