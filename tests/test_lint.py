"""The project's lint rules and type checks (pyproject.toml [tool.ruff], [tool.mypy])
hold over the package: the suite is where CI runs them, so a finding fails the same
command a developer runs."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> Path:
    """The test dependency `name`: beside this interpreter (the project's venv), else on PATH."""
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return exe
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: run scripts/setup (it is a test dependency)")
    return Path(found)


def test_ruff_finds_nothing_in_the_package():
    r = subprocess.run([str(_tool("ruff")), "check", "--output-format", "concise", "gbxfs"], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_finds_nothing_in_the_package(tmp_path):
    # the configuration's own `files` (the package) and settings; the cache in a
    # folder of the test's, so that a run leaves nothing in the checkout
    r = subprocess.run([str(_tool("mypy")), "--cache-dir", str(tmp_path / "mypy"), "--no-error-summary"],
                       cwd=ROOT, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
