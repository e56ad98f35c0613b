"""Expected values for the GP2 tests, read from the shared format notes
(../shared/gp2/FORMAT.md §12 and §6.3) - an independent record made from the
real files, not from this parser - and the corpus manifest."""
from __future__ import annotations

import re

from corpusdata import CORPUS, SHARED, manifest_rows

FORMAT_MD = SHARED / "gp2" / "FORMAT.md"
COMMANDS_TSV = SHARED / "gp2" / "commands.tsv"


def gp2_rows() -> list[dict]:
    return [r for r in manifest_rows() if r["format"].startswith("GP2 track file")]


def gp1_rows() -> list[dict]:
    return [r for r in manifest_rows() if r["format"].startswith("F1GP")]


def read_corpus(row: dict) -> bytes:
    return (CORPUS / row["path"]).read_bytes()


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    nxt = text.find("\n## ", start + len(heading))
    return text[start : nxt if nxt >= 0 else len(text)]


def _tables(text: str) -> list[list[dict[str, str]]]:
    """Markdown tables in `text`, each as a list of {header: cell} rows."""
    tables, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif block:
            header, rows = block[0], block[2:]
            tables.append([dict(zip(header, r)) for r in rows])
            block = []
    return tables


def track_oracle() -> dict[str, dict[str, str]]:
    """FORMAT.md §12, both tables merged, keyed by file name (e.g. GP2-F1CT07.DAT)."""
    merged: dict[str, dict[str, str]] = {}
    for table in _tables(_section(FORMAT_MD.read_text("utf-8"), "## 12.")):
        for row in table:
            merged.setdefault(row["file"], {}).update(row)
    return merged


def number_and_extra(cell: str) -> tuple[int, int | None]:
    """'109 (+1)' -> (109, 1); '62 (4)' -> (62, 4); '19' -> (19, None)."""
    m = re.fullmatch(r"(\d+)(?: \(\+?(\d+)\))?", cell)
    assert m, f"unexpected FORMAT.md cell {cell!r}"
    return int(m[1]), (int(m[2]) if m[2] else None)


def argument_counts() -> dict[int, set[int]]:
    """FORMAT.md §6.3: command id -> possible argument counts."""
    counts: dict[int, set[int]] = {}
    for row in _tables(_section(FORMAT_MD.read_text("utf-8"), "### 6.3"))[0]:
        values = {int(v) for v in re.findall(r"\d+", row["N"])}
        for token in re.findall(r"\b[0-9A-F]{2}\b", row["command ids"].replace("**", "")):
            if int(token, 16) >= 0x80:  # command ids; skips numbers in the prose ("12 files")
                counts[int(token, 16)] = values
    return counts
