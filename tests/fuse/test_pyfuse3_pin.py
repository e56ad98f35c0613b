"""The pyfuse3 release gbxfs runs on: pinned in pyproject.toml, checked at the
start of every mount (fuse/runner.py require_tested_pyfuse3)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pyfuse3
import pytest
from packaging.requirements import Requirement

from gbxfs.fuse import runner

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _pin() -> Requirement:
    deps = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    (req,) = [Requirement(d) for d in deps if Requirement(d).name == "pyfuse3"]
    return req


def test_pyproject_pins_exactly_the_release_the_mount_accepts():
    req = _pin()
    assert str(req.specifier) == f"=={runner.PYFUSE3_VERSION}"
    assert str(req.marker) == 'sys_platform == "linux"'


def test_the_installed_pyfuse3_is_the_tested_one():
    runner.require_tested_pyfuse3()


@pytest.mark.parametrize("found", ["3.4.0", "3.5.1", "4.0.0"])
def test_any_other_release_is_refused_before_mounting(monkeypatch, found):
    inits = []
    monkeypatch.setattr(pyfuse3, "__version__", found)
    monkeypatch.setattr(pyfuse3, "init", lambda *a: inits.append(a))
    with pytest.raises(RuntimeError, match=rf"pyfuse3 {found} is installed.*pyfuse3=={runner.PYFUSE3_VERSION}"):
        runner.mount(pyfuse3.Operations(), "/nonexistent", set())
    assert inits == []
