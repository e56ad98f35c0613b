"""The shipped command table is the shared one, and agrees with FORMAT.md §6.3."""
from __future__ import annotations

import importlib.util

from corpusdata import ROOT
from gbxfs.formats.gp2.commands import command_table
from gp2_oracle import COMMANDS_TSV, argument_counts


def _generator():
    spec = importlib.util.spec_from_file_location("gen_gp2_commands",
                                                  ROOT / "tools" / "gen_gp2_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_table_is_generated_from_shared(shared):
    shipped = (ROOT / "gbxfs" / "data" / "gp2_commands.tsv").read_text("utf-8")
    assert shipped == _generator().convert(COMMANDS_TSV), "run tools/gen_gp2_commands.py"


def test_counts_match_format_notes(shared):
    expected = argument_counts()
    table = command_table()
    assert set(table) == set(expected)
    for ident, spec in table.items():
        assert {spec.n_args, spec.n_args_flag} == expected[ident], hex(ident)
