"""Counting the FUSE requests a pyfuse3 daemon answers (find_floor.py --count).

    import fuse_counts; fuse_counts.install("/tmp/counts.json")   # before pyfuse3.init

Wraps the handlers of whatever Operations object is handed to pyfuse3.init
(gbxfs's or the floor's) with a counter per request type, counts the entries
readdir_reply took and refused (a refusal: the kernel's buffer was full), and
writes the counts as JSON when the daemon exits. What the kernel asked, not
what it cost: the same for any load.
"""
from __future__ import annotations

import atexit
import collections
import json

HANDLERS = ("lookup", "forget", "getattr", "opendir", "readdir", "releasedir", "open", "read",
            "release", "flush", "access", "statfs", "getxattr", "listxattr")


def install(path: str) -> None:
    import pyfuse3

    counts: collections.Counter = collections.Counter()
    init, reply = pyfuse3.init, pyfuse3.readdir_reply

    def counted(name, fn):
        async def handler(*args, **kw):
            counts[name] += 1
            return await fn(*args, **kw)
        return handler

    def counting_init(ops, *args, **kw):
        for name in HANDLERS:
            fn = getattr(ops, name, None)
            if fn is not None:
                setattr(ops, name, counted(name, fn))
        return init(ops, *args, **kw)

    def counting_reply(token, name, attrs, next_id):
        ok = reply(token, name, attrs, next_id)
        counts["entries replied" if ok else "entries refused (buffer full)"] += 1
        return ok

    pyfuse3.init, pyfuse3.readdir_reply = counting_init, counting_reply

    @atexit.register
    def dump() -> None:
        with open(path, "w") as f:
            json.dump(dict(counts), f)
