"""Placements: the game's iso4 (a 3x3 rotation row by row, then a translation: 12
floats) and a prefab's rotation quaternion (x, y, z, w) plus position, as 3x4
matrices. The row reading of iso4 is the one that puts the parts of the corpus
solids inside their block (e.g. the TMF solid's lamp-post rail, stored along -x and
turned a quarter about Y, lands along the road, not 40 m beside it)."""
from __future__ import annotations

from ..errors import GbxError
from .model import Vec3

Affine = tuple[tuple[float, float, float, float], ...]   # 3 rows: (a, b, c, t)
IDENTITY: Affine = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0))


def from_iso4(m) -> Affine:
    """p'x = xx*x + xy*y + xz*z + tx, and so on for y and z."""
    if m is None or len(m) != 12:
        raise GbxError(f"location: expected 12 floats, got {None if m is None else len(m)}")
    xx, xy, xz, yx, yy, yz, zx, zy, zz, tx, ty, tz = (float(v) for v in m)
    return ((xx, xy, xz, tx), (yx, yy, yz, ty), (zx, zy, zz, tz))


def from_quat(q, p) -> Affine:
    x, y, z, w = (float(v) for v in q)
    n = x * x + y * y + z * z + w * w
    s = 2.0 / n if n > 0 else 0.0
    return ((1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w), float(p[0])),
            (s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w), float(p[1])),
            (s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y), float(p[2])))


def compose(outer: Affine, inner: Affine) -> Affine:
    """outer after inner."""
    rows = []
    for r in outer:
        rows.append(tuple(r[0] * inner[0][j] + r[1] * inner[1][j] + r[2] * inner[2][j] + (r[3] if j == 3 else 0.0)
                          for j in range(4)))
    return tuple(rows)  # type: ignore[arg-type]  # four rows of four numbers, which tuple() cannot tell


def apply(m: Affine, pts: list[Vec3]) -> list[Vec3]:
    if m == IDENTITY:
        return pts
    (a, b, c, d), (e, f, g, h), (i, j, k, t) = m
    return [(a * x + b * y + c * z + d, e * x + f * y + g * z + h, i * x + j * y + k * z + t) for x, y, z in pts]
