"""A pull source over bytes, as the pak layer hands one to the GBX parser (the
contract of gbxfs/formats/gbx/reader.py and gbxfs/formats/pak/pull.py): `read(n)`
gives exactly n bytes or raises Truncated, `remaining` says how many are left, and
`consumed` how many were read. GbxReader sees no buffer behind it, so the reference
closures (decl/compile.py) decode, not the generated functions (decl/codegen.py)."""
from __future__ import annotations

from gbxfs.formats.gbx.errors import Truncated


class Pull:
    def __init__(self, data: bytes):
        self.data, self.consumed = data, 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.consumed

    def read(self, n: int) -> bytes:
        if n < 0 or n > self.remaining:
            raise Truncated(f"need {n} bytes, {self.remaining} left", offset=self.consumed)
        self.consumed += n
        return self.data[self.consumed - n:self.consumed]
