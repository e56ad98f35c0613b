"""Which paths are mount points, from /proc/self/mountinfo (no stat: a dead
FUSE mount answers every stat with ENOTCONN)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass
class MountRecord:
    mountpoint: str
    fstype: str
    source: str
    options: str


def _unescape(field: str) -> str:
    # the kernel writes space, tab, newline and backslash as octal escapes
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def canonical(mountpoint: str) -> str:
    """Absolute path with the parent's symlinks resolved, but the last part left
    alone: resolving a dead FUSE mount itself would fail."""
    absolute = os.path.abspath(mountpoint)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def mounts(path: str = "/proc/self/mountinfo") -> list[MountRecord]:
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(fields) < 6 or len(rfields) < 3:
                continue
            out.append(MountRecord(_unescape(fields[4]), rfields[0], _unescape(rfields[1]), fields[5] + "," + rfields[2]))
    return out


def find_mount(mountpoint: str) -> MountRecord | None:
    """The topmost mount at `mountpoint`, if any."""
    target = canonical(mountpoint)
    found = None
    for rec in mounts():
        if rec.mountpoint == target:
            found = rec
    return found
