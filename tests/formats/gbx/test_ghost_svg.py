"""ghost.svg: every corpus ghost's path drawn from above, coloured by speed, with
its checkpoints, a scale bar and a legend, a few hundred KB at most."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from ghost_corpus import parsed

from gbxfs.formats.gbx.ghost.model import GhostSample, GhostTrack
from gbxfs.formats.gbx.ghost.svg import MAX_POINTS, render_svg

SVG = "{http://www.w3.org/2000/svg}"
LIMIT = 300_000


def _track(n: int) -> GhostTrack:
    """A spiral driven faster and faster, one sample every 10 ms."""
    samples = []
    for i in range(n):
        a = i / 50
        samples.append(GhostSample(i * 10, (math.cos(a) * (100 + i / 10), 5.0, math.sin(a) * (100 + i / 10)),
                                   (0.0, 0.0, 0.0, 1.0), i / n * 100, (0.0, 0.0, 0.0)))
    return GhostTrack("test", samples)


def _points(root) -> list[list[tuple[float, float]]]:
    return [[tuple(map(float, p.split(","))) for p in pl.get("points").split()] for pl in root.iter(SVG + "polyline")]


def test_long_track_stays_small_and_colours_by_speed():
    data = render_svg(_track(100_000), checkpoints_ms=[200_000, 500_000, 999_990], title="spiral")
    assert len(data) < LIMIT
    root = ET.fromstring(data)
    runs = _points(root)
    assert sum(len(r) for r in runs) <= MAX_POINTS + len(runs)
    colours = [pl.get("stroke") for pl in root.iter(SVG + "polyline")]
    hues = [int(re.match(r"hsl\((\d+),", c).group(1)) for c in colours]
    assert hues == sorted(hues, reverse=True) and hues[0] > 200 and hues[-1] < 20   # slow blue .. fast red
    labels = [t.text for t in root.iter(SVG + "text")]
    assert ["start", "CP1", "CP2", "finish"] == [x for x in labels if x in ("start", "CP1", "CP2", "finish")]
    assert "0 km/h" in labels and "360 km/h" in labels and any(x.endswith(" m") for x in labels)


def test_scale_bar_length_matches_the_drawing():
    root = ET.fromstring(render_svg(_track(2000)))
    runs = _points(root)
    xs = [p[0] for r in runs for p in r]
    track = _track(2000)
    span_m = max(s.position[0] for s in track.samples) - min(s.position[0] for s in track.samples)
    scale = (max(xs) - min(xs)) / span_m           # pixels per metre
    bar = next(p for p in root.iter(SVG + "path"))
    length_px = float(re.search(r"h([\d.]+)", bar.get("d")).group(1))
    metres = float(next(t.text for t in root.iter(SVG + "text") if t.text.endswith(" m"))[:-2])
    assert abs(length_px - metres * scale) < 0.2


def test_no_samples():
    assert b"no path: 0 samples" in render_svg(None)


@pytest.mark.corpus
def test_every_corpus_ghost(corpus):
    seen = 0
    for row, _, ghosts in parsed():
        for gh in ghosts:
            if gh.track is None or len(gh.track.samples) < 2:
                continue
            cps = gh.facts.get("checkpoints_ms") or []
            data = render_svg(gh.track, checkpoints_ms=cps, title=row["path"])
            assert len(data) < LIMIT, row["path"]
            root = ET.fromstring(data)
            runs = _points(root)
            assert runs and sum(len(r) for r in runs) <= min(len(gh.track.samples), MAX_POINTS) + len(runs)
            valid = [t for t in cps if t is not None and 0 <= t < 0xFFFFFFFF]
            assert len(list(root.iter(SVG + "circle"))) == 1 + len(valid), row["path"]
            speeds = [s.speed for s in gh.track.samples]
            if len(speeds) <= MAX_POINTS:
                labels = {t.text for t in root.iter(SVG + "text")}
                assert f"{min(speeds) * 3.6:.0f} km/h" in labels and f"{max(speeds) * 3.6:.0f} km/h" in labels
            seen += 1
    assert seen >= 40
