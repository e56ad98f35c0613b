"""Every view keeps to the tree contract (gbxfs/tree/contract.py), and the FUSE
adapter uses nothing else of the tree's entries."""
from __future__ import annotations

import ast
import importlib
import pkgutil
import time
from pathlib import Path

import gbxfs
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree import contract, model
from gbxfs.tree.context import TreeContext
from gbxfs.tree.openers import ViewDir
from gbxfs.tree.root import build_tree

FUSE = Path(gbxfs.__file__).parent / "fuse"
# what gbxfs/fuse may import of gbxfs/tree: the contract and its model, the listing's
# rows, and helpers that are no view (access bits, the cache and its governor, logs,
# long names, path walking)
ADAPTER_MAY_IMPORT = {"gbxfs.tree.contract", "gbxfs.tree.model", "gbxfs.tree.rows", "gbxfs.tree.acl",
                      "gbxfs.tree.cache", "gbxfs.tree.governor", "gbxfs.tree.logs", "gbxfs.tree.longnames",
                      "gbxfs.tree.walk"}
OPERATIONS = set(contract.FILE_OPERATIONS + contract.FOLDER_OPERATIONS)


def _entry_classes() -> set[type]:
    for m in pkgutil.walk_packages(gbxfs.__path__, "gbxfs."):
        if not m.name.endswith("__main__"):
            importlib.import_module(m.name)
    out: set[type] = set()
    todo = [model.Entry]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("gbxfs.") and sub not in out:
                out.add(sub)
                todo.append(sub)
    return out


def test_the_contract_has_at_most_eight_operations():
    assert len(OPERATIONS) <= 8
    for proto, names in ((contract.FileContract, contract.FILE_OPERATIONS),
                         (contract.FolderContract, contract.FOLDER_OPERATIONS)):
        for name in names:
            assert callable(getattr(proto, name)), name


def test_views_fill_in_hooks_and_never_redefine_an_operation():
    """The operations are written once, in model.File and model.Dir; a view fills in
    their hooks (_list, _find, _exact_size, ...), so `wait=False` means the same everywhere."""
    classes = _entry_classes()
    assert len(classes) > 15
    for cls in classes:
        if cls.__module__ == "gbxfs.tree.model":
            continue
        redefined = {n for n in ("size", "read", "children", "child") if n in vars(cls)}
        assert not redefined, f"{cls.__qualname__} redefines {redefined}"


def test_the_adapter_imports_no_view():
    for path in FUSE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gbxfs.tree"):
                assert node.module in ADAPTER_MAY_IMPORT, f"{path.name} imports {node.module}"


def _walk(root, limit: int = 20_000):
    """Every entry under root (folders listed, nothing read), at most `limit`."""
    todo, seen = [root], 0
    while todo and seen < limit:
        entry = todo.pop()
        seen += 1
        yield entry
        if entry.is_dir:
            todo.extend(entry.children().values())


def _check(entry) -> None:
    assert isinstance(entry, contract.EntryFacts), entry
    if entry.is_dir:
        assert isinstance(entry, contract.FolderContract), type(entry)
        assert not isinstance(entry.read_ahead("x"), type(None))
        kids = entry.children(wait=False)
        assert kids is None or list(kids) == list(entry.children())
    else:
        assert isinstance(entry, contract.FileContract), type(entry)
        known = entry.size(wait=False)
        assert known is None or known == entry.size()


def test_every_entry_of_a_pak_folder_keeps_to_the_contract(tmp_path):
    write_packs(tmp_path, {"P": [PakFile(f"D{i % 3}/f{i}.txt", b"x" * i, compress=bool(i % 2)) for i in range(40)]})
    kinds = set()
    for entry in _walk(build_tree(str(tmp_path), TreeContext())):
        _check(entry)
        kinds.add(type(entry).__name__)
    assert {"RealDir", "ViewDir", "PakFolder", "PakEntryFile"} <= kinds, kinds


def test_every_entry_of_the_corpus_keeps_to_the_contract(corpus):
    start = time.monotonic()
    kinds = set()
    count = 0
    for entry in _walk(build_tree(str(corpus), TreeContext())):
        _check(entry)
        kinds.add(type(entry).__name__)
        count += 1
        if isinstance(entry, ViewDir):      # the view's own folder, which the registry's answers for
            _check(entry.view())
            kinds.add(type(entry.view()).__name__)
    # every view of the registry, and the model's own kinds, are among them
    assert {"RealDir", "RealFile", "ViewDir", "GbxFolder", "BodyFolder", "HeaderFolder", "CachedFile",
            "PakFolder"} <= kinds, kinds
    assert count > 1000, (count, time.monotonic() - start)
