"""Every corpus GBX file has one status, told alike by `gbxfs coverage`,
`gbxfs info --json`, its info.txt and its maps.csv / replays.csv row; it is
`complete` exactly when no folder of its view holds an error.txt (walked here
folder by folder, the folders found by name included); and none of those
outputs shows a Python repr (None, True, ['x'], "node None")."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest

from gbxfs.cli import EXIT_BAD_INPUT, EXIT_OK, main
from gbxfs.cli.coverage import scan
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.index import MAPS, REPLAYS
from gbxfs.tree.model import Dir
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve

pytestmark = [pytest.mark.corpus, pytest.mark.long]

# folders of a GBX folder found by name, not listed
BY_NAME = {"body": ("nodes",), "": ("ghosts", "embedded")}
# a value that is a Python repr rather than text a person reads
REPR = re.compile(r"^(None|True|False)$|^\[['\"(\d]|^\{'|\bnode None\b|<[\w.]+ object at 0x")


# facts info.txt and `gbxfs info --json` both show, under the same name
SAME_FACTS = ("class_id", "header_version", "format", "num_nodes", "stored_class_id",
              "header_user_data_size", "body_compression", "body_compressed_size", "body_size",
              "body_status", "status")


def _text(f) -> str:
    return f.read(0, f.size()).decode("utf-8")


def error_txt_paths(gbx: Dir) -> list[str]:
    """Every error.txt under a GBX folder: the listed tree and the folders found by
    name (body/nodes/, ghosts/, embedded/); nested GBX files are files of their own."""
    out: list[str] = []
    stack: list[tuple[str, Dir]] = [("", gbx)]
    while stack:
        path, d = stack.pop()
        kids = dict(d.children())
        for name in BY_NAME.get(path, ()):
            e = d.child(name)
            if e is not None:
                kids[name] = e
        for name, e in kids.items():
            sub = f"{path}/{name}" if path else name
            if name == "error.txt" and not e.is_dir:
                out.append(sub)
            elif e.is_dir and not name.lower().endswith(".gbx"):
                stack.append((sub, e))
    return out


def _pairs(text: str) -> dict[str, str]:
    return dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line)


def _repr_values(value, where: str) -> list[str]:
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _repr_values(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _repr_values(v, f"{where}[{i}]")]
    return [f"{where}: {value}"] if isinstance(value, str) and REPR.search(value) else []


@pytest.fixture(scope="module")
def coverage_entries(corpus):
    return {e.path: e for e in scan(corpus)}


@pytest.fixture(scope="module")
def info_json(corpus, coverage_entries):
    import contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["info", "--json", *(str(corpus / p) for p in sorted(coverage_entries))])
    assert code in (EXIT_OK, EXIT_BAD_INPUT)
    out = json.loads(buf.getvalue())
    return {str(s["path"])[len(str(corpus)) + 1:]: s for s in out}


def test_one_status_everywhere_and_complete_iff_no_error_txt(corpus, coverage_entries, info_json):
    assert coverage_entries
    root = build_tree(str(corpus), TreeContext())
    checked = bad = 0
    problems = []
    for rel, e in sorted(coverage_entries.items()):
        assert info_json[rel]["status"] == e.status, rel
        assert info_json[rel]["status_reason"] == e.status_reason, rel
        if e.status != "complete":
            bad += 1
        try:
            gbx = resolve(root, rel)
        except Exception:       # noqa: BLE001 - a file the tree shows as a plain file (no .gbx name)
            gbx = None
        if not isinstance(gbx, Dir):
            assert not rel.lower().endswith(".gbx"), rel
            continue
        checked += 1
        info = _pairs(_text(gbx.children()["info.txt"]))
        js = info_json[rel]
        for k in SAME_FACTS:      # one name for one fact in info.txt and info --json
            if k in info and str(js.get(k)) != info[k]:
                problems.append(f"{rel}: {k} info.txt {info[k]} != info --json {js.get(k)}")
        if info.get("status") != e.status:
            problems.append(f"{rel}: info.txt {info.get('status')} != coverage {e.status}")
        errors = error_txt_paths(gbx)
        if (e.status == "complete") != (not errors):
            problems.append(f"{rel}: {e.status} with error.txt in {errors}")
    assert not problems, "\n".join(problems)
    assert checked > 200 and bad < checked


def test_no_python_reprs_in_summaries(corpus, coverage_entries, info_json):
    found = []
    for rel, s in info_json.items():
        found += _repr_values(s, f"{rel} info --json")
    root = build_tree(str(corpus), TreeContext())
    folders = set()
    for rel in coverage_entries:
        try:
            gbx = resolve(root, rel)
        except Exception:       # noqa: BLE001 - shown as a plain file
            continue
        if not isinstance(gbx, Dir):
            continue
        folders.add(rel.rsplit("/", 1)[0] if "/" in rel else "")
        for k, v in _pairs(_text(gbx.children()["info.txt"])).items():
            if REPR.search(v):
                found.append(f"{rel}/info.txt: {k} = {v}")
    for folder in sorted(folders):
        d = resolve(root, folder) if folder else root
        for index in (MAPS, REPLAYS):
            f = d.children().get(index)
            if f is not None:
                for r in csv.DictReader(io.StringIO(_text(f))):
                    found += [f"{folder}/{index}: {r['file']} {k} = {v}" for k, v in r.items() if REPR.search(v)]
                    if r.get("environment", "").isdigit():      # a collection number, not its name
                        found.append(f"{folder}/{index}: {r['file']} environment = {r['environment']}")
    assert not found, "\n".join(found[:40])


def test_info_text_has_no_reprs(corpus, coverage_entries, capsys):
    """`gbxfs info` of every corpus GBX, pak and GP2 file."""
    from corpusdata import manifest_rows
    paths = [str(corpus / p) for p in sorted(coverage_entries)]
    paths += sorted(str(p) for p in corpus.rglob("*.pak"))
    paths += [str(corpus / r["path"]) for r in manifest_rows() if r["kind"] == "gp2"]
    main(["info", *paths])
    out = capsys.readouterr().out
    bad = [line for line in out.splitlines() if ": " in line and REPR.search(line.split(": ", 1)[1].strip())]
    assert not bad, "\n".join(bad[:40])
