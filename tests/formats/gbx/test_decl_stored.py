"""The declarations parsed and linked once per version (decl/stored.py): stored in
the cache folder on first use, read back instead of parsed again, made again when
the stored file is damaged, and still made when the folder cannot be written."""
from __future__ import annotations

import os
import pickle

import pytest

from gbxfs.formats.gbx.decl import registry
from gbxfs.formats.gbx.decl import stored
from gbxfs.formats.gbx.decl.registry import Registry, declaration_texts, linked

TEXTS = [("chunks/t.chunks", 'class CGameCtnChallenge\n03043002 "Tiny" (header)\n    u32 version\n    string name\n')]


def _counting(calls: list):
    def make():
        calls.append(1)
        return linked(TEXTS)
    return make


def test_stored_once_then_read_back(tmp_path):
    calls: list = []
    first = stored.load_or_make(TEXTS, _counting(calls), tmp_path)
    (path,) = tmp_path.glob("declarations-*.pickle")
    again = stored.load_or_make(TEXTS, _counting(calls), tmp_path)
    assert calls == [1]                              # the second process reads, it does not parse
    reg = Registry.from_linked(again)
    assert reg.get(0x03043002).name == "Tiny" and sorted(reg.chunks) == sorted(Registry.from_linked(first).chunks)
    # another text, another file
    other = [(TEXTS[0][0], TEXTS[0][1].replace('"Tiny"', '"Small"'))]
    assert Registry.from_linked(stored.load_or_make(other, lambda: linked(other), tmp_path)).get(0x03043002).name == "Small"
    assert len(list(tmp_path.glob("declarations-*.pickle"))) == 2 and path.exists()


def test_a_damaged_file_is_made_again(tmp_path):
    calls: list = []
    stored.load_or_make(TEXTS, _counting(calls), tmp_path)
    (path,) = tmp_path.glob("declarations-*.pickle")
    path.write_bytes(b"not a pickle")
    got = stored.load_or_make(TEXTS, _counting(calls), tmp_path)
    assert calls == [1, 1] and Registry.from_linked(got).get(0x03043002).name == "Tiny"
    assert pickle.loads(path.read_bytes()).chunks.keys() == got.chunks.keys()    # stored whole again


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_folder_that_cannot_be_written_still_gives_the_declarations(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        got = stored.load_or_make(TEXTS, lambda: linked(TEXTS), folder / "gbxfs")
    finally:
        folder.chmod(0o700)
    assert Registry.from_linked(got).get(0x03043002).name == "Tiny"


def test_a_cache_path_that_is_a_file_still_gives_the_declarations(tmp_path):
    blocker = tmp_path / "gbxfs"
    blocker.write_bytes(b"")                         # mkdir fails whoever runs the test
    got = stored.load_or_make(TEXTS, lambda: linked(TEXTS), blocker)
    assert Registry.from_linked(got).get(0x03043002).name == "Tiny"


def test_the_key_follows_the_texts_and_the_folder_follows_xdg(monkeypatch, tmp_path):
    assert stored.key(TEXTS) == stored.key(list(TEXTS))
    assert stored.key(TEXTS) != stored.key([(TEXTS[0][0], TEXTS[0][1] + "\n")])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert stored.cache_folder() == tmp_path / "gbxfs"


def test_the_shipped_registry_read_back_is_the_one_parsed(monkeypatch, tmp_path):
    """The same declarations, statements and structs whether parsed now or read back."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    texts = declaration_texts()
    parsed = linked(texts)
    stored.load_or_make(texts, lambda: parsed)
    back = stored.load_or_make(texts, lambda: pytest.fail("parsed again"))
    assert back.chunks == parsed.chunks           # the same definitions and linked statements, by value
    assert back.structs.keys() == parsed.structs.keys() and len(back.errors) == len(parsed.errors)
    assert len(Registry.from_linked(back)) == len(Registry.from_linked(parsed)) == len(registry())
