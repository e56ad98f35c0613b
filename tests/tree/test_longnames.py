"""Names longer than the platform takes (NAME_MAX bytes) are shortened uniquely
and readably; inside a pak the full stored name stays in user.pak.stored_name
and .pak-info.txt, and the siblings stay listed."""
from __future__ import annotations

import os

from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.context import TreeContext
from gbxfs.tree.longnames import NAME_MAX, encoded, fit, too_long
from gbxfs.tree.root import build_tree
from gbxfs.tree.rows import plain_names
from gbxfs.tree.walk import resolve


def test_fit_keeps_short_names_and_shortens_long_ones_readably():
    assert fit("a.txt") == "a.txt" and fit("x" * NAME_MAX) == "x" * NAME_MAX
    long = "Track " * 100 + ".Map.Gbx"
    short = fit(long)
    assert len(encoded(short)) == NAME_MAX and short.startswith("Track Track") and short.endswith(".Map.Gbx")
    assert fit(long) == short                                   # the same every time
    other = long[:-8] + "x.Map.Gbx"                             # the same start, another name
    assert fit(other) != short and len(encoded(fit(other))) <= NAME_MAX
    assert len(encoded(fit(long, "~2"))) <= NAME_MAX and fit(long, "~2").endswith(".Map.Gbx~2")


def test_fit_cuts_on_whole_characters():
    short = fit("é" * 300)
    assert len(encoded(short)) <= NAME_MAX and short.startswith("é" * 100) and not too_long(short)
    short.encode("utf-8")                                       # no half character left


def test_plain_names_refuses_a_name_too_long():
    assert plain_names(["a", "b" * NAME_MAX]) and not plain_names(["a", "b" * (NAME_MAX + 1)])
    assert not plain_names(["a", "é" * 128])                    # 256 bytes


def test_a_pak_entry_named_with_4090_bytes_hides_nothing(tmp_path):
    long = "L" * 4086 + ".txt"
    twin = "L" * 4086 + "x.txt"                                 # shortened, they would be equal but for the hash
    write_packs(tmp_path, {"X": [PakFile("A/a.txt", b"a"), PakFile(f"A/{long}", b"long"),
                                 PakFile(f"A/{twin}", b"twin"), PakFile("A/z.txt", b"z"),
                                 PakFile("F" * 300 + "/f.txt", b"f")]})
    tree = build_tree(str(tmp_path / "X.pak"), TreeContext())
    names = list(resolve(tree, "A").children())
    assert "a.txt" in names and "z.txt" in names and len(names) == 4
    assert all(len(encoded(n)) <= NAME_MAX for n in names)
    shown = {n for n in names if n.startswith("LLLL")}
    assert len(shown) == 2 and all(n.endswith(".txt") for n in shown)
    by_stored = {resolve(tree, f"A/{n}").xattrs["user.pak.stored_name"].decode(): n for n in shown}
    assert set(by_stored) == {long, twin}
    assert resolve(tree, f"A/{by_stored[long]}").read(0, 10) == b"long"
    assert resolve(tree, f"A/{by_stored[twin]}").read(0, 10) == b"twin"
    (folder,) = [n for n in tree.children() if n.startswith("FFFF")]
    assert len(encoded(folder)) <= NAME_MAX and resolve(tree, f"{folder}/f.txt").read(0, 1) == b"f"
    info = resolve(tree, ".pak-info.txt").read(0, 1 << 20).decode()
    assert "long_names = 3 " in info and f"  A/{long}\n" in info and f"  A/{twin}\n" in info
    assert f"  {'F' * 300}/\n" in info
    again = build_tree(str(tmp_path / "X.pak"), TreeContext())
    assert list(resolve(again, "A").children()) == names         # identical on every walk
