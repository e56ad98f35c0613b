"""Failures reach users as one line; the traceback only with GBXFS_DEBUG=1 or debug logging."""
from __future__ import annotations

import logging

from gbxfs.tree.context import TreeContext
from gbxfs.tree.openers import Opener, install, open_entry
from gbxfs.tree.source import BytesSource


def _recurse(n):
    return _recurse(n + 1)


def _deep_failing_view(name, source, ctx):
    return _recurse(0)       # a RecursionError: about a thousand frames


def _open(caplog):
    openers = [Opener("deep", _deep_failing_view, suffixes=(".deep",))]
    entry = open_entry("x.deep", BytesSource(b"data"), install(TreeContext(), openers), openers)
    with caplog.at_level(logging.INFO, logger="gbxfs"):
        kids = entry.children()
    return kids


def test_a_failing_view_logs_one_line(caplog, monkeypatch):
    monkeypatch.delenv("GBXFS_DEBUG", raising=False)
    kids = _open(caplog)
    assert "error.txt" in kids and b"RecursionError" in kids["error.txt"].read(0, 1000)
    [rec] = [r for r in caplog.records if "could not open" in r.getMessage()]
    assert rec.exc_info is None
    assert "\n" not in rec.getMessage() and "RecursionError" in rec.getMessage()
    assert len(caplog.text.splitlines()) == 1 and "Traceback" not in caplog.text


def test_gbxfs_debug_adds_the_traceback(caplog, monkeypatch):
    monkeypatch.setenv("GBXFS_DEBUG", "1")
    _open(caplog)
    [rec] = [r for r in caplog.records if "could not open" in r.getMessage()]
    assert rec.exc_info is not None and "Traceback" in caplog.text and "_recurse" in caplog.text
