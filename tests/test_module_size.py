"""Every module of the package stays under 400 lines (ARCHITECTURE.md: one concept
per module, small enough to read in one sitting)."""
from __future__ import annotations

from pathlib import Path

import gbxfs

LIMIT = 400
PACKAGE = Path(gbxfs.__file__).parent


def _lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_every_module_is_under_the_limit():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100           # the package itself, not an empty folder
    over = {str(p.relative_to(PACKAGE)): n for p in modules if (n := _lines(p)) >= LIMIT}
    assert over == {}


def test_the_count_sees_a_long_module(tmp_path):
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * LIMIT)
    assert _lines(long) >= LIMIT
