"""How much the mount lets itself hold, steered by the process's resident memory.

The cache counts what it keeps (tree/cache.py), but the process holds more:
the interpreter and the compiled declarations, the kernel's inodes
(fuse/inodes.py), what worker threads hold while they render and read, and
what the allocators keep after large values are freed (pymalloc's arenas go
back only when wholly empty). With cache_mb=48 and 16 concurrent readers that
put the daemon 40-80 MB over cache_mb + 100 MB, the cache itself full but
within its count (docs/benchmarks-history.md, "Where a mount's memory goes").

So the mount samples its own RSS a few times a second and a Governor turns
the samples into two limits (the sampling loop is fuse/runner.py's; this is
sans-I/O: samples in, limits out):

- `workers`, the worker threads that may run requests at once. Above the
  high-water mark (the RSS limit less a margin) it halves per sample down to
  one: concurrent requests each hold their own transient memory (a rendered
  chunk text, decompressed blocks, a parse in use), and one worker holds the
  least (16 readers at cache_mb=48: 143 MB with one worker at 4,581 files/min,
  165 MB with two at 5,526, 185-224 MB with eight: the work is Python under
  one interpreter lock, so the parallel share is small).
- `bound`, what the cache evicts down to (ByteLRU.set_bound). Its ceiling is
  the nominal bound less `other`, the bytes the mount can count that it keeps
  outside the cache (the kernel's inodes), beyond an allowance the headroom
  covers: a million inodes are charged to the cache, a folder's worth not. Only
  when RSS passes a second mark, nearer the limit, with one worker left, does it
  drop: to what the cache holds less the excess, then by a step per sample
  (memory freed by eviction does not always leave the process), never below
  the floor. A cache cut below what the readers' files need makes every read
  walk a body again, so this is the last resort. The nominal cache_mb still
  decides what is too large to show, so the tree's content never depends on
  the governor.

Below the low-water mark the bound grows back first (`regrow` bytes a second),
then one worker per `worker_every` seconds; between the marks both hold.
"""
from __future__ import annotations

MIB = 1 << 20
# The lowest bound, as a share of the nominal one: the cache must keep the
# digests of the files being read (tree/gbx/digest.py) beside the parse in use,
# and a walk's room counts against the bound too; with less, every chunk read
# walked its body again (16 readers at cache_mb=48: 139 files/min with the bound
# at 12 MiB, 612 at 29-35 MiB, against 3,000-4,600 at 41-48).
FLOOR_SHARE = 0.8
# Bytes kept outside the cache (the kernel's inodes) that the RSS limit's
# headroom over cache_mb covers: only what passes it is charged to the cache.
# Charging all of it (about 14 MiB: 24-33k inodes) left 34 MiB of a 48 MiB cache
# to 16 readers, whose walks' room then evicted the digests being read:
# 612 files/min against 4,600 (docs/benchmarks-history.md).
ALLOWANCE = 16 * MIB


class Governor:
    def __init__(self, max_bytes: int, limit: int, workers: int = 8, *, margin: int = 36 * MIB,
                 cut_margin: int = 22 * MIB, band: int = 12 * MIB, allowance: int = ALLOWANCE,
                 floor: int | None = None, step: int | None = None, regrow: int | None = None,
                 worker_every: float = 2.0):
        """`max_bytes`: the nominal bound (cache_mb); `limit`: the RSS the process
        must keep under (cache_mb + 100 MB); `workers`: the worker threads (-o
        threads). High water (workers) is `limit - margin`, the cache's cut
        `limit - cut_margin`, low water `band` below high water. `allowance`:
        the outside bytes that the limit's headroom covers, not charged."""
        self.max_bytes = max_bytes
        self.max_workers = max(1, workers)
        self.high = limit - margin
        self.cut = max(self.high, limit - cut_margin)
        self.low = self.high - band
        self.allowance = allowance
        self.floor = int(max_bytes * FLOOR_SHARE) if floor is None else min(floor, max_bytes)
        self.step = max(MIB, max_bytes // 32) if step is None else step
        self.regrow = max(MIB, max_bytes // 16) if regrow is None else regrow
        self.worker_every = worker_every
        self.bound = max_bytes
        self.workers = self.max_workers
        self._last: float | None = None
        self._calm = 0.0          # seconds below low water with the bound at its ceiling

    def ceiling(self, other: int = 0) -> int:
        return max(self.floor, self.max_bytes - max(0, other - self.allowance))

    def sample(self, rss: int, now: float, cached: int, other: int = 0) -> int:
        """The bound to evict to, given the process's RSS at time `now` (seconds,
        monotonic), the bytes the cache holds now and `other` bytes counted
        outside it; sets `workers`. Call it regularly: growth back is per second."""
        elapsed = 0.0 if self._last is None else max(0.0, now - self._last)
        self._last = now
        ceiling = self.ceiling(other)
        bound = min(self.bound, ceiling)
        if rss > self.high:
            self._calm = 0.0
            if self.workers > 1:
                self.workers = max(1, self.workers // 2)
            elif rss > self.cut:
                bound = min(bound - self.step, cached - (rss - self.cut))
        elif rss < self.low:
            if bound < ceiling:
                bound += int(self.regrow * elapsed)
            elif self.workers < self.max_workers:
                self._calm += elapsed
                if self._calm >= self.worker_every:
                    self._calm = 0.0
                    self.workers += 1
        self.bound = max(self.floor, min(bound, ceiling))
        return self.bound

    @property
    def pressed(self) -> bool:
        """True while either limit is below its nominal value."""
        return self.bound < self.max_bytes or self.workers < self.max_workers
