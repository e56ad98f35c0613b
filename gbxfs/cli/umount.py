"""gbxfs umount: remove the topmost gbxfs mount at a path, and nothing else.

It reads /proc/self/mountinfo (a stat only tells a dead mount, whose every
request answers ENOTCONN) and touches a mount only when it is gbxfs's: type fuse.gbxfs,
a name "gbxfs[PID]..." whose PID is a live gbxfs server, or a dead mount of
that name (gbxfs.fuse.mountinfo.is_ours); the type name alone is a claim any
FUSE server can make. A busy mount is refused unless -z/--lazy asks to
detach it anyway; stacked mounts come off one layer per call.

Exit codes: 0 unmounted; 3 nothing mounted there, or not a gbxfs mount;
5 busy (without -z) or the unmount failed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable

from gbxfs.cli.exits import EXIT_MOUNT_FAILED, EXIT_NOT_FOUND, EXIT_OK
from gbxfs.fuse.mountinfo import GBXFS_FSTYPE, MountRecord, canonical, is_ours, mounts_at

TIMEOUT = 30


def refusal(shown: str, layers: list[MountRecord],
            ours: Callable[[MountRecord], bool] = is_ours) -> str | None:
    """Why `gbxfs umount` must not touch what is mounted at a path (None: go ahead).
    `layers` are the mounts there, bottom first; `ours` tells a gbxfs mount."""
    if not layers:
        return f"{shown} is not mounted"
    top = layers[-1]
    if not ours(top):
        why = (" (it calls itself gbxfs, but no gbxfs server of this mount is running and it is not dead)"
               if top.fstype == GBXFS_FSTYPE else "")
        return (f"{shown} is not a gbxfs mount (it is {top.fstype} from {top.source}){why}; "
                f"not unmounting it")
    return None


def _busy(message: str) -> bool:
    return "busy" in message.lower()


def _run(cmd: list[str]) -> tuple[int, str]:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)
    return res.returncode, (res.stderr or res.stdout).strip()


def _gone(target: str, mount_id: int) -> bool:
    return all(rec.mount_id != mount_id for rec in mounts_at(target))


def umount_main(argv: list[str]) -> int:
    """Unmount a gbxfs mount (also a dead one; a busy one only with -z)."""
    p = argparse.ArgumentParser(prog="gbxfs umount", description=umount_main.__doc__)
    p.add_argument("mountpoint")
    p.add_argument("-z", "--lazy", action="store_true",
                   help="detach a busy mount now; it goes away once no process uses it")
    args = p.parse_args(argv)
    target = canonical(args.mountpoint)
    layers = mounts_at(target)
    why = refusal(args.mountpoint, layers)
    if why is not None:
        print(f"gbxfs: {why}", file=sys.stderr)
        return EXIT_NOT_FOUND
    top = layers[-1]
    # fusermount3 unmounts only FUSE mounts, and only the topmost one at the path
    cmd = ["fusermount3", "-u"] + (["-z"] if args.lazy else []) + [target]
    rc, message = _run(cmd)
    if rc != 0 and os.geteuid() == 0 and not _busy(message) and mounts_at(target)[-1:] == [top]:
        # root without a working fusermount3 (e.g. a mount made by mount(8)); still the same top layer
        rc, message = _run(["umount"] + (["-l"] if args.lazy else []) + [target])
    if _gone(target, top.mount_id):
        return EXIT_OK
    if _busy(message):
        print(f"gbxfs: {args.mountpoint} is busy (a process has a file open or its working folder "
              f"there); close it, or use gbxfs umount -z to detach it now", file=sys.stderr)
    else:
        print(f"gbxfs: cannot unmount {args.mountpoint}: {message}", file=sys.stderr)
    return EXIT_MOUNT_FAILED
