"""GbxReader: the GameBox primitives over a pull source.

A *pull source* is any object with `read(n) -> bytes` that returns exactly n bytes
(or fewer at the end, which the reader turns into `Truncated`). `BytesSource` wraps
in-memory data; the reader recognises it and reads straight from the buffer with
`struct.unpack_from` (the fast path). Other sources (the pak layer decrypting and
inflating on demand) are read piece by piece, and every byte taken is logged so that
raw chunk bytes stay available (`raw()`), exactly as in memory.

The reader also carries the parsing state the seed describes: the lookback-string
state (`ids`, reset per header chunk and per body, stacked for encapsulated chunks),
the node list (`nodes`, with external nodes from the reference table), and two hooks
for paks: `on_node(class_id)` at every ReadNode and `feed(data)` for in-chunk feeds.

Text-format files ('T' in the header) use `TextGbxReader`: numbers and strings are
one CRLF-terminated ASCII line each; class/chunk ids and lookback indices are hex
(as GBX.NET reads them), other integers decimal; raw byte arrays stay raw.
"""
from __future__ import annotations

import struct
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from . import classdb
from .errors import GbxError, Truncated
from .model import ExternalRef, Node, NodeRef

# Hard limits: hostile counts must fail before anything big is allocated.
MAX_COUNT = 1 << 24          # elements in one array / list
MAX_STRING = 1 << 26         # bytes in one string (64 MiB)
MAX_DEPTH = 32               # nested ReadNode calls (node refs inside node refs)
MAX_LINE = 1 << 26           # text format: longest line

SKIP_MARKER = 0x534B4950     # "SKIP" (reads as "PIKS" in the file)
NULL_CLASS = 0xFFFFFFFF

_u8 = struct.Struct("<B").unpack_from
_i8 = struct.Struct("<b").unpack_from
_u16 = struct.Struct("<H").unpack_from
_i16 = struct.Struct("<h").unpack_from
_u32 = struct.Struct("<I").unpack_from
_i32 = struct.Struct("<i").unpack_from
_u64 = struct.Struct("<Q").unpack_from
_i64 = struct.Struct("<q").unpack_from
_f32 = struct.Struct("<f").unpack_from
_2f = struct.Struct("<2f").unpack_from
_3f = struct.Struct("<3f").unpack_from
_4f = struct.Struct("<4f").unpack_from

# element format and size for fast numeric arrays
ARRAY_FORMATS = {"B": 1, "b": 1, "H": 2, "h": 2, "I": 4, "i": 4, "Q": 8, "q": 8, "f": 4}


class BytesSource:
    """In-memory pull source over bytes/bytearray/memoryview (no copy)."""

    __slots__ = ("view", "pos", "end")

    def __init__(self, data: bytes | bytearray | memoryview, start: int = 0, end: int | None = None):
        view = memoryview(data)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        self.view = view
        self.end = len(view) if end is None else min(end, len(view))
        self.pos = min(start, self.end)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def read(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise Truncated(f"need {n} bytes, {self.end - self.pos} left", offset=self.pos)
        p = self.pos
        self.pos = p + n
        return bytes(self.view[p:p + n])


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


def _no_feed(data: bytes) -> None:
    pass


class GbxReader:
    """Binary GBX primitives. See the module docstring."""

    text = False

    def __init__(self, source: Any, *, num_nodes: int | None = None,
                 externals: dict[int, ExternalRef] | None = None,
                 on_node: Callable[[int], None] | None = None,
                 feed: Callable[[bytes], None] | None = None,
                 offset_base: int = 0, decls: Any = None):
        if isinstance(source, (bytes, bytearray, memoryview)):
            source = BytesSource(source)
        if isinstance(source, BytesSource):
            self._buf: memoryview | None = source.view
            self._pos = source.pos
            self._base = source.pos
            self._end: int | None = source.end
            self._src = None
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
        self.decls = decls               # engine.Registry to use (None: the shipped declarations)

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
        """Exactly n bytes (a memoryview slice in memory mode)."""
        p = self._pos
        e = p + n
        if n < 0 or (self._end is not None and e > self._end):
            raise self._short(n)
        buf = self._buf
        if buf is not None:
            self._pos = e
            return buf[p:e]
        data = self._src.read(n)
        if len(data) != n:
            raise self._short(n)
        self._log += data
        self._pos = e
        return data

    def skip(self, n: int) -> None:
        """Move forward n bytes (stream mode reads and logs them)."""
        if self._buf is not None:
            if n < 0 or self._pos + n > self._end:
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
            if p + 1 > self._end:
                raise self._short(1)
            self._pos = p + 1
            return buf[p]
        return self._take(1)[0]

    def u32(self) -> int:
        buf = self._buf
        if buf is not None:
            p = self._pos
            if p + 4 > self._end:
                raise self._short(4)
            self._pos = p + 4
            return _u32(buf, p)[0]
        return _u32(self._take(4))[0]

    def i32(self) -> int:
        buf = self._buf
        if buf is not None:
            p = self._pos
            if p + 4 > self._end:
                raise self._short(4)
            self._pos = p + 4
            return _i32(buf, p)[0]
        return _i32(self._take(4))[0]

    def f32(self) -> float:
        buf = self._buf
        if buf is not None:
            p = self._pos
            if p + 4 > self._end:
                raise self._short(4)
            self._pos = p + 4
            return _f32(buf, p)[0]
        return _f32(self._take(4))[0]

    def i8(self) -> int:
        return _i8(self._take(1))[0]

    def u16(self) -> int:
        return _u16(self._take(2))[0]

    def i16(self) -> int:
        return _i16(self._take(2))[0]

    def u64(self) -> int:
        return _u64(self._take(8))[0]

    def i64(self) -> int:
        return _i64(self._take(8))[0]

    def u128(self) -> int:
        return int.from_bytes(self._take(16), "little")

    def hex32(self) -> int:
        """A u32 that the text format writes in hex (class ids, chunk ids)."""
        return self.u32()

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
        n = self.u32()
        if n > MAX_STRING:
            raise self.error(f"string length {n} too large", self.tell() - 4)
        if self._end is not None and n > self._end - self._pos:
            raise Truncated(f"string of {n} bytes, {self._end - self._pos} left",
                            offset=self.offset_base + self.tell() - 4)
        return bytes(self._take(n)).decode("utf-8", "replace")

    def marker(self, expected: bytes) -> None:
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

    def _id_index(self) -> int:
        return self.u32()

    def id(self) -> str | int:
        """A lookback string. Returns the string; "" for the empty id (0xFFFFFFFF);
        an int when the id is a number (an index into the game's global table)."""
        st = self.ids
        if st.version is None or st.version == 2:
            at = self.tell()
            v = self.u32()
            if v not in (2, 3):
                raise self.error(f"unsupported lookback string version {v}", at)
            if st.version is None:
                st.version = v
        if st.version == 2:
            # Virtual Skipper 2: version, global index, and the string every time.
            self._id_index()
            return self.string()
        at = self.tell()
        index = self._id_index()
        if index == 0xFFFFFFFF:
            return ""
        if index & 0xC0000000 == 0:
            return index
        n = index & 0x3FFFFFFF
        if n == 0:
            s = self.string()
            st.strings.append(s)
            return s
        gap = st.gap
        if gap is not None and n > gap[0]:
            raise self.error(f"lookback string #{n} referenced, but skippable chunk {gap[1]:08X} at "
                             f"{gap[2]:#x} was kept raw after string #{gap[0]}: it may have defined "
                             f"strings, so #{n} is unknown", at)
        if n > len(st.strings):
            raise self.error(f"lookback string #{n} referenced, only {len(st.strings)} known", at)
        return st.strings[n - 1]

    def meta(self) -> tuple[Any, Any, Any]:
        return (self.id(), self.id(), self.id())

    def fileref(self) -> dict[str, Any]:
        version = self.u8()
        checksum = self.bytes(32) if version >= 3 else None
        path = self.string()
        # GBX.NET reads the locator for version >= 3 even with an empty path
        url = self.string() if (path and version >= 1) or version >= 3 else None
        out: dict[str, Any] = {"version": version, "file": path}
        if checksum is not None:
            out["checksum"] = checksum
        if url is not None:
            out["locator_url"] = url
        return out

    def sub_reader(self, data: bytes) -> "GbxReader":
        """A reader over other bytes (inflated data inside a chunk) that shares this
        reader's state: lookback strings, node list, hooks."""
        sub = type(self)(BytesSource(data), num_nodes=self.num_nodes, on_node=self.on_node, feed=self.feed,
                         decls=self.decls)
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

    def noderef(self) -> NodeRef | None:
        if self.encapsulated:
            return self.direct_node()
        at = self.tell()
        index = self.i32()
        if index == -1:
            return None
        if index < 0 or (self.num_nodes is not None and index >= self.num_nodes):
            raise self.error(f"node index {index} outside the node list (numNodes {self.num_nodes})", at)
        existing = self.nodes.get(index)
        if isinstance(existing, ExternalRef):
            return NodeRef("external", index, external=existing)
        if existing is not None:
            return NodeRef("back", index, node=existing)
        return NodeRef("new", index, node=self.read_node(self.hex32(), index))

    def direct_node(self) -> NodeRef | None:
        """A node stored as class id + chunks, without a slot (0xFFFFFFFF/-1 = null)."""
        class_id = self.hex32()
        if class_id == NULL_CLASS:
            return None
        return NodeRef("direct", None, node=self.read_node(class_id, None))

    def read_node(self, raw_class_id: int, index: int | None, hook: bool = True) -> Node:
        """ReadNode: create the node (slot `index`), call on_node, walk its chunks.
        hook=False: a node whose class the layout implies (no class id stored, no
        ReadNode in the game): no on_node call."""
        from .nodes import walk_node  # the walker reads chunks; it calls back into us

        if self.depth >= MAX_DEPTH:
            raise self.error(f"nodes nested deeper than {MAX_DEPTH}")
        class_id = classdb.remap(raw_class_id)
        node = Node(index, class_id, raw_class_id=raw_class_id if raw_class_id != class_id else None)
        if hook and self.on_node is not None:
            self.on_node(class_id)
        if index is not None:
            self.nodes[index] = node
        self.all_nodes.append(node)
        self.depth += 1
        try:
            walk_node(self, node)
        finally:
            self.depth -= 1
        return node

    # -- chunk stream -------------------------------------------------------------------
    def chunk_id(self) -> int:
        return self.hex32()

    def skip_marker(self) -> bool:
        """Consume "PIKS" if it is next; False (nothing consumed) otherwise."""
        if self._buf is not None:
            p = self._pos
            if p + 4 <= self._end and _u32(self._buf, p)[0] == SKIP_MARKER:
                self._pos = p + 4
                return True
            return False
        return self._peek_stream_marker()

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
        self._unread(data)
        return _u32(data)[0]

    def _peek_stream_marker(self) -> bool:
        # Stream sources cannot un-read: keep a pushback of the 4 bytes.
        data = self._take(4)
        if _u32(data)[0] == SKIP_MARKER:
            return True
        self._unread(data)
        return False

    def _unread(self, data: bytes) -> None:
        # Only used right after _take in stream mode: wrap the source.
        self._pos -= len(data)
        del self._log[len(self._log) - len(data):]
        self._src = _Pushback(self._src, data)


class _Pushback:
    """A pull source with some bytes put back in front."""

    def __init__(self, src: Any, data: bytes):
        self.src = src
        self.head = bytes(data)

    def read(self, n: int) -> bytes:
        if not self.head:
            return self.src.read(n)
        h = self.head
        if n <= len(h):
            self.head = h[n:]
            return h[:n]
        self.head = b""
        return h + self.src.read(n - len(h))


class TextGbxReader(GbxReader):
    """Text-format GBX: one CRLF-terminated ASCII line per number or string."""

    text = True

    def line(self) -> str:
        buf = self._buf
        if buf is not None:
            # look for CRLF window by window: a line is usually short
            start = self._pos
            limit = min(self._end, start + MAX_LINE)
            p = start
            while True:
                q = min(limit, p + 4096)
                idx = bytes(buf[p:q + 1]).find(b"\r\n")
                if idx >= 0:
                    data = bytes(self._take(p + idx - start))
                    self._take(2)
                    return data.decode("utf-8", "replace")
                if q >= limit:
                    raise Truncated("text line without CRLF", offset=self.offset_base + self.tell())
                p = q
        out = bytearray()
        while True:
            b = self._take(1)
            if b == b"\r":
                nxt = self._take(1)
                if nxt == b"\n":
                    return out.decode("utf-8", "replace")
                out += b
                b = nxt
            out += b
            if len(out) > MAX_LINE:
                raise self.error("text line too long")

    def _int(self, lo: int, hi: int, base: int = 10) -> int:
        at = self.tell()
        s = self.line().strip()
        try:
            v = int(s, base)
        except ValueError:
            raise self.error(f"expected a number, found {s[:40]!r}", at) from None
        if v < 0 and lo >= 0 and v >= -(hi + 1) // 2:
            v += hi + 1          # unsigned written as signed
        elif v > hi // 2 and lo < 0 and v <= hi:
            v -= hi + 1          # signed written as unsigned (GBX.NET writes -1 as 4294967295)
        if not lo <= v <= (hi if lo >= 0 else hi // 2):
            raise self.error(f"number {v} out of range", at)
        return v

    def u8(self) -> int:
        return self._int(0, 0xFF)

    def i8(self) -> int:
        return self._int(-0x80, 0xFF)

    def u16(self) -> int:
        return self._int(0, 0xFFFF)

    def i16(self) -> int:
        return self._int(-0x8000, 0xFFFF)

    def u32(self) -> int:
        return self._int(0, 0xFFFFFFFF)

    def i32(self) -> int:
        return self._int(-0x80000000, 0xFFFFFFFF)

    def u64(self) -> int:
        return self._int(0, (1 << 64) - 1)

    def i64(self) -> int:
        return self._int(-(1 << 63), (1 << 64) - 1)

    def u128(self) -> int:
        lo = self.u64()
        return lo | (self.u64() << 64)

    def hex32(self) -> int:
        at = self.tell()
        s = self.line().strip()
        try:
            v = int(s, 16)
        except ValueError:
            raise self.error(f"expected a hex id, found {s[:40]!r}", at) from None
        if not 0 <= v <= 0xFFFFFFFF:
            raise self.error(f"hex id {s} out of range", at)
        return v

    def f32(self) -> float:
        at = self.tell()
        s = self.line().strip()
        try:
            return _f32(struct.pack("<f", float(s)))[0]
        except (ValueError, OverflowError):
            raise self.error(f"expected a float, found {s[:40]!r}", at) from None

    def bool(self) -> bool:
        at = self.tell()
        s = self.line().strip().lower()
        if s in ("1", "true"):
            return True
        if s in ("0", "false"):
            return False
        raise self.error(f"expected a bool, found {s[:40]!r}", at)

    def vec2(self):
        return (self.f32(), self.f32())

    def vec3(self):
        return (self.f32(), self.f32(), self.f32())

    def vec4(self):
        return (self.f32(), self.f32(), self.f32(), self.f32())

    def floats(self, n):
        return tuple(self.f32() for _ in range(n))

    def ints(self, n):
        return tuple(self.i32() for _ in range(n))

    def array(self, fmt: str, n: int) -> list:
        self.check_count(n, 3)   # at least one digit + CRLF per number
        read = {"B": self.u8, "b": self.i8, "H": self.u16, "h": self.i16, "I": self.u32,
                "i": self.i32, "Q": self.u64, "q": self.i64, "f": self.f32}[fmt]
        return [read() for _ in range(n)]

    def string(self) -> str:
        return self.line()

    def _id_index(self) -> int:
        at = self.tell()
        s = self.line().strip()
        if s == "4294967295" or s == "-1":
            return 0xFFFFFFFF
        try:
            return int(s, 16) & 0xFFFFFFFF
        except ValueError:
            raise self.error(f"expected a lookback index, found {s[:40]!r}", at) from None

    def skip_marker(self) -> bool:
        # The marker is a hex line "534B4950" in text files.
        if self._buf is None:
            raise self.error("text-format GBX needs an in-memory source")
        save = self._pos
        try:
            if self.hex32() == SKIP_MARKER:
                return True
        except GbxError:
            pass
        self._pos = save
        return False


def make_reader(source: Any, *, text: bool = False, **kw: Any) -> GbxReader:
    """A binary or text reader over `source` (bytes, BytesSource or pull source)."""
    return (TextGbxReader if text else GbxReader)(source, **kw)
