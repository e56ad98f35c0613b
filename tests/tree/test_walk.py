from __future__ import annotations

import pytest

from gbxfs.tree.model import BytesFile, Dir
from gbxfs.tree.walk import NotADir, NotFound, effective_mtime_ns, resolve, walk


def _tree():
    leaf = BytesFile("leaf.txt", b"leaf")
    inner = Dir("inner", children=[leaf])                      # no mtime: inherits
    return Dir("root", children=[Dir("a", children=[inner], mtime_ns=5), BytesFile("top", b"t", mtime_ns=9)],
               mtime_ns=1)


def test_resolve_paths():
    t = _tree()
    assert resolve(t, "a/inner/leaf.txt").read(0, 4) == b"leaf"
    assert resolve(t, "/a//inner/./leaf.txt").name == "leaf.txt"
    assert resolve(t, "a\\inner") is resolve(t, "a/inner")
    assert resolve(t, "") is t
    assert resolve(t, "a/inner/../../top").name == "top"
    assert resolve(t, "../../top").name == "top"  # never above the root


def test_errors_name_the_failing_part():
    t = _tree()
    with pytest.raises(NotFound) as e:
        resolve(t, "a/missing/x")
    assert e.value.path == "a/missing"
    with pytest.raises(NotADir) as e:
        resolve(t, "top/x")
    assert e.value.path == "top"


def test_mtime_is_inherited_from_the_nearest_ancestor():
    t = _tree()
    assert effective_mtime_ns(walk(t, "a/inner/leaf.txt")) == 5
    assert effective_mtime_ns(walk(t, "top")) == 9
    assert effective_mtime_ns(walk(t, "")) == 1
