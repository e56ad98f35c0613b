"""Which paths are mount points, from /proc/self/mountinfo (no stat: a dead
FUSE mount answers every stat with ENOTCONN)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass


GBXFS_FSTYPE = "fuse.gbxfs"


@dataclass
class MountRecord:
    mountpoint: str
    fstype: str
    source: str
    options: str
    mount_id: int = -1     # unique per mount while it exists (tells stacked layers apart)
    parent_id: int = -1    # the mount this one is attached to (the covered one when stacked)

    @property
    def is_gbxfs(self) -> bool:
        """A gbxfs FUSE mount (mount -t fuse "gbxfs#SRC" also shows as fuse.gbxfs via subtype)."""
        return self.fstype == GBXFS_FSTYPE


def _unescape(field: str) -> str:
    # the kernel writes space, tab, newline and backslash as octal escapes
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def canonical(mountpoint: str) -> str:
    """Absolute path with the parent's symlinks resolved, but the last part left
    alone: resolving a dead FUSE mount itself would fail."""
    absolute = os.path.abspath(mountpoint)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def _int(field: str) -> int:
    return int(field) if field.isdigit() else -1


def mounts(path: str = "/proc/self/mountinfo") -> list[MountRecord]:
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(fields) < 6 or len(rfields) < 3:
                continue
            out.append(MountRecord(_unescape(fields[4]), rfields[0], _unescape(rfields[1]),
                                   fields[5] + "," + rfields[2], _int(fields[0]), _int(fields[1])))
    return out


def mounts_at(mountpoint: str, records: list[MountRecord] | None = None) -> list[MountRecord]:
    """Every mount at `mountpoint`, bottom first: the last one is what a path
    lookup reaches. A stacked mount's parent is the mount it covers."""
    target = canonical(mountpoint)
    here = [rec for rec in (mounts() if records is None else records) if rec.mountpoint == target]
    by_parent = {rec.parent_id: rec for rec in here}
    ids = {rec.mount_id for rec in here}
    bottom = [rec for rec in here if rec.parent_id not in ids]
    if len(bottom) != 1 or len(by_parent) != len(here):
        return here     # not a plain stack (odd namespace): mountinfo order, which lists covers later
    ordered = bottom
    while ordered[-1].mount_id in by_parent and len(ordered) < len(here):
        ordered.append(by_parent[ordered[-1].mount_id])
    return ordered


def find_mount(mountpoint: str) -> MountRecord | None:
    """The topmost mount at `mountpoint`, if any."""
    found = mounts_at(mountpoint)
    return found[-1] if found else None
