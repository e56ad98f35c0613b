"""A small seeded slice of the mutation fuzz (fuzz.py; the full run is
`python tests/robustness/fuzz.py --cases 10000`): no crash, no hang, memory
within bounds, and no pak or pack entry served with wrong bytes under any
label but `none: ... no checksum in the format`. The pak and pack slices
must meet such damage (their stored entries are served as they decrypt),
so the last check is exercised."""
from __future__ import annotations

import pytest
from fuzz import FORMATS, failed, run

pytestmark = pytest.mark.corpus
SEED = 24
CASES = {"gbx": 16, "pak": 24, "pack": 40, "gp2": 8}


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_slice(corpus, fmt):
    o = run(fmt, CASES[fmt], SEED)
    assert not failed(o), (o, o.first)
    if fmt in ("pak", "pack"):
        assert o.wrong_unproven > 0 and o.eio > 0, o
