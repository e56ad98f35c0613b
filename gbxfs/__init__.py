"""gbxfs: Nadeo GameBox data as a read-only filesystem, and as a Python API.

The public names are those of __all__ (docs/api.md); everything else,
including the subpackages, is internal and may change. The names are loaded
on first use, so `import gbxfs` (and `gbxfs --version`) loads nothing more.
"""
from __future__ import annotations

__all__ = ["open_gbx", "parse", "summary", "open_tree", "open_pak", "walk", "iter_files", "read",
           "Gbx", "GbxError", "PakError", "NotFound", "NotADir", "Entry", "File", "Dir"]


def __getattr__(name: str):
    if name in __all__:
        from gbxfs import _api
        return getattr(_api, name)
    raise AttributeError(f"module 'gbxfs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
