"""`gbxfs info` for GP2 tracks: `summary(path, data) -> dict` (see gbxfs/cli/info.py).

The same facts as the track folder's info.txt, as one flat dict, so the
text output and `--json` agree with what the mount shows.
"""
from __future__ import annotations

from typing import Any

from gbxfs.formats.gp2.errors import Gp2Error
from gbxfs.formats.gp2.render_info import info_lines
from gbxfs.formats.gp2.track import decode


def summary(path: str, data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"path": path, "file_type": "gp2"}
    try:
        track = decode(data)
    except Gp2Error as e:
        return {**out, "error": str(e), "bad_input": True}
    out.update(info_lines(track))
    return out
