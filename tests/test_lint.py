"""The project's lint rules (pyproject.toml [tool.ruff]) hold over the package: the
suite is where CI runs them, so a finding fails the same command a developer runs."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing_in_the_package():
    ruff = Path(sys.executable).parent / "ruff"
    if not ruff.exists():
        found = shutil.which("ruff")
        if found is None:
            pytest.fail("ruff is missing: run scripts/setup (it is a test dependency)")
        ruff = Path(found)
    r = subprocess.run([str(ruff), "check", "--output-format", "concise", "gbxfs"], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
