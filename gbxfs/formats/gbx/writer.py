"""Writing GBX files: the one GBX writer, for tests, benchmarks and `gbxfs demo`
gbxfs/formats/pak/writer.py).

It builds what no public file offers (header versions 3-5, the text format,
hand-made bodies and hostile variants) from the layout in
docs/formats/gbx.md, and imports nothing from the reading side (only the
generated class data), so that a mistake in the parser cannot hide in a file
written by the same code.

    W                   primitives, binary or text (u32, string, lookback id, ...)
    chunk / node_body   body chunks (skippable or not) and a node's end marker
    build_gbx(...)      a complete file: header, user data, reference table, body
"""
from __future__ import annotations

import struct

import lzo

from . import classdb

SKIP = 0x534B4950          # "PIKS": a skippable chunk's marker, then its size
END = 0xFACADE01           # a node's end marker
MAP = classdb.class_id("CGameCtnChallenge")   # the default main class


class W:
    """Binary or text writer of GBX primitives (chainable)."""

    def __init__(self, text: bool = False):
        self.text = text
        self.buf = bytearray()
        self.ids: list[str] | None = None   # lookback list (None: version not written yet)

    def raw(self, b: bytes) -> W:
        self.buf += b
        return self

    def _line(self, s: str) -> W:
        self.buf += s.encode() + b"\r\n"
        return self

    def u8(self, v: int) -> W:
        return self._line(str(v)) if self.text else self.raw(bytes([v]))

    def u16(self, v: int) -> W:
        return self._line(str(v)) if self.text else self.raw(struct.pack("<H", v))

    def u32(self, v: int) -> W:
        return self._line(str(v)) if self.text else self.raw(struct.pack("<I", v))

    def i32(self, v: int) -> W:
        return self._line(str(v)) if self.text else self.raw(struct.pack("<i", v))

    def hex32(self, v: int) -> W:
        return self._line(f"{v:08X}") if self.text else self.raw(struct.pack("<I", v))

    def f32(self, *vs: float) -> W:
        for v in vs:
            self._line(repr(v)) if self.text else self.raw(struct.pack("<f", v))
        return self

    def bool(self, v: bool) -> W:
        return self.u32(1 if v else 0)

    def string(self, s: str) -> W:
        b = s.encode()
        if self.text:
            return self.raw(b + b"\r\n")
        return self.raw(struct.pack("<I", len(b)) + b)

    def id(self, s: str | int, version: int = 3) -> W:
        """Lookback string (v3): new strings get 0x40000000, known ones their index."""
        if self.ids is None:
            self.u32(version)
            self.ids = []
        if isinstance(s, int):
            return self.hex32(s) if self.text else self.u32(s)
        if s == "":
            return self._line("4294967295") if self.text else self.u32(0xFFFFFFFF)
        if s in self.ids:
            idx = 0x40000000 | (self.ids.index(s) + 1)
            return self.hex32(idx)
        self.ids.append(s)
        self.hex32(0x40000000)
        return self.string(s)

    def bytes(self) -> bytes:
        return bytes(self.buf)


def chunk(w: W, chunk_id: int, data: bytes, skippable: bool = False) -> W:
    """A body chunk: id, optional PIKS+size, data (binary only)."""
    w.u32(chunk_id)
    if skippable:
        w.u32(SKIP).u32(len(data))
    return w.raw(data)


def node_body(chunks: list[tuple[int, bytes, bool]]) -> bytes:
    """A node: (chunk id, data, skippable) ..., then the end marker."""
    w = W()
    for cid, data, skippable in chunks:
        chunk(w, cid, data, skippable)
    w.u32(END)
    return w.bytes()


def build_gbx(*, version: int = 6, fmt: str = "B", ref_comp: str = "U", body_comp: str = "U",
              unknown: str = "R", class_id: int = MAP,
              header_chunks: list[tuple[int, bytes, bool]] | None = None,
              num_nodes: int = 1, externals: list[dict] | None = None,
              folders: list | None = None, ancestor: int = 0, body: bytes = b"",
              empty_user_data: bool = False) -> bytes:
    """A complete GBX file.

    header_chunks: (chunk id, data, heavy) ...; without any, the user data is a
    chunk table that lists nothing, or with empty_user_data no bytes at all
    (size 0, no chunk count: what files without header chunks store).
    folders: a nested list [(name, [subfolders...]), ...]; externals: dicts with
    flags, file|resource, node, use_file, folder. body_comp "C" compresses
    `body` with LZO."""
    text = fmt == "T"
    w = W()
    w.raw(b"GBX").raw(struct.pack("<H", version))
    w.raw(fmt.encode() + ref_comp.encode() + body_comp.encode())
    if version >= 4:
        w.raw(unknown.encode())
    w.text = text
    w.hex32(class_id)
    if version >= 6:
        hc = header_chunks or []
        if empty_user_data and not hc:
            w.u32(0)
        else:
            table = W(text)
            table.u32(len(hc))
            for cid, data, heavy in hc:
                table.hex32(cid).u32(len(data) | (0x80000000 if heavy else 0))
            payload = table.bytes() + b"".join(d for _, d, _ in hc)
            w.u32(len(payload)).raw(payload)
    w.u32(num_nodes)
    ext = externals or []
    w.u32(len(ext))
    if ext:
        w.u32(ancestor)

        def write_folders(fs):
            w.u32(len(fs))
            for name, sub in fs:
                w.string(name)
                write_folders(sub)
        write_folders(folders or [])
        for e in ext:
            w.u32(e["flags"])
            if e["flags"] & 4 == 0:
                w.string(e["file"])
            else:
                w.u32(e["resource"])
            w.u32(e["node"])
            if version >= 5:
                w.bool(e.get("use_file", False))
            if e["flags"] & 4 == 0:
                w.u32(e["folder"])
    if body_comp == "C":
        comp = lzo.compress(body, 1, False)
        w.text = False
        w.u32(len(body)).u32(len(comp)).raw(comp)
    else:
        w.raw(body)
    return w.bytes()
