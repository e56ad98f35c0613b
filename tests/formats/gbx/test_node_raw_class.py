"""`node_raw_class` in declarations: the class id as the file stores it. An old class
that the classdb wrap table remaps (CScenePocLink 0A00F000 -> CSceneObjectLink 0A014000)
has chunk layouts of its own under ids that remap onto the new class's (0A00F001 is read
as 0A014001)."""
from __future__ import annotations

import struct

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.decl import Registry
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.writer import node_body

OLD, NEW = 0x0A00F000, 0x0A014000
DECLS = Registry.from_texts([("t.chunks", """
0A014F01
    if node_raw_class == 0x0A00F000:
        uint16 old
    else:
        uint32 new
""")])


def u32(*vs: int) -> bytes:
    return struct.pack(f"<{len(vs)}I", *vs)


def test_the_test_classes_are_remapped_by_the_classdb():
    assert classdb.remap(OLD) == NEW and classdb.remap_chunk(OLD | 0xF01) == NEW | 0xF01


def test_old_and_new_class_each_get_their_layout():
    old = walk_body(node_body([(OLD | 0xF01, struct.pack("<H", 7), False)]), class_id=OLD, num_nodes=1, decls=DECLS)
    new = walk_body(node_body([(NEW | 0xF01, u32(9), False)]), class_id=NEW, num_nodes=1, decls=DECLS)
    assert old.status == new.status == "complete", (old.error, new.error)
    assert old.main.class_id == new.main.class_id == NEW
    assert old.main.chunks[0].values == {"old": 7} and new.main.chunks[0].values == {"new": 9}


def test_object_link_chunk_of_an_old_pocs_link_uses_the_old_layout():
    """The shipped 0A014002: a bool in CScenePocLink (stored 0A00F002); an id and two
    bools in CSceneObjectLink."""
    old = walk_body(node_body([(OLD | 0x002, u32(1), False)]), class_id=OLD, num_nodes=1)
    assert old.status == "complete", old.error
    assert list(old.main.chunks[0].values.values()) == [True]
    new_data = u32(3, 0x40000000, 4) + b"Tree" + u32(0, 1)
    new = walk_body(node_body([(NEW | 0x002, new_data, False)]), class_id=NEW, num_nodes=1)
    assert new.status == "complete", new.error
    assert new.main.chunks[0].values["mobilTreeId"] == "Tree"
