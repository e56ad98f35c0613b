"""No module-level mutable state in the package (ARCHITECTURE.md): no function
rebinds a module global, and no module holds a lock, a counter or a weak table at
its top. Such state outlives a mount and leaks between tests; it belongs to an
object the runner or the tree creates (TreeContext, Operations, an archive)."""
from __future__ import annotations

import ast
from pathlib import Path

import gbxfs

PACKAGE = Path(gbxfs.__file__).parent
# calls whose result is state shared by everything that imports the module
STATEFUL = {"Lock", "RLock", "Condition", "Event", "Semaphore", "BoundedSemaphore", "local",
            "count", "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "OrderedDict", "deque",
            "EntryAttributes"}


def _findings(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    out = [f"{name}:{n.lineno}: global {', '.join(n.names)}" for n in ast.walk(tree) if isinstance(n, ast.Global)]
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
            f = node.value.func
            called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if called in STATEFUL:
                out.append(f"{name}:{node.lineno}: {called}() at module level")
    return out


def test_no_module_level_mutable_state():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += _findings(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    assert found == []


def test_the_check_sees_what_it_forbids():
    bad = "import threading\nLOCK = threading.Lock()\nN = 0\ndef f():\n    global N\n    N += 1\n"
    assert len(_findings(bad, "m.py")) == 2
