"""The GP2 track command table: how many s16 arguments follow each command.

The counts live in gbxfs/data/gp2_commands.tsv (generated from the shared,
verified table by tools/gen_gp2_commands.py), not in code. The count is
fixed per id except where the table gives "a|b": then it is `a`, or `b`
when the track header flags have bit 0x200 set (only 0xC5 in GP2).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from gbxfs.formats.gp2.errors import Gp2Error

# Track header flag that selects the second count of an "a|b" entry.
FLAG_LONG_C5 = 0x200


@dataclass(frozen=True)
class CommandSpec:
    ident: int
    n_args: int        # s16 words after the command word (Arg0 is inside the command word)
    n_args_flag: int   # the same when the header has FLAG_LONG_C5
    name: str

    def count(self, header_flags: int) -> int:
        return self.n_args_flag if header_flags & FLAG_LONG_C5 else self.n_args


def parse_table(text: str) -> dict[int, CommandSpec]:
    table: dict[int, CommandSpec] = {}
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    for line in rows[1:]:  # rows[0] is the column header
        ident_text, counts, name = line.split("\t", 2)
        ident = int(ident_text, 16)
        parts = [int(p) for p in counts.split("|")]
        table[ident] = CommandSpec(ident, parts[0], parts[-1], name)
    return table


@lru_cache(maxsize=1)
def command_table() -> dict[int, CommandSpec]:
    text = resources.files("gbxfs").joinpath("data", "gp2_commands.tsv").read_text("utf-8")
    return parse_table(text)


def lookup(ident: int, offset: int) -> CommandSpec:
    spec = command_table().get(ident)
    if spec is None:
        # An unknown id means the argument count is unknown, so nothing after
        # it can be located: that is a structural error, not a warning.
        raise Gp2Error(f"unknown track command 0x{ident:02X}", offset)
    return spec
