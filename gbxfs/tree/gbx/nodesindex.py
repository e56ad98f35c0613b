"""body/nodes.txt: the index of a GBX body's node folders.

body/nodes/ holds a folder per node and two files per chunk: hundreds of
thousands of entries over a folder of large maps, which made `find`, `du` and
`grep -r` over a mount take minutes, and made `grep -r` for a map field find
each map twice (header dump and body dump). So body/ does not list nodes/: it
is opened by name (`ls X.Gbx/body/nodes`, `cd`, a path), and this file, which
body/ does list, says so and names every node folder in it.
"""
from __future__ import annotations

from collections.abc import Mapping

from gbxfs.tree.model import Entry

UNLISTED = frozenset({"nodes"})   # in body/, found by name, never listed

_HEAD = ("# Node folders of this body: body/nodes/<folder>/ holds a .txt (decoded) and a .bin\n"
         "# (raw) file per chunk. body/ does not list nodes/ (so find, du and grep -r over a\n"
         "# mount stay quick): open it by name, e.g. `ls body/nodes` or `grep -r FIELD body/nodes`.\n")


def render_nodes_index(status: str, folders: Mapping[str, Entry]) -> bytes:
    """`folders`: body/nodes/'s listing, whose error.txt (the body's problems),
    when there is one, is named after the node folders."""
    dirs = [(name, d) for name, d in folders.items() if d.is_dir]
    lines = [_HEAD, f"body_status = {status}\n", f"nodes = {len(dirs)}\n"]
    for name, d in dirs:
        err = d.xattrs.get("user.gbxfs.error")
        lines.append(name + ("" if err is None else "  # error: " + err.decode("utf-8", "replace")) + "\n")
    if len(dirs) != len(folders):
        lines.append("# the body's problems (what, where, why): body/nodes/error.txt\n")
    return "".join(lines).encode("utf-8")
