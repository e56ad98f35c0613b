"""Which paths are mount points, from /proc/self/mountinfo (no stat: a dead
FUSE mount answers every stat with ENOTCONN), and which of them are gbxfs's.

Any FUSE server may call itself fuse.gbxfs (subtype=gbxfs). A gbxfs mount's
name starts with "gbxfs[PID]", PID its serving process (fuse/options.py); it is
ours when that process runs gbxfs and holds open the FUSE device of this very
mount (its /proc/PID/fdinfo names the connection, the minor number of the
mount's device; kernels that do not say it: a FUSE device at all), or when the
mount is dead (its server gone: every request answers ENOTCONN), never on the
type name alone."""
from __future__ import annotations

import errno
import os
import re
import threading
from dataclasses import dataclass

from gbxfs.fuse.options import server_pid

GBXFS_FSTYPE = "fuse.gbxfs"


@dataclass
class MountRecord:
    mountpoint: str
    fstype: str
    source: str
    options: str
    mount_id: int = -1     # unique per mount while it exists (tells stacked layers apart)
    parent_id: int = -1    # the mount this one is attached to (the covered one when stacked)
    device: str = ""       # "major:minor"; a FUSE mount's minor is its connection number

    @property
    def is_gbxfs(self) -> bool:
        """Calls itself a gbxfs FUSE mount: type fuse.gbxfs and a name "gbxfs[PID]..."
        (a claim: `is_ours` checks it)."""
        return self.fstype == GBXFS_FSTYPE and server_pid(self.source) is not None


def is_ours(rec: MountRecord) -> bool:
    """A gbxfs mount: it calls itself one, and its named server is a live gbxfs
    process holding /dev/fuse open, or the mount is dead."""
    if not rec.is_gbxfs:
        return False
    pid = server_pid(rec.source)
    return (pid is not None and _serves(pid, rec.device)) or is_dead(rec.mountpoint)


def _serves(pid: int, device: str) -> bool:
    """Process `pid` runs gbxfs and holds the FUSE connection of the mount on `device`."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    if not any(os.path.basename(a) == b"gbxfs" for a in args[:3]):   # the script, or python -m gbxfs
        return False
    connection = device.partition(":")[2]
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "/dev/fuse":
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = dict(line.partition(":")[::2] for line in f)
        except OSError:
            continue
        told = info.get("fuse_connection")
        if told is None or told.strip() == connection:
            return True
    return False


DEAD_WAIT = 5.0   # seconds a stat of a mount may take before it counts as alive (a hung server)


def is_dead(mountpoint: str) -> bool:
    """True when opening the mount's root folder answers ENOTCONN: its FUSE server
    is gone (a stat could be answered from the kernel's attribute cache). It runs
    in a thread: a live but hung server must not hang the caller."""
    answer: list[int] = []

    def probe() -> None:
        try:
            os.close(os.open(mountpoint, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            answer.append(0)
        except OSError as e:
            answer.append(e.errno or -1)

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(DEAD_WAIT)
    return answer == [errno.ENOTCONN]


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
                                   fields[5] + "," + rfields[2], _int(fields[0]), _int(fields[1]), fields[2]))
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
