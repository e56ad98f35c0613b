"""`gbxfs --help` lists every command with a one-line description, and every
command answers --help."""
from __future__ import annotations

import pytest

from gbxfs import cli
from gbxfs.cli.commands import COMMANDS


def test_overview_lists_every_command_with_its_description(capsys):
    assert cli.main(["--help"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    listed = {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines()
              if line.startswith("  ") and line.split()[0] in COMMANDS}
    assert set(listed) == set(COMMANDS)
    assert all(len(text) > 10 for text in listed.values())


def test_no_arguments_is_a_usage_error_with_the_overview(capsys):
    assert cli.main([]) == cli.EXIT_USAGE
    assert "commands:" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(name, capsys):
    try:
        code = cli.main([name, "--help"])
    except SystemExit as e:   # argparse's own exit, passed through the dispatcher
        code = e.code
    assert code == cli.EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith(f"usage: gbxfs {name}")
