"""KeyedFile (tree/cached.py): a generated file whose cache key and maker come
from its owner when read; the bytes are made once while cached, made again the
same after eviction, and never served at another size than the one listed."""
from __future__ import annotations

import errno

import pytest

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.cached import KeyedFile


class Owner:
    def __init__(self, text: bytes):
        self.text = text
        self.made = 0

    def file_key(self, name: str) -> tuple:
        return ("owner", id(self), name)

    def render(self) -> bytes:
        self.made += 1
        return self.text


def test_made_once_while_cached_and_again_after_eviction():
    cache, owner = ByteLRU(1 << 20), Owner(b"hello\n")
    f = KeyedFile("a.txt", cache, owner, Owner.render, lazy=True)
    assert f.lazy_size and f.size(wait=False) is None
    assert f.read(0, 100) == b"hello\n" and f.size() == 6 and owner.made == 1
    assert f.read(1, 3) == b"ell" and owner.made == 1
    assert cache.get(owner.file_key("a.txt")) == b"hello\n"       # where the owner says
    cache.discard(owner.file_key("a.txt"))
    assert f.read(0, 100) == b"hello\n" and owner.made == 2


def test_content_of_another_size_than_listed_is_eio():
    cache, owner = ByteLRU(1 << 20), Owner(b"longer than listed\n")
    f = KeyedFile("b.txt", cache, owner, Owner.render, size=3)
    assert f.size() == 3
    with pytest.raises(OSError) as e:
        f.read(0, 10)
    assert e.value.errno == errno.EIO
