"""Walking the tree by path: `gbxfs ls/cat` (and `gbxfs info` for a path inside
a pak) resolve their arguments with it, and the FUSE layer walks from the root
when the kernel asks for an inode it no longer holds ('..' on an exported
mount). WalkError names the part of the path that failed; effective_mtime_ns
gives an entry the mtime of its nearest ancestor that has one."""
from __future__ import annotations

from gbxfs.tree.model import Dir, Entry


class WalkError(Exception):
    """A path does not lead to an entry; `.path` is the part that failed."""

    def __init__(self, message: str, path: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.reason = message


class NotFound(WalkError):
    pass


class NotADir(WalkError):
    pass


def split(path: str) -> list[str]:
    """Path components; empty parts and '.' are dropped, '..' is kept (walk handles it)."""
    return [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]


def walk(root: Entry, path: str) -> list[Entry]:
    """The chain of entries from root to `path` (root first). '..' goes back up,
    never above root. Raises NotFound / NotADir."""
    chain = [root]
    done: list[str] = []
    for part in split(path):
        if part == "..":
            if len(chain) > 1:
                chain.pop()
                done.pop()
            continue
        here = chain[-1]
        if not isinstance(here, Dir):
            raise NotADir("not a directory", "/".join(done))
        child = here.child(part)     # finds what a folder has but does not list, too
        done.append(part)
        if child is None:
            raise NotFound("no such file or directory", "/".join(done))
        chain.append(child)
    return chain


def resolve(root: Entry, path: str) -> Entry:
    """The entry at `path` below root."""
    return walk(root, path)[-1]


def effective_mtime_ns(chain: list[Entry]) -> int:
    """An entry's mtime: its own, else its nearest ancestor's (views inherit
    the mtime of the file they show)."""
    for entry in reversed(chain):
        if entry.mtime_ns is not None:
            return entry.mtime_ns
    return 0
