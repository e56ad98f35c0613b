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


def test_version(capsys):
    import tomllib
    from pathlib import Path
    assert cli.main(["--version"]) == cli.EXIT_OK
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    assert capsys.readouterr().out == f"gbxfs {project['version']}\n"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_is_for_users_only(name, capsys):
    try:
        cli.main([name, "--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    for developer_text in ("gbxfs.", "tools/", ".py", "tests/"):
        assert developer_text not in out, (name, developer_text)


@pytest.mark.parametrize("typo, suggestion", [("lss", "ls"), ("covrage", "coverage"), ("extarct", "extract")])
def test_a_mistyped_command_is_a_usage_error_with_a_suggestion(typo, suggestion, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # no file of that name here: not a mount source
    assert cli.main([typo, "x"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert f"unknown command '{typo}'" in err and f"did you mean {suggestion}?" in err


def test_an_unknown_word_without_a_close_command_gets_no_suggestion(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["zzzz", "x"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown command 'zzzz'" in err and "did you mean" not in err


def test_an_existing_folder_is_still_a_mount_source(capsys, tmp_path, monkeypatch):
    # `gbxfs lss MP` with a folder named lss here is the mount form (the source is checked by mount)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lss").write_text("not a pak")
    code = cli.main(["lss", str(tmp_path / "mp")])
    assert code == cli.EXIT_BAD_INPUT and "unknown command" not in capsys.readouterr().err
    assert not (tmp_path / "mp").exists()     # the mount point it made is gone again
