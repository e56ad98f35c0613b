"""`gbxfs info [--json] FILE...`: a summary of each GBX, pak or GP2 file.

FILE is a file on disk, or a path inside a pak as `gbxfs cat` takes it
(Packs/Game.pak/Media/A.Challenge.Gbx): then the entry's decrypted bytes are
summarised.

Exit codes (see gbxfs/cli/exits.py): 0 all files summarised; 3 a file was not
found; 4 a file is bad input (not a known kind, corrupt or truncated); the worst
one wins. Each failure prints one line `gbxfs: FILE: reason` on stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from gbxfs.cli.exits import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE
from gbxfs.tree.source import open_regular, read_regular

# The formats a file turns out to be are imported then: a map's summary does not
# import the pak or GP2 readers (nor they the GBX ghost decoders).
PAK_MAGIC = b"NadeoPak"       # formats/pak/header.py's MAGIC, checked before importing the pak reader

# info parses a whole file in memory: only regular files, and not beyond this
INFO_LIMIT = 1 << 30



class BadInput(Exception):
    """A file that cannot be summarised (message is the one-line reason)."""


def _pak_file(path: str) -> dict[str, Any] | None:
    """info_pak.summary_file(path), importing the pak reader only for a pak."""
    fd = open_regular(path)
    try:
        if os.pread(fd, len(PAK_MAGIC), 0) != PAK_MAGIC:
            return None
    finally:
        os.close(fd)
    from gbxfs.cli import info_pak
    return info_pak.summary_file(path)


def detect_kind(data: bytes) -> str | None:
    if data[:3] == b"GBX":
        return "gbx"
    if data[:8] == b"NadeoPak":
        return "pak"
    try:
        from gbxfs.formats import gp2
        if gp2.parse(data) is not None:
            return "gp2"
    except Exception:  # noqa: BLE001 - the GP2 probe must not break GBX/pak info
        return None
    return None


def gbx_summary(path: str, data: bytes, samples: bool = False) -> dict[str, Any]:
    """A GBX's summary: header, reference table, the body's walk (status, sizes)
    and, for a replay or ghost, its first ghost's facts from the ghost's chunks.
    `samples`: also decode every ghost's samples ("ghosts": encoding, counts,
    first and last sample times, errors), which takes longer."""
    from gbxfs.formats import gbx
    from gbxfs.formats.gbx.errors import GbxError, Truncated
    from gbxfs.tree.gbx.ghostfiles import find_ghosts, first_ghost_facts
    from gbxfs.tree.gbx.summary import summary

    try:
        g = gbx.parse(data)
    except GbxError as e:
        raise BadInput(str(e)) from None
    h = g.header
    nodes = list(g.body.nodes or [])
    out: dict[str, Any] = {
        "path": path,
        "file_type": "gbx",
        "class_id": f"{h.class_id:08X}",
        "class_name": h.class_name,
        "stored_class_id": f"{h.raw_class_id:08X}",
        "header_version": h.version,
        "format": h.format_bytes,
        "header_user_data_size": h.user_data_size,
        "header_chunks": [
            {"id": f"{c.chunk_id:08X}", "name": c.name, "size": c.size, "heavy": c.heavy,
             **({"error": str(c.error)} if c.error else {})}
            for c in h.chunks
        ],
        "num_nodes": h.num_nodes,
        "external_refs": [
            {"node_index": e.node_index, "file": e.path or e.file_name, "resource_index": e.resource_index,
             "use_file": e.use_file}
            for e in (h.refs.externals if h.refs else [])
        ],
        # the human summary (map: name, author, times, map_uid; replay/ghost: player, time, checkpoints)
        "summary": summary(h, first_ghost_facts(nodes)),
        "body_status": g.body.status,
        "body_error": str(g.body.error) if g.body.error else None,
    }
    st = file_status(os.path.basename(path), data, g)
    out["status"], out["status_reason"] = st.status, st.reason
    if g.body_data is not None:       # info.txt's body lines (tree/gbx/info.py body_pairs)
        out["body_compression"] = "LZO" if g.body_data.compressed else "none"
        if g.body_data.compressed_size is not None:
            out["body_compressed_size"] = g.body_data.compressed_size
        out["body_size"] = g.body_data.uncompressed_size
    if samples:
        out["ghosts"] = [_ghost_samples(x) for x in find_ghosts(nodes)]
    # unreadable body bytes (LZO, truncation) are bad input; a missing declaration is not
    if g.body_data is None and g.body.error is not None or isinstance(g.body.error, Truncated):
        out["bad_input"] = True
    return out


def file_status(name: str, data: bytes, g=None):
    """The file's one status (gbxfs/tree/gbx/status.py), as its folder in the tree
    shows it: the file opened as that folder, over its bytes. `g`: the file's
    gbx.parse, whose body walk the folder then takes instead of walking again."""
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.gbx.view import open_gbx
    from gbxfs.tree.source import BytesSource

    folder = open_gbx(name, BytesSource(data), TreeContext())
    if g is not None and g.body_data is not None and g.body_data.data and g.body.status != "absent":
        folder.p.seed_body(g.body_data, g.body)
    return folder.status()


def _ghost_samples(g) -> dict[str, Any]:
    t = g.track
    out: dict[str, Any] = {"node": g.node.index, "samples": 0 if t is None else len(t.samples)}
    if t is not None:
        out["sample_encoding"] = t.encoding
        if t.samples:
            out.update(first_sample_ms=t.samples[0].time_ms, last_sample_ms=t.samples[-1].time_ms)
    if g.errors:
        out["errors"] = [str(e) for e in g.errors]
    return out


def _pak_summary(path: str, data: bytes) -> dict[str, Any]:
    from gbxfs.cli import info_pak
    return info_pak.summary(path, data)


def _gp2_summary(path: str, data: bytes) -> dict[str, Any]:
    from gbxfs.formats.gp2 import info as gp2_info
    return gp2_info.summary(path, data)


# file type -> summary(path, data) -> dict
SUMMARIZERS: dict[str, Callable[[str, bytes], dict[str, Any]]] = {
    "gbx": gbx_summary,
    "pak": _pak_summary,
    "gp2": _gp2_summary,
}


def _text(s: dict[str, Any]) -> str:
    from gbxfs.tree.gbx.info import human_value
    from gbxfs.tree.gbx.summary import summary_pairs
    if s.get("file_type") != "gbx":
        return "\n".join(f"{k}: {human_value(v)}" for k, v in s.items()) + "\n"
    # the field names of info.txt (tree/gbx/info.py), one name for one fact
    lines = [f"path: {s['path']}"]
    lines += [f"{k}: {human_value(v)}" for k, v in summary_pairs(s.get("summary") or {})]
    lines += [f"class_id: {s['class_id']}", f"class_name: {s['class_name'] or 'unknown'}"]
    if s["stored_class_id"] != s["class_id"]:
        lines.append(f"stored_class_id: {s['stored_class_id']}")
    lines += [f"header_version: {s['header_version']}", f"format: {s['format']}"]
    if s["header_user_data_size"] is not None:
        lines.append(f"header_user_data_size: {s['header_user_data_size']}")
    lines.append(f"header_chunks: {len(s['header_chunks'])}")
    for c in s["header_chunks"]:
        lines.append(f"  {c['id']} {c['name'] or '-'} {c['size']} bytes" + (" heavy" if c["heavy"] else "")
                     + (f" ERROR {c['error']}" if c.get("error") else ""))
    lines.append(f"num_nodes: {s['num_nodes']}")
    lines.append(f"external_refs: {len(s['external_refs'])}")
    for e in s["external_refs"]:
        lines.append(f"  node {e['node_index']}: {e['file'] if e['file'] is not None else 'resource ' + str(e['resource_index'])}")
    lines += [f"{k}: {s[k]}" for k in ("body_compression", "body_compressed_size", "body_size") if k in s]
    lines.append(f"body_status: {s['body_status']}")
    lines.append(f"status: {s['status']}")
    if s.get("status_reason"):
        lines.append(f"status_reason: {s['status_reason']}")
    for g in s.get("ghosts", []):
        lines.append(f"ghost ({'node ' + str(g['node']) if g['node'] is not None else 'direct node'}): {g['samples']} samples"
                     + (f", {g['sample_encoding']}" if g.get("sample_encoding") else "")
                     + (f", {g['first_sample_ms']}..{g['last_sample_ms']} ms" if "first_sample_ms" in g else "")
                     + "".join(f"; ERROR {e}" for e in g.get("errors", [])))
    if s.get("verification"):
        lines.append(f"verification: {s['verification']}")
    if s["body_error"]:
        lines.append(f"body_error: {s['body_error']}")
    return "\n".join(lines) + "\n"


def _inside(path: str) -> tuple[bytes, str | None]:
    """The bytes of a file inside a pak (or other container), as `gbxfs cat` reads them,
    and how the container proved them (a pak's GBX entry: parse or recovered feeds)."""
    from gbxfs.cli.browse import open_path
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.model import File
    from gbxfs.tree.walk import NotADir, NotFound

    try:
        target = open_path(path, TreeContext(gbx_mode="file"))[-1]   # a .Gbx as its original bytes
    except (NotFound, NotADir):
        raise FileNotFoundError(path) from None
    if not isinstance(target, File):    # a Dir
        raise IsADirectoryError(21, "is a folder", path)
    if target.error:
        raise OSError(5, f"cannot be read: {target.error}", path)
    size = target.size()
    if size > INFO_LIMIT:
        raise OSError(27, f"{size} bytes is more than the {INFO_LIMIT}-byte limit", path)
    data = target.read(0, size)
    return data, getattr(getattr(target, "source", None), "proof", None)


def main(argv: list[str]) -> int:
    """Summarise GBX, pak and GP2 files."""
    ap = argparse.ArgumentParser(prog="gbxfs info", description=main.__doc__)
    ap.add_argument("--json", action="store_true", help="print one JSON list for all files")
    ap.add_argument("--samples", action="store_true",
                    help="also decode every ghost sample of a replay or ghost (JSON \"ghosts\": "
                         "encoding, sample count, first and last sample times); the summary itself "
                         "needs only the ghosts' chunks")
    ap.add_argument("files", nargs="+", metavar="FILE")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    code = EXIT_OK
    summaries = []
    for path in args.files:
        try:
            proof = pak = None
            if os.path.lexists(path):
                # a pak is read in place (its header only), anything else whole
                pak = _pak_file(path)
                data = b"" if pak is not None else read_regular(path, INFO_LIMIT)
            else:
                data, proof = _inside(path)
        except FileNotFoundError:
            print(f"gbxfs: {path}: no such file", file=sys.stderr)
            summaries.append({"path": path, "error": "no such file"})
            code = max(code, EXIT_NOT_FOUND)
            continue
        except OSError as e:
            print(f"gbxfs: {path}: {e.strerror or e}", file=sys.stderr)
            summaries.append({"path": path, "error": e.strerror or str(e)})
            code = max(code, EXIT_BAD_INPUT)
            continue
        try:
            kind = "pak" if pak is not None else detect_kind(data)
            if kind is None:
                raise BadInput("not a GBX, pak or GP2 file")
            if pak is not None:
                summary = pak
            elif kind == "gbx":
                summary = gbx_summary(path, data, samples=args.samples)
            else:
                summary = SUMMARIZERS[kind](path, data)
            if proof is not None:
                summary["verification"] = proof
        except BadInput as e:
            print(f"gbxfs: {path}: {e}", file=sys.stderr)
            summaries.append({"path": path, "error": str(e)})
            code = max(code, EXIT_BAD_INPUT)
            continue
        if summary.pop("bad_input", False):
            print(f"gbxfs: {path}: {summary.get('error') or summary.get('body_error')}", file=sys.stderr)
            code = max(code, EXIT_BAD_INPUT)
        summaries.append(summary)
        if not args.json:
            sys.stdout.write(_text(summary))
            if len(args.files) > 1:
                sys.stdout.write("\n")
    if args.json:
        json.dump(summaries, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return code
