"""The one status of a GBX file (gbxfs/tree/gbx/status.py): `complete` only when
the body's walk is and no folder holds an error.txt; the reason names the folder."""
from __future__ import annotations

import struct

from gbxfs.cli.info import file_status
from gbxfs.formats.gbx.writer import build_gbx, node_body
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.source import BytesSource

GHOST = 0x03092000


def _ghost(checkpoints: bytes) -> bytes:
    # 0309200B (checkpoints, skippable): a count, then (time, stunts score) pairs
    return build_gbx(class_id=GHOST, body=node_body([(0x0309200B, checkpoints, True)]), empty_user_data=True)


def _status(data: bytes):
    d = open_gbx("x.Ghost.Gbx", BytesSource(data), TreeContext())
    return d, d.status()


def test_a_walk_that_ends_well_and_no_error_txt_is_complete():
    d, st = _status(_ghost(struct.pack("<III", 1, 8450, 0)))
    assert st.status == "complete" and st.reason is None
    text = "\n" + d.children()["info.txt"].read(0, 1 << 16).decode()
    assert "\nstatus = complete\n" in text and "status_reason" not in text


def test_a_skipped_chunk_that_did_not_decode_is_partial():
    # 7 bytes left over: the walk skips the chunk and reaches the end marker
    data = _ghost(struct.pack("<I", 0) + b"\x1c\0\0\0\0\0\0")
    d, st = _status(data)
    assert d.p.body().status == "complete"                       # the walk alone would say complete
    assert st.status == "partial" and st.reason.startswith("body/nodes/error.txt: "), st
    assert "0309200B" in st.reason
    text = "\n" + d.children()["info.txt"].read(0, 1 << 16).decode()
    assert "\nstatus = partial\n" in text and f"status_reason = {st.reason}\n" in text
    assert file_status("x.Ghost.Gbx", data) == st                # what gbxfs info and coverage show


def test_a_header_chunk_that_did_not_decode_is_partial():
    # 03093000 replay version 2 cut short: the header chunk does not decode
    data = build_gbx(class_id=0x03093000, header_chunks=[(0x03093000, struct.pack("<I", 2), False)],
                     body=node_body([]))
    d, st = _status(data)
    assert st.status == "partial" and st.reason.startswith("header/error.txt: "), st


def test_an_unreadable_header_is_failed():
    _, st = _status(b"GBX\x06\x00BUUR" + b"\xff" * 8)
    assert st.status == "failed" and st.reason and st.reason.startswith("error.txt: ")
