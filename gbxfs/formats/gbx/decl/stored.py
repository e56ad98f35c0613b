"""The shipped declarations parsed and linked once, not once per process.

Parsing and linking chunks/*.chunks takes a few tenths of a second, paid by
every process that decodes a chunk (`gbxfs info`, `gbxfs ls`, each mount). The
result (chunk definitions, linked statements, structs, errors) is kept as a
pickle in the user's cache folder, `$XDG_CACHE_HOME/gbxfs` (else
`~/.cache/gbxfs`), named by a hash of everything that makes it: the
declaration texts, the sources of this engine (decl/*.py and expr.py) and the
Python version. A changed declaration or engine gets a new file; a file that
cannot be read or unpickled is ignored (and made again); a folder that cannot
be written leaves the registry built in memory, as it would be without this.
The generated decoders (codegen.py) are still written on first use, per
process. The pickle is the user's own, read only from their cache folder.
"""
from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = 1          # bump when what is pickled changes shape
_ENGINE = ("gbxfs.formats.gbx.decl", "gbxfs.formats.gbx")


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gbxfs"


def key(texts: list[tuple[str, str]]) -> str:
    """The hash naming the stored result of these texts with this engine."""
    h = hashlib.sha256(f"{FORMAT} {sys.version} {pickle.HIGHEST_PROTOCOL}\n".encode())
    for package in _ENGINE:
        folder = resources.files(package)
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".py") and (package == _ENGINE[0] or entry.name == "expr.py"):
                h.update(entry.name.encode() + b"\0" + entry.read_bytes() + b"\0")
    for name, text in texts:
        h.update(name.encode() + b"\0" + text.encode("utf-8") + b"\0")
    return h.hexdigest()[:32]


def load_or_make(texts: list[tuple[str, str]], make: Callable[[], Any], folder: Path | None = None) -> Any:
    """The stored result for `texts` if there is one, else make() (stored for next time)."""
    folder = cache_folder() if folder is None else folder
    path = folder / f"declarations-{key(texts)}.pickle"
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        pass
    except Exception as e:  # noqa: BLE001 - a damaged or foreign file: made again below
        log.debug("stored declarations %s unusable (%s): made again", path, e)
    value = make()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".declarations-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)       # whole or not at all, for processes reading it at once
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        log.debug("declarations not stored in %s: %s", folder, e)
    return value
