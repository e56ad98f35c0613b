"""Mount options: ours, the ones handed to FUSE, and the fstab/mount(8)
bookkeeping ones that only have to be tolerated.

`-o` may be given several times; values may hold an escaped comma ("\\,").
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field


class OptionError(ValueError):
    pass


# options for mount(8), systemd or fstab only; meaningless to us. "rw" is
# accepted and ignored: the file system is read-only whatever is asked.
_TOLERATED = {"rw", "ro", "defaults", "auto", "noauto", "user", "users", "nouser", "owner",
              "group", "_netdev", "nofail", "sync", "async", "dirsync"}
_TOLERATED_PREFIXES = ("x-", "comment=", "_")

# handed to libfuse as they are (fuse_session_new / mount options)
_FUSE_FLAGS = {"allow_other", "allow_root", "auto_unmount", "default_permissions",
               "nosuid", "suid", "nodev", "dev", "noexec", "exec", "atime", "noatime",
               "diratime", "nodiratime", "relatime", "norelatime", "strictatime"}
_FUSE_VALUED = {"fsname", "max_read", "blksize", "max_threads", "max_idle_threads"}

# every gbxfs mount is "fuse.gbxfs" in /proc/mounts, and its name starts with
# "gbxfs[PID]": the serving process, which `gbxfs umount` checks (fuse/mountinfo.py)
SUBTYPE = "gbxfs"
_SERVER = re.compile(r"gbxfs\[([0-9]+)\](?::|$)")


@dataclass
class MountOptions:
    gbx_mode: str = "folder"
    packlist: str | None = None
    cache_mb: int = 256
    threads: int = 8
    timeout: float = 10.0
    nonempty: bool = False      # consent to mount on top of a live mount (never handed to FUSE 3)
    verified_only: bool = False  # refuse (EIO) pak entries no checksum can prove (stored, LZ4)
    fuse: dict[str, str | None] = field(default_factory=dict)   # name -> value (None: a flag)
    ignored: list[str] = field(default_factory=list)

    def fuse_options(self, source: str, pid: int | None = None) -> set[str]:
        """The option set for pyfuse3.init: read-only, permission checks by the
        kernel, and a name that shows the serving process (`pid`, this one by
        default) and the source (or the given fsname) in /proc/mounts."""
        opts = dict(self.fuse)
        name = opts.get("fsname", _fsname(source))
        opts["fsname"] = f"gbxfs[{os.getpid() if pid is None else pid}]" + (f":{name}" if name else "")
        opts["subtype"] = SUBTYPE
        out = {"ro", "default_permissions"}
        out.update(k if v is None else f"{k}={v}" for k, v in opts.items())
        return out


def split_options(text: str) -> list[str]:
    """"a,b=c\\,d" -> ["a", "b=c,d"]."""
    items, cur, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if ch == ",":
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    items.append("".join(cur))
    return [s for s in (x.strip() for x in items) if s]


def parse_options(groups: list[str]) -> MountOptions:
    """Parse the values of every -o."""
    m = MountOptions()
    for group in groups:
        for item in split_options(group):
            key, eq, value = item.partition("=")
            if key == "gbx":
                if value not in ("folder", "file"):
                    raise OptionError("gbx= must be 'folder' or 'file'")
                m.gbx_mode = value
            elif key == "packlist":
                if not value:
                    raise OptionError("packlist= needs a file")
                m.packlist = value
            elif key in ("cache_mb", "threads"):
                n = _int(key, value)
                if n < 1:
                    raise OptionError(f"{key}= must be at least 1")
                setattr(m, key, n)
            elif key == "timeout":
                try:
                    m.timeout = float(value)
                except ValueError:
                    raise OptionError("timeout= needs a number of seconds") from None
                if not math.isfinite(m.timeout) or m.timeout < 0:
                    raise OptionError("timeout= must be a finite number of seconds, not negative")
            elif key == "subtype":
                # mount.fuse3 may pass the type's own name; any other would hide the mount from gbxfs umount
                if value != SUBTYPE:
                    raise OptionError(f"subtype= is not accepted: a gbxfs mount is always fuse.{SUBTYPE}")
            elif item == "nonempty":
                m.nonempty = True
            elif item == "verified_only":
                m.verified_only = True
            elif item in _TOLERATED or item.startswith(_TOLERATED_PREFIXES):
                m.ignored.append(item)
            elif key in _FUSE_FLAGS and not eq:
                m.fuse[key] = None
            elif key in _FUSE_VALUED and eq:
                m.fuse[key] = value
            else:
                raise OptionError(f"unknown mount option {item!r}")
    return m


def _int(key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise OptionError(f"{key}= needs a whole number") from None


def server_pid(fsname: str) -> int | None:
    """The serving process a mount's name claims ("gbxfs[PID]..."), None if it names none."""
    m = _SERVER.match(fsname)
    return int(m.group(1)) if m else None


def _fsname(source: str) -> str:
    # libfuse splits options at commas and pyfuse3 passes them as ASCII
    name = source.replace("\\", "\\\\").replace(",", "\\,")
    return name if name.isascii() else ""
