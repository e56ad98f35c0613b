"""Lookback strings: the per-body (per header chunk, per encapsulated chunk) list of
strings that later references point back into, and how one is read.

A lookback string is a version u32 (with the first string of a state), then an
index u32: 0xFFFFFFFF the empty string; top bits clear: a number (an index into the
game's global table); 0x40000000 or 0x80000000 alone: a new string follows; with a
low part n: the n-th string of the list. Version 2 (Virtual Skipper 2) stores the
index and the string every time.
"""
from __future__ import annotations

import struct
from typing import Any

_u32 = struct.Struct("<I").unpack_from


class IdState:
    """Lookback-string state: version (read with the first string) and the list.

    `gap`: set when a skippable chunk was kept raw (undeclared, or its declaration
    failed) while this state was current: that chunk may have defined strings we never
    saw, so the numbers of all strings from `gap` on are uncertain. A back reference
    past it is an error naming the chunk, never a silently wrong string."""

    __slots__ = ("version", "strings", "gap")

    def __init__(self) -> None:
        self.version: int | None = None
        self.strings: list[str] = []
        self.gap: tuple[int, int, int] | None = None    # (known strings, chunk id, offset)

    def snapshot(self) -> tuple:
        return (self.version, len(self.strings), self.gap)

    def restore(self, snap: tuple) -> None:
        self.version, n, self.gap = snap
        del self.strings[n:]

    def mark_gap(self, chunk_id: int, offset: int) -> None:
        """A raw-skipped chunk: strings it may define are unknown (the first gap counts)."""
        if self.gap is None:
            self.gap = (len(self.strings), chunk_id, offset)


def read_id(r: Any) -> str | int:
    """A lookback string from reader `r` (its `ids` state). Returns the string; "" for
    the empty id (0xFFFFFFFF); an int when the id is a number."""
    st = r.ids
    buf = r._buf
    if buf is not None and st.version == 3 and not r.text:
        # binary in memory, the common ids: straight from the reader's buffer; a new
        # string, the first id of a state and every error take the general path below
        p = r._pos
        if p + 4 <= r._end:
            index = _u32(buf, p)[0]
            if index == 0xFFFFFFFF:
                r._pos = p + 4
                return ""
            if not index & 0xC0000000:
                r._pos = p + 4
                return index
            n = index & 0x3FFFFFFF
            if n and st.gap is None and n <= len(st.strings):
                r._pos = p + 4
                return st.strings[n - 1]
    return _read_id(r, st)


def _read_id(r: Any, st: IdState) -> str | int:
    if st.version is None or st.version == 2:
        at = r.tell()
        v = r.u32()
        if v not in (2, 3):
            raise r.error(f"unsupported lookback string version {v}", at)
        if st.version is None:
            st.version = v
    if st.version == 2:
        r.id_index()
        return r.string()
    at = r.tell()
    index = r.id_index()
    if index == 0xFFFFFFFF:
        return ""
    if index & 0xC0000000 == 0:
        return index
    n = index & 0x3FFFFFFF
    if n == 0:
        s = r.string()
        st.strings.append(s)
        return s
    gap = st.gap
    if gap is not None and n > gap[0]:
        raise r.error(f"lookback string #{n} referenced, but skippable chunk {gap[1]:08X} at "
                      f"{gap[2]:#x} was kept raw after string #{gap[0]}: it may have defined "
                      f"strings, so #{n} is unknown", at)
    if n > len(st.strings):
        raise r.error(f"lookback string #{n} referenced, only {len(st.strings)} known", at)
    return st.strings[n - 1]


_NEW_STRING = (b"\x00\x00\x00\x40", b"\x00\x00\x00\x80")


def may_define_strings(raw: bytes, text: bool = False) -> bool:
    """Could these chunk bytes define a new lookback string? A new string is written as
    the index 0x40000000 (or 0x80000000), a u32 length and that many bytes, all inside
    the chunk; bytes without such a pattern certainly define none (a back reference or a
    number adds nothing to the list). False positives (e.g. the float 2.0) only cost
    precision; there are no false negatives."""
    if text:
        return b"40000000" in raw or b"80000000" in raw
    n = len(raw)
    for pattern in _NEW_STRING:
        i = raw.find(pattern)
        while 0 <= i <= n - 8:
            if i + 8 + int.from_bytes(raw[i + 4:i + 8], "little") <= n:
                return True
            i = raw.find(pattern, i + 1)
    return False
