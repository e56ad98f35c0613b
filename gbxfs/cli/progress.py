"""Progress of long commands (extract, coverage, a first maps.csv): a tqdm bar
on stderr when it is a terminal, nothing at all in a pipe or a log file."""
from __future__ import annotations

import sys

from tqdm import tqdm

from gbxfs.cli.exits import reader_gone


def bar(desc: str, *, total: int | None = None, unit: str = " files", unit_scale: bool = False) -> tqdm:
    """A progress bar for `desc` that shows only on a terminal (tqdm's disable=None)
    and is wiped when closed (the command's own summary line stays)."""
    return tqdm(desc=desc, total=total, unit=unit, unit_scale=unit_scale, disable=None, leave=False,
                file=sys.stderr, dynamic_ncols=True)


def say(text: str, *, err: bool = False) -> None:
    """Print a line without tearing a bar that is on the screen. Lines for a reader
    of stdout that went away (`gbxfs extract ... | head`) are dropped: the command
    goes on, and its totals (stderr) and exit code say what it did."""
    try:
        tqdm.write(text, file=sys.stderr if err else sys.stdout)
    except BrokenPipeError:
        if err:
            raise
        reader_gone()
