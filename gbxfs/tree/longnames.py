"""Names longer than the platform takes, shortened uniquely and readably.

Linux looks up names of at most NAME_MAX (255) bytes, and FUSE refuses a whole
directory listing when one entry is longer than it accepts, so an archive entry
named with 4,096 bytes would hide every sibling. A name over NAME_MAX bytes
(UTF-8, as the kernel gets it) is shown as its longest start that fits, then
"~" and 8 hex digits of a BLAKE2b hash of the whole name, then its extension
(up to two short dot-suffixes, so `.Map.Gbx` still makes a GBX folder):

    <start of the name>~1f2e3d4c.Map.Gbx

The same name always gives the same short name; two different long names
sharing a start differ by their hash (a clash left is made unique by the
listing, as for any name). Where the full name stays is the archive's
business (tree/pak: the `user.pak.stored_name` xattr and .pak-info.txt).
"""
from __future__ import annotations

import hashlib
import re

NAME_MAX = 255
# a name of at most this many characters fits whatever they are (4 UTF-8 bytes at most each)
SURELY_FITS = NAME_MAX // 4
_EXTENSION = re.compile(r"(?:\.[^./\\~]{1,16}){1,2}$")


def encoded(name: str) -> bytes:
    """The name's bytes as the kernel gets them (os.fsencode's UTF-8 with surrogateescape)."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "replace")


def too_long(name: str) -> bool:
    return len(name) > SURELY_FITS and len(encoded(name)) > NAME_MAX


def all_fit(names) -> bool:
    """True when no name of `names` is too long (one pass in C for the usual short names)."""
    if not names or max(map(len, names)) <= SURELY_FITS:
        return True
    return not any(map(too_long, names))


def fit(name: str, suffix: str = "") -> str:
    """`name` + `suffix` when that fits NAME_MAX bytes, else the name shortened
    (see above) with `suffix` after it, within NAME_MAX bytes."""
    whole = name + suffix
    if not too_long(whole):
        return whole
    m = _EXTENSION.search(name)
    ext = m.group(0) if m and m.start() > 0 else ""
    tag = "~" + hashlib.blake2b(encoded(name), digest_size=4).hexdigest()
    room = NAME_MAX - len(encoded(ext + suffix)) - len(tag)
    head = encoded(name[:len(name) - len(ext)])[:room].decode("utf-8", "ignore")    # whole characters only
    return head + tag + ext + suffix
