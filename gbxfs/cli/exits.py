"""Exit codes of every gbxfs command (documented in the README):
  0  success
  1  some files could not be processed (e.g. unverifiable pak entries skipped)
  2  usage error
  3  input not found
  4  bad input (corrupt, truncated, unsupported file)
  5  mount failed
  70 internal error (a bug)

A module of their own, so that command modules import them without importing the
package that dispatches to the commands (no import circle).
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BAD_INPUT = 4
EXIT_MOUNT_FAILED = 5
EXIT_INTERNAL = 70
