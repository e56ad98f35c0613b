"""What a view needs from the tree besides its own bytes."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gbxfs.formats.gbx.dump import F32Texts
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.source import OpenFiles


@dataclass
class TreeContext:
    # "folder": *.gbx files are shown as folders; "file": as plain files (unpacked view)
    gbx_mode: str = "folder"
    # pak entries with a hashed (extension-less) name shown as <name>.<extension of their
    # class> (tree/pak/names.py); extract keeps stored names unless --typed-names
    typed_names: bool = True
    # names over NAME_MAX bytes shown shortened (tree/longnames.py); extract writes the
    # stored names, and one the destination refuses is skipped and reported
    short_names: bool = True
    # byte-bounded cache shared by all views for parsed results and decoded data
    cache: ByteLRU = field(default_factory=lambda: ByteLRU(256 * 1024 * 1024))
    # override for packlist.dat (--packlist FILE); None: the one next to the paks
    packlist_path: str | None = None
    # refuse (EIO) pak entries no checksum can prove: stored ones, LZ4 ones
    # (formats/pak/verification.py); mount option verified_only, CLI --verified-only
    verified_only: bool = False
    # turns a named byte source into a tree entry (a folder view or a plain file);
    # set by the tree builder, used by container views (paks, GBX embedded files)
    open_child: Callable[..., Any] | None = None
    # the mount's top folder (set by the tree builder when it is a real folder): where
    # a GBX file's references to other files are looked up (tree/gbx/nearby.py)
    root: Any = None
    # the texts of floats recently written in chunk dumps (formats/gbx/dump.py), kept
    # across the dumps of one tree: nine in ten floats of a dump were seen before
    f32_texts: F32Texts = field(default_factory=F32Texts)
    # the real files' descriptors kept open between reads, at most a few hundred
    # (tree/source.py OpenFiles): one pool per tree
    open_files: OpenFiles = field(default_factory=OpenFiles)
