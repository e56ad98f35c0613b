"""The command line: exit codes in gbxfs/cli/exits.py (re-exported here), the
commands in gbxfs/cli/commands.py."""
from __future__ import annotations

from gbxfs.cli.exits import (EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_MOUNT_FAILED, EXIT_NOT_FOUND, EXIT_OK,  # noqa: F401
                             EXIT_PARTIAL, EXIT_USAGE)


def main(argv: list[str] | None = None) -> int:
    """Run one gbxfs command line (see gbxfs/cli/commands.py)."""
    from gbxfs.cli.commands import main as run_command     # loads every command module

    return run_command(argv)


def run() -> None:
    import sys
    sys.exit(main())
