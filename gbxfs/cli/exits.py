"""Exit codes of every gbxfs command (documented in the README and in
gbxfs/cli/__init__.py)."""

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BAD_INPUT = 4
EXIT_MOUNT_FAILED = 5
EXIT_INTERNAL = 70
