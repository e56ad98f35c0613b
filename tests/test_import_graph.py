"""No import circle anywhere in gbxfs/: the graph of module imports, read from the
source with ast (so imports inside functions count too), has no cycle.

An edge goes from a module to the module an import statement names (`from .x import
y` -> x, or x.y when y is a submodule). Importing a submodule also runs its
packages' __init__ files, but those implicit edges are not counted: a package that
re-exports its submodules would otherwise be a circle with each of them."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gbxfs"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(mod: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = mod.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(mod: str, path: Path, known: set[str]) -> set[str]:
    return imports_in(path.read_text(encoding="utf-8"), mod, path.name == "__init__.py", known)


def imports_in(source: str, mod: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of `known` that `mod` imports, anywhere in its source."""
    tree = ast.parse(source)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name:
                    out.add(name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(mod, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif base in known:
                    out.add(base)
    out.discard(mod)
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (as a path that starts and ends at one module), or None."""
    state: dict[str, int] = {}      # 1 on the current path, 2 done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_find_cycle_sees_a_cycle_and_its_absence():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_function_level_and_relative_imports_are_edges():
    known = {"p", "p.a", "p.b", "p.sub", "p.sub.c", "p.d"}
    source = """
from . import a
from .sub import c
from .. import nothing_known
import p.d

def late():
    from .b import name           # inside a function: counts too
"""
    assert imports_in(source, "p.x", False, known) == {"p.a", "p.sub.c", "p.d", "p.b"}
    assert imports_in("from ..b import y\n", "p.sub.c", False, known) == {"p.b"}
    assert imports_in("from .c import y\n", "p.sub", True, known) == {"p.sub.c"}


def test_gbxfs_has_no_import_cycle():
    mods = modules()
    known = set(mods)
    graph = {m: imports_of(m, p, known) for m, p in mods.items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_gbx_primitives_import_nothing_above_them():
    mods = modules()
    known = set(mods)
    gbx = "gbxfs.formats.gbx"
    below = {f"{gbx}.encoding", f"{gbx}.errors", f"{gbx}.lookback", f"{gbx}.sources", f"{gbx}.model", f"{gbx}.classdb"}
    for name in ("reader", "encoding", "lookback", "sources", "errors"):
        mod = f"{gbx}.{name}"
        assert imports_of(mod, mods[mod], known) <= below, mod


# what a sans-I/O parser never needs: threads, locks, queues, an event loop
CONCURRENCY = ("threading", "_thread", "queue", "concurrent", "trio", "asyncio", "multiprocessing")


def top_imports_in(source: str) -> set[str]:
    """The top-level module names that `source` imports, anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.partition(".")[0])
    return out


def test_top_imports_see_every_spelling():
    source = "import threading\nfrom concurrent.futures import Future\n\ndef f():\n    import queue as q\n"
    assert top_imports_in(source) == {"threading", "concurrent", "queue"}


def test_formats_import_no_threads_locks_or_event_loops():
    """gbxfs/formats is sans-I/O: bytes or read_at in, values out. What runs in threads
    and keeps state between calls (locks, caches, background work) is the tree's."""
    found = {}
    for mod, path in modules().items():
        if mod.startswith("gbxfs.formats"):
            bad = top_imports_in(path.read_text(encoding="utf-8")) & set(CONCURRENCY)
            if bad:
                found[mod] = sorted(bad)
    assert found == {}


def test_the_tree_imports_pak_names_from_the_package_api():
    """The tree takes the pak formats' names from gbxfs.formats.pak, each one its __all__ names."""
    from gbxfs.formats import pak
    wrong = []
    for mod, path in modules().items():
        if not mod.startswith("gbxfs.tree"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gbxfs.formats.pak"):
                if node.module != "gbxfs.formats.pak":
                    wrong.append(f"{mod}: from {node.module}")
                wrong += [f"{mod}: {a.name}" for a in node.names if a.name not in pak.__all__]
            elif isinstance(node, ast.Import):
                wrong += [f"{mod}: import {a.name}" for a in node.names if a.name.startswith("gbxfs.formats.pak")]
    assert wrong == []
    assert sorted(pak.__all__) == sorted([*pak._HOME, *pak._MODULES])    # one list, the loader's
    for name in pak.__all__:       # and each one is there
        assert getattr(pak, name) is not None
