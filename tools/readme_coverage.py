#!/usr/bin/env python3
"""Rewrite the README's generated coverage sections from the corpus.

Each section sits between `<!-- begin NAME -->` and `<!-- end NAME -->` and is
exactly the output of one command over the corpus:

    files   gbxfs coverage --markdown --failures CORPUS
    chunks  gbxfs coverage --chunks --markdown CORPUS

tests/formats/gbx/test_chunk_proofs.py fails when the README differs from them
(it names this tool). One scan serves both sections.

Usage: tools/readme_coverage.py [CORPUS] [--check]   (CORPUS defaults to the corpus beside the checkout;
--check: exit 1 when the README is stale, write nothing)
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbxfs.cli import coverage, coverage_chunks  # noqa: E402
from gbxfs.formats.gbx.proof import ChunkProofs  # noqa: E402

README = ROOT / "README.md"


def sections(entries: list[coverage.Entry], proofs: ChunkProofs) -> dict[str, str]:
    """{section name: text} from one scan (`proofs` finished)."""
    return {
        "files": coverage.format_markdown(coverage.table(entries)) + coverage.format_failures(entries, markdown=True),
        "chunks": coverage_chunks.format_markdown(proofs),
    }


def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- begin {name} -->\n)(.*?)(<!-- end {name} -->)", re.S)


def current(text: str, name: str) -> str | None:
    m = _pattern(name).search(text)
    return None if m is None else m.group(2)


def splice(text: str, new: dict[str, str]) -> str:
    for name, body in new.items():
        pat = _pattern(name)
        if not pat.search(text):
            raise SystemExit(f"README.md has no <!-- begin {name} --> ... <!-- end {name} --> section")
        text = pat.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)
    return text


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    ap.add_argument("--check", action="store_true", help="exit 1 when the README is stale; write nothing")
    args = ap.parse_args(argv)
    proofs = ChunkProofs()
    entries = coverage.scan(Path(args.corpus), proofs)
    proofs.finish()
    old = README.read_text(encoding="utf-8")
    new = splice(old, sections(entries, proofs))
    if args.check:
        print("README coverage sections are up to date" if new == old else "README coverage sections are stale")
        return 0 if new == old else 1
    if new != old:
        README.write_text(new, encoding="utf-8")
    print("README.md " + ("rewritten" if new != old else "unchanged"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
