"""Every `$ command` of the README's console examples runs as printed, in a new
HOME with the gbxfs command on PATH (what scripts/setup gives a login shell),
exits 0 and prints what the README shows under it: compared word by word (a
terminal's `ls` prints columns, a pipe one name a line), `...` standing for any
words, /home/you for HOME. The examples on public files get the corpus folders
mounted where the README says they are."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mountkit import find_mount

pytestmark = [pytest.mark.mount, pytest.mark.corpus]
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# the README's public examples: where they are mounted, from which corpus folder
PUBLIC = {
    "tm/Meshes": "maniaplanet+game-modes/Titles/SMStormCombo@nadeolabs/Items/Storm/MeleeUltimate/Meshes",
    "tm/Items": "SM-Obstacle+Titlepack/Blocks/Common/ObstacleSignsNormal/White",
    "tm/Replays": "adrien-obrecht+GbxParser/Benchmark/Replays",
}


def console_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    """Per ```console block: (command, the lines printed under it)."""
    blocks = []
    for body in re.findall(r"^```console\n(.*?)^```", text, re.S | re.M):
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((re.sub(r"\s{2,}#.*$", "", line[2:]), []))
            elif not re.match(r"\s+#", line):       # a comment continued under the command's
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def shows(printed: str, expected: list[str], home: Path) -> bool:
    words = " ".join(expected).replace("/home/you", str(home)).split()
    pattern = r"\s+".join(".*?" if w == "..." else re.escape(w) for w in words)
    return re.fullmatch(pattern, " ".join(printed.split()), re.S) is not None


def test_the_readme_console_examples_run_as_printed(mounter, corpus, tmp_path):
    if not (BIN / "gbxfs").exists():
        pytest.skip(f"{BIN / 'gbxfs'} is not installed (scripts/setup)")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": f"{BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    mounter.mountpoints += [str(home / "tm")] + [str(home / mp) for mp in PUBLIC]
    blocks = console_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 3 and all(blocks)
    for steps in blocks:
        public = any("~/tm/Meshes" in cmd for cmd, _ in steps)
        if public:
            for mp, folder in PUBLIC.items():
                (home / mp).mkdir(parents=True)
                mounter.mount(corpus / folder, mountpoint=str(home / mp))
        for cmd, expected in steps:
            res = subprocess.run(["bash", "-c", cmd], env=env, cwd=home, capture_output=True, text=True,
                                 timeout=120, stdin=subprocess.DEVNULL)
            assert res.returncode == 0, (cmd, res.stderr)
            assert shows(res.stdout + res.stderr, expected, home), (cmd, expected, res.stdout + res.stderr)
        if public:
            for mp in PUBLIC:
                subprocess.run([BIN / "gbxfs", "umount", home / mp], capture_output=True, timeout=120)
        assert find_mount(str(home / "tm")) is None, steps[-1][0]
