"""`gbxfs coverage [--markdown | --json] [--failures] [--chunks [--list]] DIR`: how many
GBX files under DIR parse completely, per kind (map, replay, ghost, item, other) and game
generation (--failures: and what stops each other file); with --chunks, the chunk
declarations per class and which of them the files prove (gbxfs.cli.coverage_chunks).
The README's coverage sections are these outputs for the corpus
(tools/readme_coverage.py rewrites them).

"Complete" is the file's one status (gbxfs/tree/gbx/status.py), the same as
`gbxfs info`'s and its info.txt's: header chunks, reference table and every body node
decode with nothing left over, and no folder of the file holds an error.txt. When DIR holds a MANIFEST.tsv (the shared corpus), its
`kind` column and its notes ("game≈TM Sunrise", "TMNF ...") are used; otherwise the
kind comes from the main class and the generation from the file
(gbxfs.formats.gbx.generation). Files that are not GBX (GP2 tracks, raw chunk dumps)
are left out.

A file that cannot be read (permission, a /proc file that vanished or refuses reads)
is skipped with a message on stderr; the table covers the rest.

Exit codes: 0 table printed; 1 table printed, some files skipped; 2 usage; 3 DIR not found.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gbxfs.cli import coverage_chunks
from gbxfs.cli.exits import EXIT_NOT_FOUND, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from gbxfs.cli.info import file_status
from gbxfs.cli.progress import bar
from gbxfs.formats import gbx
from gbxfs.formats.gbx import classdb, generation
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.proof import ChunkProofs

# what `gbxfs coverage --help` says: for users, so no module or tool names
USER_HELP = ("How many GBX files under DIR parse completely, per kind (map, replay, ghost, item, "
             "other) and game generation; --failures also lists what stops each other file. "
             "With --chunks: the chunk declarations per class, and how many of them the files prove.")

KINDS = ("map", "replay", "ghost", "item", "other")
KIND_BY_CLASS = {classdb.class_id(name): kind for name, kind in (
    ("CGameCtnChallenge", "map"), ("CGameCtnReplayRecord", "replay"), ("CGameCtnGhost", "ghost"),
    ("CGameItemModel", "item"))}
MAX_FILE = 512 << 20        # parse needs the whole file in memory
Parse = Callable[[str, bytes], gbx.Gbx]     # (path relative to DIR, its bytes) -> parse


@dataclass
class Entry:
    path: str                  # relative to DIR
    kind: str
    generation: str
    status: str                # body status, or "failed" when the header is unusable
    status_reason: str | None = None   # what stops it, as info.txt and gbxfs info say


def _manifest(root: Path) -> dict[str, dict[str, str]]:
    path = root / "MANIFEST.tsv"
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as f:
        return {row["path"]: row for row in csv.DictReader(f, delimiter="\t")}


def examine(data: bytes, rel: str, row: dict[str, str] | None,
            proofs: ChunkProofs | None = None, parse: Parse | None = None) -> Entry | None:
    """One file's entry, or None when it is not a GBX file. `proofs` (if given)
    counts the chunk declarations the file uses; `parse(rel, data)` (if given)
    stands for gbx.parse(data)."""
    if data[:3] != b"GBX":
        return None
    kind = row["kind"] if row and row.get("kind") in KINDS else None
    gen = generation.from_note(row.get("notes", "")) if row else None
    try:
        g = parse(rel, data) if parse is not None else gbx.parse(data)
    except GbxError as e:
        return Entry(rel, kind or "other", gen or "unknown", "failed", str(e))
    if proofs is not None:
        proofs.add(g, rel)
    kind = kind or KIND_BY_CLASS.get(g.header.class_id, "other")
    gen = gen or generation.infer(g)
    st = file_status(rel.rsplit("/", 1)[-1], data, g)
    return Entry(rel, kind, gen, st.status, st.reason)


def scan(root: Path, proofs: ChunkProofs | None = None, parse: Parse | None = None,
         skipped: list[str] | None = None) -> list[Entry]:
    """Entries of every GBX file under `root` (sorted by path); `proofs` (if given)
    counts their chunk declarations (call its finish() afterwards). `parse(rel,
    data)` (if given) stands for gbx.parse(data): the tests share one parse per
    corpus file this way. A file that cannot be read is left out, and
    "path: reason" added to `skipped` (if given)."""
    manifest = _manifest(root)
    out = []
    paths = sorted(root.rglob("*"))
    with bar("coverage", total=len(paths)) as progress:
        for path in paths:
            progress.update()
            rel = path.relative_to(root).as_posix()
            try:
                data = _gbx_bytes(path) if rel != "MANIFEST.tsv" else None
            except OSError as e:
                if skipped is not None:
                    skipped.append(f"{rel}: {e.strerror or e}")
                continue
            if data is None:
                continue
            entry = examine(data, rel, manifest.get(rel), proofs, parse)
            if entry is not None:
                out.append(entry)
    return out


def _gbx_bytes(path: Path) -> bytes | None:
    """The bytes of a regular GBX file of at most MAX_FILE bytes, else None."""
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE:
        return None
    with path.open("rb") as f:
        head = f.read(3)
        return head + f.read(MAX_FILE + 1 - 3) if head == b"GBX" else None


def table(entries: list[Entry]) -> list[tuple[str, str, int, int]]:
    """(kind, generation, complete, total) rows in KINDS x GENERATIONS order, with an
    "all" row per kind."""
    rows = []
    for kind in KINDS:
        mine = [e for e in entries if e.kind == kind]
        if not mine:
            continue
        for gen in generation.GENERATIONS:
            sel = [e for e in mine if e.generation == gen]
            if sel:
                rows.append((kind, gen, sum(e.status == "complete" for e in sel), len(sel)))
        rows.append((kind, "all", sum(e.status == "complete" for e in mine), len(mine)))
    return rows


def _pct(done: int, total: int) -> str:
    return f"{100 * done / total:.0f}%" if total else "-"


def format_text(rows: list[tuple[str, str, int, int]]) -> str:
    lines = [f"{'kind':<7} {'generation':<16} {'complete':>8} {'total':>6} {'':>5}"]
    for kind, gen, done, total in rows:
        lines.append(f"{kind:<7} {gen:<16} {done:>8} {total:>6} {_pct(done, total):>5}")
    return "\n".join(lines) + "\n"


def format_markdown(rows: list[tuple[str, str, int, int]]) -> str:
    lines = ["| kind | generation | complete / total | |", "|---|---|---:|---:|"]
    for kind, gen, done, total in rows:
        g = f"**{gen}**" if gen == "all" else gen
        lines.append(f"| {kind} | {g} | {done} / {total} | {_pct(done, total)} |")
    return "\n".join(lines) + "\n"


def format_failures(entries: list[Entry], markdown: bool = False) -> str:
    """Each file that is not complete, with its precise error (a Markdown list for the README)."""
    bad = [e for e in entries if e.status != "complete"]
    if not markdown:
        return "".join(f"{e.status:<8} {e.kind:<6} {e.generation:<16} {e.path}: {e.status_reason}\n" for e in bad)
    if not bad:
        return "\nEvery file parses completely.\n"
    lines = ["", "What stops each file that is not complete:", ""]
    lines += [f"- {e.kind}, {e.generation}, {e.status}: `{e.path}`: {e.status_reason}" for e in bad]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Count the GBX files under DIR that parse completely, per kind and game generation."""
    ap = argparse.ArgumentParser(prog="gbxfs coverage", description=USER_HELP)
    ap.add_argument("dir", help="folder to scan (recursively)")
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="print a Markdown table (README)")
    fmt.add_argument("--json", action="store_true", help="print every file's entry as JSON")
    ap.add_argument("--failures", action="store_true", help="also list files that are not complete")
    ap.add_argument("--chunks", action="store_true",
                    help="per class: chunk declarations, how many the files prove, how many are unverified")
    ap.add_argument("--list", action="store_true", help="with --chunks: every declaration and its state")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return EXIT_OK if e.code == 0 else EXIT_USAGE
    root = Path(args.dir)
    if not root.is_dir():
        print(f"gbxfs: {root}: no such folder", file=sys.stderr)
        return EXIT_NOT_FOUND
    skipped: list[str] = []
    if args.chunks:
        proofs = ChunkProofs()
        scan(root, proofs, skipped=skipped)
        proofs.finish()
        if args.json:
            print(json.dumps(coverage_chunks.as_json(proofs), indent=1, ensure_ascii=False))
        elif args.markdown:
            sys.stdout.write(coverage_chunks.format_markdown(proofs))
        else:
            sys.stdout.write(coverage_chunks.format_text(proofs, listing=args.list))
        return _skips(skipped)
    entries = scan(root, skipped=skipped)
    if args.json:
        print(json.dumps([e.__dict__ for e in entries], indent=1, ensure_ascii=False))
        return _skips(skipped)
    rows = table(entries)
    sys.stdout.write(format_markdown(rows) if args.markdown else format_text(rows))
    if args.failures:
        sys.stdout.write(format_failures(entries, markdown=args.markdown))
    return _skips(skipped)


def _skips(skipped: list[str]) -> int:
    """Say which files were skipped (stderr): exit 1 when any was."""
    for line in skipped:
        print(f"gbxfs: skipped {line}", file=sys.stderr)
    return EXIT_PARTIAL if skipped else EXIT_OK
