"""A map's or replay's embedded/ is found by name, never listed, and made when
first named (tree/gbx/view.py GbxFolder.child): the same folder every time; a
file of another class has none."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows

from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.model import Dir
from gbxfs.tree.source import FileSource

pytestmark = pytest.mark.corpus


def _first(corpus, kind: str):
    path = next(r["path"] for r in manifest_rows() if r["kind"] == kind)
    return open_gbx(path.rsplit("/", 1)[-1], FileSource(str(corpus / path)), TreeContext())


@pytest.mark.parametrize("kind", ["map", "replay"])
def test_embedded_is_made_when_named_and_the_same_after(corpus, kind):
    folder = _first(corpus, kind)
    listed = folder.children()
    assert "embedded" not in listed and "embedded" not in folder._children
    made = folder.child("embedded")
    assert isinstance(made, Dir) and made.name == "embedded"
    assert folder.child("embedded") is made and "embedded" not in folder.children()
    assert list(folder.children()) == list(listed)


def test_a_ghost_file_has_no_embedded_folder(corpus):
    folder = _first(corpus, "ghost")
    assert folder.child("embedded") is None and folder.child("ghosts") is not None
