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


EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BAD_INPUT = 4
EXIT_MOUNT_FAILED = 5
EXIT_INTERNAL = 70


def main(argv: list[str] | None = None) -> int:
    """Run one gbxfs command line (see gbxfs/cli/commands.py)."""
    # imported here, not at the top: every command module imports the exit codes above
    from gbxfs.cli.commands import main as run_command
    return run_command(argv)


def run() -> None:
    import sys
    sys.exit(main())
