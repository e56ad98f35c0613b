"""Recovering the ivXor feeds of a compressed GBX entry whose parse stopped early.

The game's zlib buffering (gameinflate.py) refills its 0x400-byte output buffer
only when the parser has used all of it, and every refill but the last yields
exactly 0x400 bytes. So a feed made after the parser consumed `at` bytes folds
into the first page fetched by the refill that starts at the first multiple of
0x400 >= `at` (or a later one when that refill fetches no page). Feeds are thus
fixed by their offsets in the plain entry alone: `replay` decrypts an entry from
a list of (offset, bytes) feeds, with no parser.

When the parse stops at offset `trusted`, its feeds up to there are exact; the
later ones are found by feedscan in the bytes inflated so far (a feed folds only
into pages fetched after the bytes that reveal it). A wrong guess changes only
the first 8 bytes of one page of deflate data; zlib often notices only pages
later, or at its Adler-32 check at the end. So `recover` runs the likely path
first (sequential hits fed, other hits not), then retries with single and double
flips of its guesses, nearest the failure first, within a budget of inflated
bytes and attempts. Only a path that ends the zlib stream with a matching
Adler-32 at exactly the declared size is accepted.
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gbxfs.formats.pak.cipher import BLOCK, PAGE, calc_ivxor
from gbxfs.formats.pak.feedscan import Hit, NodeSlots, scan
from gbxfs.formats.pak.gameinflate import OUT_BUFFER

MAX_ATTEMPTS = 48          # paths tried (the likely one, then flips)
BUDGET_FACTOR = 24         # bytes inflated in all, as a multiple of the entry size (+ BUDGET_BASE)
BUDGET_BASE = 4 << 20
MAX_FLIPS = 2               # guesses reversed on one path
RETRIES_PER_FAILURE = 12   # the guesses nearest a failure that are retried flipped
MAX_DECISIONS = 4096       # guesses remembered on one path (checkpoints are kept only for these)
MAX_CHECKPOINT_BYTES = 64 << 20


@dataclass
class Recovery:
    data: bytes | None                     # the entry, when recovered
    folds: list[tuple[int, int]] = field(default_factory=list)
    reason: str | None = None              # why not
    attempts: int = 0
    inflated: int = 0                      # bytes inflated by every attempt together
    guessed_feeds: int = 0                 # feeds the accepted path took from the scan


class _Fail(Exception):
    def __init__(self, at: int, reason: str):
        super().__init__(reason)
        self.at = at          # output offset when it was noticed
        self.reason = reason


def _fold_page(raw: bytes, page: int, ivxor: int) -> bytes:
    start = page * PAGE
    data = raw[start:start + PAGE]
    if ivxor and data:
        head = (int.from_bytes(data[:BLOCK].ljust(BLOCK, b"\0"), "little") ^ ivxor).to_bytes(BLOCK, "little")
        data = head[:len(data[:BLOCK])] + data[BLOCK:]
    return data


@dataclass
class _State:
    """Everything a path needs to continue from a refill boundary."""
    z: Any                    # zlib decompressobj
    page: int                 # next page to fetch
    tail: bytes               # zlib's unconsumed input
    pending: int              # ivXor not folded yet
    out_len: int              # bytes inflated so far (a multiple of OUT_BUFFER)
    slots: NodeSlots
    folds: dict[int, int]

    def copy(self) -> _State:
        return _State(self.z.copy(), self.page, self.tail, self.pending, self.out_len, self.slots.copy(),
                      dict(self.folds))


class _Run:
    """One path: inflate refill by refill, feeding known feeds and scan hits."""

    def __init__(self, raw: bytes, size: int, known: list[tuple[int, bytes]], trusted: int, flips: frozenset,
                 inherited: Sequence[tuple[int, Hit, _State]] = ()):
        self.raw = raw
        self.pages = (len(raw) + PAGE - 1) // PAGE
        self.size = size
        self.known = known
        self.trusted = trusted
        self.flips = flips            # hit offsets whose likely choice is reversed
        # (refill start, hit, state before that refill); a retry keeps its parent's guesses before its start
        self.decisions: list[tuple[int, Hit, _State]] = list(inherited)
        self.checkpoint_bytes = 0
        self.guessed = 0

    def run(self, state: _State, out: bytearray, budget: list[int]) -> _State:
        ki = 0   # known feeds up to the previous refill are in `state` already
        while ki < len(self.known) and self.known[ki][0] <= state.out_len - OUT_BUFFER:
            ki += 1
        while True:
            at = state.out_len
            # feeds made before the parser asks for byte `at` (the refill starting there)
            before = state.copy() if self._needs_checkpoint(at) else None
            while ki < len(self.known) and self.known[ki][0] <= at:
                state.pending = calc_ivxor(state.pending, self.known[ki][1])
                ki += 1
            if at > self.trusted:
                lo = max(self.trusted, at - OUT_BUFFER)
                for hit in scan(out, lo, at, state.slots):
                    take = hit.sequential != (hit.at in self.flips)
                    if before is not None and len(self.decisions) < MAX_DECISIONS:
                        self.decisions.append((at, hit, before))
                    if take:
                        state.pending = calc_ivxor(state.pending, hit.feed)
                        self.guessed += 1
            piece = self._refill(state, budget)
            out += piece
            if state.z.eof or not piece:
                return state

    def _needs_checkpoint(self, at: int) -> bool:
        """Keep a copy of the state only where a guess can be made (bounded memory)."""
        if at <= self.trusted or self.checkpoint_bytes > MAX_CHECKPOINT_BYTES:
            return False
        self.checkpoint_bytes += 48 << 10      # a zlib state with its window, roughly
        return True

    def _refill(self, st: _State, budget: list[int]) -> bytes:
        parts, space = [], OUT_BUFFER
        while space and not st.z.eof:
            if not st.tail:
                if st.page >= self.pages:
                    break
                if st.pending:
                    st.folds[st.page * PAGE] = st.pending
                st.tail = _fold_page(self.raw, st.page, st.pending)
                st.pending = 0
                st.page += 1
            try:
                got = st.z.decompress(st.tail, space)
            except zlib.error as e:
                raise _Fail(st.out_len, f"zlib: {e}") from None
            st.tail = st.z.unconsumed_tail
            if got:
                parts.append(got)
                space -= len(got)
                st.out_len += len(got)
                budget[0] -= len(got)
                if st.out_len > self.size:
                    raise _Fail(st.out_len, "inflates beyond the declared size")
        if budget[0] < 0:
            raise _Fail(st.out_len, "budget")
        return b"".join(parts)


def recover(raw: bytes, size: int, known: list[tuple[int, bytes]], trusted: int, slots: NodeSlots,
            *, max_attempts: int = MAX_ATTEMPTS) -> Recovery:
    """Decrypt a compressed entry whose feeds are known up to plain offset `trusted`.
    `raw`: the entry's stored bytes decrypted without any fold; `known`: the
    (offset, bytes) feeds of the parse, in order; `slots`: node slots the parse used."""
    budget = [BUDGET_FACTOR * size + BUDGET_BASE]
    first = _State(zlib.decompressobj(), 0, b"", 0, 0, slots.copy(), {})
    queue: list[tuple[frozenset, int, _State, bytearray, list]] = [(frozenset(), 0, first, bytearray(), [])]
    res = Recovery(None)
    seen: set[frozenset] = {frozenset()}
    while queue and res.attempts < max_attempts:
        flips, _, start, prefix, inherited = queue.pop(0)
        res.attempts += 1
        run = _Run(raw, size, known, trusted, flips, inherited)
        out = bytearray(prefix[:start.out_len])
        try:
            st = run.run(start.copy(), out, budget)
            if not st.z.eof:
                raise _Fail(st.out_len, "zlib stream ends early")
            if st.out_len != size:
                raise _Fail(st.out_len, f"inflates to {st.out_len} bytes, the file table says {size}")
            res.data = bytes(out)
            res.folds = sorted(st.folds.items())
            res.guessed_feeds = run.guessed
            break
        except _Fail as f:
            res.reason = f.reason
            if f.reason == "budget":
                break
            # retry with one more flip, the guesses nearest the failure first
            if len(flips) < MAX_FLIPS:
                near = sorted(run.decisions, key=lambda d: (-d[0], d[1].at))[:RETRIES_PER_FAILURE]
                for at, hit, before in near:
                    nf = flips | {hit.at}
                    if nf not in seen:
                        seen.add(nf)
                        queue.append((nf, len(nf), before, out, [d for d in run.decisions if d[0] < at]))
            queue.sort(key=lambda q: q[1])
    res.inflated = BUDGET_FACTOR * size + BUDGET_BASE - budget[0]
    if res.data is None and res.reason is None:
        res.reason = "no path"
    if res.data is None and res.attempts >= max_attempts:
        res.reason = f"no path within {max_attempts} attempts (last: {res.reason})"
    return res


__all__ = ["Recovery", "recover", "NodeSlots"]
