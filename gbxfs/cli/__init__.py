"""The command line: exit codes here, the commands in gbxfs/cli/commands.py.

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

from gbxfs.cli.exits import (  # noqa: F401
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_MOUNT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
)


def main(argv: list[str] | None = None) -> int:
    """Run one gbxfs command line (see gbxfs/cli/commands.py)."""
    # imported on use: `import gbxfs.cli` alone (for the exit codes) loads no command
    from gbxfs.cli.commands import main as run_command
    return run_command(argv)


def run() -> None:
    import sys
    sys.exit(main())
