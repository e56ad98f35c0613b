"""`gbxfs --version` and `gbxfs --help` import nothing of the formats or the tree
(each command's module is imported when that command runs), and a GBX summary
does not import the pak or GP2 readers."""
from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from gbxfs.cli import main
main({argv!r})
print(sorted(m for m in sys.modules if m.startswith(("gbxfs.formats", "gbxfs.tree", "gbxfs.fuse"))))
"""


def _imported(argv: list[str]) -> list[str]:
    r = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return eval(r.stdout.strip().splitlines()[-1])     # the list printed last


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_import_no_format(argv):
    assert _imported(argv) == []


def test_a_commands_help_imports_no_format():
    assert not [m for m in _imported(["info", "--help"]) if m.startswith("gbxfs.formats")]


@pytest.mark.corpus
def test_a_map_summary_imports_no_pak_or_gp2_reader(corpus):
    from corpusdata import manifest_rows
    path = str(corpus / next(r["path"] for r in manifest_rows() if r["kind"] == "map"))
    got = _imported(["info", path])
    assert "gbxfs.formats.gbx" in got
    assert not [m for m in got if m.startswith(("gbxfs.formats.pak", "gbxfs.formats.gp2", "gbxfs.tree.pak"))]
