"""docs/api.md's examples run as doctests, and the package exports exactly
its __all__, loaded on first use (`import gbxfs` alone loads no submodule)."""
from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import gbxfs

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.corpus
def test_the_api_doc_examples_run(corpus):
    res = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False, globs={"corpus": corpus},
                           optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL, verbose=False)
    assert res.attempted > 20 and res.failed == 0


def test_every_public_name_is_documented_and_there():
    doc = (ROOT / "docs" / "api.md").read_text()
    for name in gbxfs.__all__:
        assert f"`{name}" in doc, name
        assert getattr(gbxfs, name) is not None
    assert dir(gbxfs) == sorted(gbxfs.__all__)
    with pytest.raises(AttributeError):
        gbxfs.not_a_public_name


def test_importing_gbxfs_or_the_cli_loads_no_fuse_and_no_parser():
    code = ("import sys, gbxfs, gbxfs.cli.commands\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyfuse3', 'trio')\n"
            "             or m.startswith(('gbxfs.formats', 'gbxfs.tree', 'gbxfs._api'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = eval(out.stdout)
    assert not any(m.split(".")[0] in ("pyfuse3", "trio") for m in loaded), loaded
    bare = subprocess.run([sys.executable, "-c", "import sys, gbxfs; print([m for m in sys.modules "
                           "if m.startswith('gbxfs.')])"], capture_output=True, text=True, timeout=60, check=True)
    assert bare.stdout.strip() == "[]"


def test_version_and_a_typo_load_no_command():
    code = ("import sys\nfrom gbxfs.cli import main\nmain(['--version'])\nmain(['lss'])\n"
            "print([m for m in sys.modules if m.startswith('gbxfs.') and m not in "
            "('gbxfs.cli', 'gbxfs.cli.exits', 'gbxfs.cli.commands')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
