"""gbxfs demo: the demo folder is real content the views decode completely
(the command itself is tested with a real mount in tests/fuse/test_demo_mount.py)."""
from __future__ import annotations

import io
import os

from gbxfs.cli.demo_files import AUTHOR_TIME, build_demo
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve


def _text(tree, path):
    f = resolve(tree, path)
    return f.read(0, f.size()).decode()


def test_demo_folder_decodes_completely(tmp_path):
    packs = build_demo(tmp_path)
    assert sorted(os.listdir(packs)) == ["Demo.pak", "DemoMap.Challenge.Gbx", "packlist.dat"]
    tree = build_tree(str(packs))
    clips = resolve(tree, "Demo.pak/Demo/Media/Clips").children()
    assert sorted(clips) == ["Intro0.Clip.Gbx", "Intro1.Clip.Gbx", "Intro2.Clip.Gbx"]
    for name in clips:
        info = _text(tree, f"Demo.pak/Demo/Media/Clips/{name}/info.txt")
        assert "body_status = complete" in info and "class_name = CGameCtnMediaClip" in info
    nodes = resolve(tree, "Demo.pak/Demo/Media/Clips/Intro1.Clip.Gbx/body/nodes").children()
    assert len(nodes) == 5
    for i in range(3):
        tex = resolve(tree, f"Demo.pak/Demo/Media/Textures/Sky{i}.dds")
        side = 16 << i
        assert tex.size() == 128 + 4 * side * side and tex.read(0, 4) == b"DDS "
    desc = _text(tree, "DemoMap.Challenge.Gbx/header/03043002.TmDesc.txt")
    assert f"authorTime = {AUTHOR_TIME}" in desc.splitlines()
    assert "body_status = complete" in _text(tree, "DemoMap.Challenge.Gbx/info.txt")


def test_demo_thumbnail_is_shown_upright(tmp_path):
    from PIL import Image
    tree = build_tree(str(build_demo(tmp_path)))
    jpg = resolve(tree, "DemoMap.Challenge.Gbx/thumbnail.jpg")
    with Image.open(io.BytesIO(jpg.read(0, jpg.size()))) as im:
        r, g, b = im.convert("RGB").getpixel((im.width // 8, im.height // 3))   # sky
        assert b > 180 and b > r
        r, g, b = im.convert("RGB").getpixel((im.width // 10, im.height * 15 // 16))  # grass
        assert g > 120 and g > r and g > b
