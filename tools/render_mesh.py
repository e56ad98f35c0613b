#!/usr/bin/env python3
"""A headless, flat-shaded picture of a mesh.glb (Pillow, painter's order), to look
at an export without a 3D program: `tools/render_mesh.py IN.glb OUT.png`.
Needs the test extras (trimesh, numpy). Y is up, as in the exports
(docs/formats/exports.md); both sides of a triangle are lit, since the game's
winding is kept as stored."""
from __future__ import annotations

import sys

import numpy as np
import trimesh
from PIL import Image, ImageDraw

SIZE = 900
YAW, PITCH = np.radians(35), np.radians(30)
LIGHT = np.array([0.3, 0.8, 0.5]) / np.linalg.norm([0.3, 0.8, 0.5])
COLOUR = np.array([90, 140, 200])


def render(src: str, out: str) -> tuple[int, int]:
    scene = trimesh.load(src, process=False)
    mesh = trimesh.util.concatenate(list(scene.dump()))
    v, f = mesh.vertices, mesh.faces
    turn = np.array([[np.cos(YAW), 0, np.sin(YAW)], [0, 1, 0], [-np.sin(YAW), 0, np.cos(YAW)]])
    tilt = np.array([[1, 0, 0], [0, np.cos(PITCH), -np.sin(PITCH)], [0, np.sin(PITCH), np.cos(PITCH)]])
    p = (v - (v.max(0) + v.min(0)) / 2) @ turn.T @ tilt.T
    scale = 0.9 * SIZE / max(np.ptp(p[:, 0]), np.ptp(p[:, 1]), 1e-9)
    xy = np.stack([SIZE / 2 + p[:, 0] * scale, SIZE / 2 - p[:, 1] * scale], 1)
    tri = p[f]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-12
    shade = 0.25 + 0.75 * np.abs(normal @ LIGHT)
    img = Image.new("RGB", (SIZE, SIZE), (245, 245, 240))
    draw = ImageDraw.Draw(img)
    for i in np.argsort(tri[:, :, 2].mean(1)):          # farthest first
        fill = tuple(int(x) for x in COLOUR * shade[i])
        draw.polygon([tuple(xy[j]) for j in f[i]], fill=fill, outline=tuple(int(x * 0.8) for x in fill))
    img.save(out)
    return len(v), len(f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tools/render_mesh.py IN.glb OUT.png")
    print("%d vertices, %d triangles" % render(sys.argv[1], sys.argv[2]))
