"""ghost.svg: a ghost's path seen from above, coloured by speed, with its
checkpoints, a scale bar and a legend.

The view looks down the game's Y axis: x to the right, z down the page (what a
right-handed, Y-up world shows from above). The path is cut into runs of samples
whose speed falls in the same of SPEED_BINS colour bands, one polyline each, and
holds at most MAX_POINTS samples (evenly kept), so the file stays small (tens of
KB for a long run) whatever the recording rate.
"""
from __future__ import annotations

import bisect
import math

from .model import GhostTrack

WIDTH, HEIGHT, MARGIN, LEGEND_H = 800, 600, 40, 60
SPEED_BINS = 24
MAX_POINTS = 6000
KMH = 3.6


def _colour(t: float) -> str:
    """Slow blue through green and yellow to fast red (t in 0..1)."""
    hue = 240 * (1 - max(0.0, min(1.0, t)))
    return f"hsl({hue:.0f},90%,45%)"


def _nice(length: float) -> float:
    """The largest 1, 2 or 5 times a power of ten not above `length`."""
    if length <= 0:
        return 1.0
    p = 10 ** math.floor(math.log10(length))
    return max(m * p for m in (1, 2, 5) if m * p <= length)


def _kept(n: int) -> list[int]:
    if n <= MAX_POINTS:
        return list(range(n))
    step = (n - 1) / (MAX_POINTS - 1)
    return sorted({round(i * step) for i in range(MAX_POINTS)})


def render_svg(track: GhostTrack | None, *, checkpoints_ms: list[int] | None = None, title: str = "") -> bytes:
    # imported here: the xml package pulls in urllib and email (about 20 ms), which
    # `gbxfs info` and a mount's start would otherwise pay for a file they never render
    from xml.sax.saxutils import escape

    samples = track.samples if track is not None else []
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT + LEGEND_H}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT + LEGEND_H}" font-family="sans-serif" font-size="12">',
            '<rect width="100%" height="100%" fill="white"/>']
    if title:
        head.append(f'<title>{escape(title)}</title><text x="{MARGIN}" y="20">{escape(title)}</text>')
    if len(samples) < 2:
        head.append(f'<text x="{MARGIN}" y="{HEIGHT // 2}">no path: {len(samples)} samples</text></svg>')
        return "\n".join(head).encode("utf-8")
    idx = _kept(len(samples))
    pts = [(samples[i].position[0], samples[i].position[2]) for i in idx]
    speeds = [samples[i].speed for i in idx]
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    z0, z1 = min(p[1] for p in pts), max(p[1] for p in pts)
    span = max(x1 - x0, z1 - z0, 1e-6)
    scale = min((WIDTH - 2 * MARGIN) / max(x1 - x0, span * 1e-3), (HEIGHT - 2 * MARGIN) / max(z1 - z0, span * 1e-3))

    def xy(p):
        return f"{MARGIN + (p[0] - x0) * scale:.1f},{MARGIN + (p[1] - z0) * scale:.1f}"

    lo, hi = min(speeds), max(speeds)
    band = [min(SPEED_BINS - 1, int((s - lo) / (hi - lo) * SPEED_BINS)) if hi > lo else 0 for s in speeds]
    body = ['<g fill="none" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">']
    start = 0
    for i in range(1, len(pts) + 1):
        if i == len(pts) or band[i] != band[start]:
            run = pts[start:i + 1] if i < len(pts) else pts[start:i]
            if len(run) >= 2:
                colour = _colour((band[start] + 0.5) / SPEED_BINS)
                body.append(f'<polyline stroke="{colour}" points="{" ".join(xy(p) for p in run)}"/>')
            start = i
    body.append("</g>")
    times = [samples[i].time_ms for i in idx]
    marks = [("start", pts[0])]
    checkpoints = checkpoints_ms or []
    for k, t in enumerate(checkpoints):
        if t is None or t < 0 or t >= 0xFFFFFFFF:
            continue
        j = min(bisect.bisect_left(times, t), len(times) - 1)
        last = k == len(checkpoints) - 1
        marks.append(("finish" if last else f"CP{k + 1}", pts[j]))
    for label, p in marks:
        cx, cy = xy(p).split(",")
        body.append(f'<circle cx="{cx}" cy="{cy}" r="5" fill="white" stroke="black" stroke-width="1.5"/>'
                    f'<text x="{float(cx) + 7:.1f}" y="{float(cy) - 7:.1f}">{escape(label)}</text>')
    # scale bar: a round length near a fifth of the width
    metres = _nice((WIDTH - 2 * MARGIN) / 5 / scale)
    y = HEIGHT + 15
    bar = metres * scale
    body.append(f'<path d="M{MARGIN},{y} h{bar:.1f}" stroke="black" stroke-width="3"/>'
                f'<text x="{MARGIN}" y="{y + 16}">{metres:g} m</text>')
    # legend: the speed bands from slow to fast, in km/h
    lx, lw = WIDTH - MARGIN - 240, 240
    body += [f'<rect x="{lx + k * lw / SPEED_BINS:.1f}" y="{y - 8}" width="{lw / SPEED_BINS + 0.5:.1f}" height="10" '
             f'fill="{_colour((k + 0.5) / SPEED_BINS)}"/>' for k in range(SPEED_BINS)]
    body.append(f'<text x="{lx}" y="{y + 16}">{lo * KMH:.0f} km/h</text>'
                f'<text x="{lx + lw}" y="{y + 16}" text-anchor="end">{hi * KMH:.0f} km/h</text>'
                f'<text x="{lx + lw / 2}" y="{y + 16}" text-anchor="middle">speed</text>')
    return "\n".join(head + body + ["</svg>"]).encode("utf-8")
