"""Exit codes of every gbxfs command (documented in the README and in
gbxfs/cli/__init__.py)."""

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BAD_INPUT = 4
EXIT_MOUNT_FAILED = 5
EXIT_INTERNAL = 70


def reader_gone() -> int:
    """Standard output's reader went away (`gbxfs info --json X | head`): what is
    still written there, the interpreter's last flush included, goes to /dev/null,
    and the command ends as it would have (EXIT_OK)."""
    import os
    import sys

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK
