"""The documents name code that exists: every file path (`tree/model.py`,
`gbxfs/formats/gbx/chunks/README.md`, `decl/`'s `compile.py`) and every
`module.name` / `Class.name` whose first part is one of gbxfs's modules or
classes, in ARCHITECTURE.md, the READMEs and docs/. The benchmarks' journal
(docs/benchmarks-history.md) and the CHANGELOG are history: they name code
as it was."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HISTORY = {"docs/benchmarks-history.md"}
# a file path: a name (no dot in it) with one of these endings, optionally after folders
PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|md|chunks|tsv))\b")
# `a.b` or `a.b(...)` inside backticks
QUALIFIED = re.compile(r"^([A-Za-z_]\w*)\.([A-Za-z_]\w*)(?:\(.*\))?$")
# second parts that are a file's extension (`info.txt`, `fuse.gbxfs`), not a name
EXTENSIONS = {"py", "txt", "csv", "jpg", "mtl", "dat", "xml", "png", "bin", "gbxfs", "md",
              "chunks", "glb", "svg", "obj", "json", "tsv", "Gbx", "gbx", "pak"}
# `a.b` spans that name something else than the module or class `a`
NOT_CODE = {
    "verification.stored",      # a line of .pak-info.txt
    # names of .pak-info.txt / pack-info.txt lines (docs/formats/mount.md "Field names")
    "header.md5", "files.compressed", "files.total_size", "files.public", "files.need_key",
    "verification.compressed", "metadata.gbx_headers", "table.storage",
    "body.status",              # the parse result's attribute (docs/api.md), not formats/gbx/body.py
}


def documents() -> list[Path]:
    found = [ROOT / "ARCHITECTURE.md", ROOT / "README.md", ROOT / "benchmarks" / "README.md"]
    found += sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "gbxfs").rglob("*.md"))
    return [p for p in found if p.relative_to(ROOT).as_posix() not in HISTORY]


def repo_files() -> list[str]:
    out = [p.name for p in ROOT.iterdir() if p.is_file()]
    for top in ("gbxfs", "tests", "tools", "benchmarks", "scripts", "docs", "systemd"):
        out += [p.relative_to(ROOT).as_posix() for p in (ROOT / top).rglob("*")
                if p.is_file() and "__pycache__" not in p.parts]
    return out


def exists(ref: str, doc: Path, files: list[str]) -> bool:
    if (doc.parent / ref).exists():
        return True
    return any(f == ref or f.endswith("/" + ref) for f in files)


def test_every_file_path_in_the_documents_exists():
    files = repo_files()
    missing = [f"{doc.relative_to(ROOT)}:{n}: {m.group(1)}"
               for doc in documents()
               for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
               for m in PATH.finditer(line) if not exists(m.group(1), doc, files)]
    assert not missing, "\n".join(missing)


@pytest.fixture(scope="module")
def names() -> dict[str, set[str]]:
    return names_defined()


SECTION = re.compile(r'([\w/.-]+\.md),?\s+"([^"]+)"')


def headings(md: Path) -> list[str]:
    return [" ".join(line.lstrip("#").split()) for line in md.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")]


def test_every_quoted_section_exists():
    """`(docs/formats/mount.md, "Long names")` in a document or a source file: that
    file has a heading starting with those words."""
    sources = documents() + sorted((ROOT / "gbxfs").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    sources.remove(Path(__file__).resolve())          # its examples are made up
    missing = []
    for src in sources:
        for m in SECTION.finditer(src.read_text(encoding="utf-8")):
            md = next((p for p in (ROOT / m.group(1), src.parent / m.group(1)) if p.is_file()), None)
            title = " ".join(m.group(2).split())
            if md is None or not any(h.startswith(title) for h in headings(md)):
                missing.append(f"{src.relative_to(ROOT)}: {m.group(1)}, \"{title}\"")
    assert not missing, "\n".join(missing)


def names_defined() -> dict[str, set[str]]:
    """Each module (by file stem; a package by its folder) and each class of gbxfs:
    the names defined in it (a module: its top-level names, imports and the
    members of its classes; a class: its members and the attributes it sets)."""
    names: dict[str, set[str]] = {}
    for py in (ROOT / "gbxfs").rglob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        module = names.setdefault(py.parent.name if py.stem == "__init__" else py.stem, set())
        if py.stem == "__init__":
            module.update(p.stem for p in py.parent.iterdir())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                module.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                module.update((a.asname or a.name).split(".")[0] for a in node.names)
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            members = names.setdefault(cls.name, set())
            for sub in ast.walk(cls):
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    members.add(sub.name)
                elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    members.add(sub.attr)
                elif isinstance(sub, (ast.Assign, ast.AnnAssign)):
                    targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                    members.update(t.id for t in targets if isinstance(t, ast.Name))
            module.update(members)
    return names


def test_every_qualified_name_in_the_documents_exists(names):
    missing = []
    for doc in documents():
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for span in re.findall(r"`([^`]+)`", line):
                for part in re.split(r"[\s,;]+", span):
                    m = QUALIFIED.match(part)
                    if not m or part in NOT_CODE or m.group(2) in EXTENSIONS:
                        continue
                    owner, name = m.groups()
                    if owner in names and name not in names[owner]:
                        missing.append(f"{doc.relative_to(ROOT)}:{n}: {part}")
    assert not missing, "\n".join(missing)


def test_the_checks_see_a_stale_reference(names):
    """A removed module and a removed function are found (the checks can fail)."""
    readme = ROOT / "gbxfs" / "formats" / "gbx" / "chunks" / "README.md"
    files = repo_files()
    assert [m.group(1) for m in PATH.finditer("One engine (`../engine.py`) reads them")] == ["../engine.py"]
    assert not exists("../engine.py", readme, files) and exists("../decl/compile.py", readme, files)
    assert not exists("formats/gbx/engine.py", readme, files) and exists("tree/model.py", readme, files)
    assert [m.group(1) for m in PATH.finditer("`g.header.chunks`, `tree/gbx/view.py`")] == ["tree/gbx/view.py"]
    assert "set_bound" in names["ByteLRU"] and "no_such_call" not in names["ByteLRU"]
    assert "require_tested_pyfuse3" in names["runner"] and "_entry" in names["ops"]
    quoted = SECTION.search('tables (docs/benchmarks-history.md, "Large file\ntables").')
    assert quoted and quoted.groups() == ("docs/benchmarks-history.md", "Large file\ntables")
    assert "Large file tables (`pak_table.py`)" in headings(ROOT / "docs" / "benchmarks-history.md")
    assert not any(h.startswith("Results") for h in headings(ROOT / "benchmarks" / "README.md"))
