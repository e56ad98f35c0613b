"""GbxReader: the GameBox binary primitives over a pull source.

A *pull source* has `read(n) -> bytes`, exactly n bytes (fewer at the end become
`Truncated`). For `BufferSource` (in-memory data) the reader unpacks straight from the
buffer (the fast path); other sources (a pak entry decrypted and inflated on demand)
are read piece by piece, every byte taken logged so that `raw()` works as in memory.

The reader carries one body's or header chunk's parsing state: the lookback strings
(`ids`, lookback.py; stacked for encapsulated chunks), the node list (`nodes`, with
the reference table's external nodes), and from above: `walker` (nodes.NodeWalker),
and for paks `on_node(class_id)` at every ReadNode and `feed(data)` for in-chunk feeds.
Text-format files use textreader.TextGbxReader. Imports only encoding, errors, lookback, sources.
"""
from __future__ import annotations

import builtins
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .encoding import ARRAY_FORMATS, MAX_COUNT, MAX_STRING, SKIP_MARKER, fileref_at, read_fileref, stored_text, text_at
from .encoding import unpack_2f as _2f
from .encoding import unpack_3f as _3f
from .encoding import unpack_4f as _4f
from .encoding import unpack_f32 as _f32
from .encoding import unpack_i8 as _i8
from .encoding import unpack_i16 as _i16
from .encoding import unpack_i32 as _i32
from .encoding import unpack_i64 as _i64
from .encoding import unpack_u16 as _u16
from .encoding import unpack_u32 as _u32
from .encoding import unpack_u64 as _u64
from .errors import GbxError, Truncated
from .lookback import IdState, read_id
from .sources import BufferSource, Pushback

if TYPE_CHECKING:       # the node list holds model records; the reader never makes them
    from .model import ExternalRef, Node

def _fixed_read(unpack: Callable, size: int) -> Callable[[GbxReader], Any]:
    def read(self: GbxReader) -> Any:
        buf = self._buf
        if buf is not None:
            p = self._pos
            if p + size > self._end:  # type: ignore[operator]  # in memory the end is known
                raise self._short(size)
            self._pos = p + size
            return unpack(buf, p)[0]
        return unpack(self._take(size))[0]
    return read


def _no_feed(data: bytes) -> None:
    pass


class GbxReader:
    """Binary GBX primitives. See the module docstring."""

    text = False

    def __init__(self, source: Any, *, num_nodes: int | None = None,
                 externals: dict[int, ExternalRef] | None = None,
                 on_node: Callable[[int], None] | None = None,
                 feed: Callable[[bytes], None] | None = None,
                 offset_base: int = 0, walker: Any = None):
        if isinstance(source, (bytes, bytearray, memoryview)):
            source = BufferSource(source)
        if isinstance(source, BufferSource):
            # the bytes object under the view when the view is all of it: struct reads
            # from bytes, its items and slices cost less than a view's (a slice is one
            # copy, not a view object and then a copy)
            view = source.view
            data = view.obj
            self._buf: bytes | memoryview | None = data if type(data) is bytes and len(data) == len(view) else view
            self._pos = source.pos
            self._base = source.pos
            self._end: int | None = source.end
            self._src: Any = None
            self._log: bytearray | None = None
        else:
            self._buf = None
            self._src = source
            self._pos = 0
            self._base = 0
            remaining = getattr(source, "remaining", None)
            self._end = remaining if isinstance(remaining, int) else None
            self._log = bytearray()
        self.offset_base = offset_base   # added to offsets in error messages (file offset of byte 0)
        self.ids = IdState()
        self._id_stack: list[IdState] = []
        self.encapsulated = 0            # depth of encapsulated chunks being read
        self.num_nodes = num_nodes
        self.nodes: dict[int, Node | ExternalRef] = dict(externals or {})
        self.all_nodes: list[Node] = []  # every node read, in reading order
        self.depth = 0
        self.on_node = on_node
        self.feed: Callable[[bytes], None] = feed or _no_feed
        self.walker = walker             # nodes.NodeWalker: reads node references (None: none allowed)

    # -- position -------------------------------------------------------------------
    def tell(self) -> int:
        return self._pos - self._base

    @property
    def remaining(self) -> int | None:
        """Bytes left before the end (or the current limit); None when unknown."""
        return None if self._end is None else self._end - self._pos

    def at_end(self) -> bool:
        if self._end is not None:
            return self._pos >= self._end
        return False

    def _short(self, n: int) -> Truncated:
        left = "unknown" if self._end is None else str(self._end - self._pos)
        return Truncated(f"need {n} bytes, {left} left", offset=self.offset_base + self.tell())

    def error(self, reason: str, offset: int | None = None) -> GbxError:
        """A GbxError located at the current position (or `offset`, reader-relative)."""
        return GbxError(reason, offset=self.offset_base + (self.tell() if offset is None else offset))

    def _take(self, n: int) -> bytes | memoryview:
        """Exactly n bytes (a slice of the buffer in memory mode)."""
        p = self._pos
        e = p + n
        if n < 0 or (self._end is not None and e > self._end):
            raise self._short(n)
        buf = self._buf
        if buf is not None:
            self._pos = e
            return buf[p:e]
        try:
            data = self._src.read(n)
        except Truncated as err:    # the source's own end: located here, as in memory
            raise Truncated(f"need {n} bytes: {err.reason}", offset=self.offset_base + self.tell()) from None
        if len(data) != n:
            raise self._short(n)
        self._log += data
        self._pos = e
        return data

    def fixed(self, n: int) -> bytes | memoryview | None:
        """Exactly n bytes, or None (nothing consumed) when fewer are left before the
        end or the current limit: fused field reads fall back to one field at a time
        so that the error names the field."""
        if self._end is not None and self._pos + n > self._end:
            return None
        return self._take(n)

    def skip(self, n: int) -> None:
        """Move forward n bytes (stream mode reads and logs them)."""
        if self._buf is not None:
            if n < 0 or self._pos + n > self._end:  # type: ignore[operator]  # in memory the end is known
                raise self._short(n)
            self._pos += n
        else:
            while n > 0:  # in pieces: a hostile n must not allocate at once
                k = min(n, 1 << 20)
                self._take(k)
                n -= k

    def seek(self, pos: int) -> None:
        """Go to a reader offset at or after the current one."""
        if pos < self.tell():
            raise self.error(f"cannot seek backwards to {pos:#x}")
        self.skip(pos - self.tell())

    def raw(self, start: int, end: int) -> bytes:
        """Bytes already read between two reader offsets."""
        if self._buf is not None:
            return bytes(self._buf[self._base + start:self._base + end])
        assert self._log is not None        # a stream (no _buf) logs what it takes
        return bytes(self._log[start:end])

    @contextmanager
    def limit(self, size: int) -> Iterator[int]:
        """Forbid reading past `size` more bytes inside the block; yields the end offset."""
        if size < 0:
            raise self.error(f"negative size {size}")
        end = self._pos + size
        if self._end is not None and end > self._end:
            raise self._short(size)
        saved = self._end
        self._end = end
        try:
            yield end - self._base
        finally:
            self._end = saved

    def check_count(self, n: int, min_item_size: int = 1, what: str = "count") -> int:
        """Validate an element count before looping/allocating."""
        if n < 0 or n > MAX_COUNT:
            raise self.error(f"{what} {n} out of range (limit {MAX_COUNT})")
        if min_item_size and self._end is not None and n * min_item_size > self._end - self._pos:
            raise self.error(f"{what} {n} needs at least {n * min_item_size} bytes, "
                             f"{self._end - self._pos} left")
        return n

    # -- numbers ----------------------------------------------------------------------
    def u8(self) -> int:
        buf = self._buf
        if buf is not None:
            p = self._pos
            if p + 1 > self._end:  # type: ignore[operator]  # in memory the end is known
                raise self._short(1)
            self._pos = p + 1
            return buf[p]
        return self._take(1)[0]

    # the fixed-size reads, each one function without a call inside on the in-memory path
    # (the hot ones: the 4-byte reads)
    u32 = _fixed_read(_u32, 4)
    i32 = _fixed_read(_i32, 4)
    f32 = _fixed_read(_f32, 4)

    i8 = _fixed_read(_i8, 1)
    u16 = _fixed_read(_u16, 2)
    i16 = _fixed_read(_i16, 2)
    u64 = _fixed_read(_u64, 8)
    i64 = _fixed_read(_i64, 8)

    def u128(self) -> int:
        return int.from_bytes(self._take(16), "little")

    # a u32 that the text format writes in hex (class ids, chunk ids): the text reader
    # overrides both names; here they are the u32 read itself (one call per chunk id)
    hex32 = _fixed_read(_u32, 4)

    def bool(self) -> bool:
        v = self.u32()
        if v > 1:
            raise self.error(f"bool is {v:#x}, not 0 or 1", self.tell() - 4)
        return v == 1

    def vec2(self) -> tuple[float, float]:
        return _2f(self._take(8))

    def vec3(self) -> tuple[float, float, float]:
        return _3f(self._take(12))

    def vec4(self) -> tuple[float, float, float, float]:
        return _4f(self._take(16))

    def floats(self, n: int) -> tuple[float, ...]:
        return struct.unpack_from(f"<{n}f", self._take(4 * n))

    def ints(self, n: int) -> tuple[int, ...]:
        return struct.unpack_from(f"<{n}i", self._take(4 * n))

    def array(self, fmt: str, n: int) -> list:
        """n numbers of one struct format char, read in one go."""
        size = ARRAY_FORMATS[fmt]
        self.check_count(n, size)
        return list(struct.unpack_from(f"<{n}{fmt}", self._take(n * size)))

    # -- bytes and strings ------------------------------------------------------------
    def bytes(self, n: int) -> bytes:
        if n < 0:
            raise self.error(f"negative byte count {n}")
        if self._end is not None and n > self._end - self._pos:
            raise self._short(n)
        if self._buf is None and n > MAX_STRING * 4:
            raise self.error(f"byte count {n} too large")
        return bytes(self._take(n))

    def string(self) -> str:
        buf = self._buf
        if buf is not None:        # in memory and all there: one call
            p = self._pos
            text = text_at(buf, p, self._end)  # type: ignore[arg-type]  # in memory the end is known
            if text is not None:
                self._pos = p + 4 + _u32(buf, p)[0]
                return text
        n = self.u32()
        if n > MAX_STRING:
            raise self.error(f"string length {n} too large", self.tell() - 4)
        if self._end is not None and n > self._end - self._pos:
            raise Truncated(f"string of {n} bytes, {self._end - self._pos} left",
                            offset=self.offset_base + self.tell() - 4)
        return stored_text(self._take(n))

    def marker(self, expected: builtins.bytes) -> None:
        """Literal bytes that must be present ("<Thumbnail.jpg>")."""
        got = bytes(self._take(len(expected)))
        if got != expected:
            raise self.error(f"expected {expected!r}, found {got!r}", self.tell() - len(expected))

    # -- lookback strings ---------------------------------------------------------------
    def reset_ids(self) -> None:
        """Fresh lookback state (each header chunk, the body)."""
        self.ids = IdState()

    def push_ids(self) -> None:
        self._id_stack.append(self.ids)
        self.ids = IdState()

    def pop_ids(self) -> None:
        self.ids = self._id_stack.pop()

    def id_index(self) -> int:
        """The u32 of a lookback string (hex in text files)."""
        return self.u32()

    def id(self) -> str | int:
        """A lookback string (see lookback.read_id)."""
        return read_id(self)

    def meta(self) -> tuple[Any, Any, Any]:
        return (read_id(self), read_id(self), read_id(self))

    def fileref(self) -> dict[str, Any]:
        buf = self._buf
        if buf is not None and not self.text:
            quick = fileref_at(buf, self._pos, self._end)  # type: ignore[arg-type]  # in memory the end is known
            if quick is not None:
                self._pos = quick[1]
                return quick[0]
        return read_fileref(self)

    def sub_reader(self, data: builtins.bytes) -> GbxReader:
        """A reader over other bytes (inflated data inside a chunk) that shares this
        reader's state: lookback strings, node list, hooks."""
        sub = type(self)(BufferSource(data), num_nodes=self.num_nodes, on_node=self.on_node, feed=self.feed,
                         walker=self.walker)
        sub.ids = self.ids
        sub._id_stack = self._id_stack
        sub.encapsulated = self.encapsulated
        sub.nodes = self.nodes
        sub.all_nodes = self.all_nodes
        sub.depth = self.depth
        return sub

    # -- nodes ----------------------------------------------------------------------------
    @contextmanager
    def encapsulation(self) -> Iterator[None]:
        """Encapsulated chunk: own lookback state, node refs without index."""
        self.push_ids()
        self.encapsulated += 1
        try:
            yield
        finally:
            self.encapsulated -= 1
            self.pop_ids()

    # -- chunk stream -------------------------------------------------------------------
    chunk_id = hex32

    def skip_marker(self) -> builtins.bool:
        """Consume "PIKS" if it is next; False (nothing consumed) otherwise, also with fewer
        than 4 bytes left (the chunk's own read then reports the end, in its context)."""
        if self._buf is not None:
            p = self._pos
            if p + 4 <= self._end and _u32(self._buf, p)[0] == SKIP_MARKER:  # type: ignore[operator]  # in memory
                self._pos = p + 4
                return True
            return False
        try:
            data = self._take(4)
        except Truncated:
            return False
        if _u32(data)[0] == SKIP_MARKER:
            return True
        self.untake(4)
        return False

    def peek_u32(self) -> int | None:
        """The next u32 without consuming it; None when fewer than 4 bytes are left."""
        if self._end is not None and self._end - self._pos < 4:
            return None
        if self._buf is not None:
            return _u32(self._buf, self._pos)[0]
        try:
            data = self._take(4)
        except Truncated:
            return None
        self.untake(4)
        return _u32(data)[0]

    def untake(self, n: int) -> None:
        """Give back the last n bytes taken: peeks, and a fused read failing part-way (it
        stops where its field's read would). A stream's go to a pushback before the source,
        wrapped once: a wrapper per peek would nest deeper each time, and a pak entry's
        map peeks thousands of times (RecursionError in the reads)."""
        self._pos -= n
        if self._buf is None and n:
            assert self._log is not None    # a stream (no _buf) logs what it takes
            data = bytes(self._log[len(self._log) - n:])
            del self._log[len(self._log) - n:]
            if isinstance(self._src, Pushback):
                self._src.head = data + self._src.head
            else:
                self._src = Pushback(self._src, data)
