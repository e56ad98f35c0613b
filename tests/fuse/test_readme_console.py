"""Every `$ command` of the README's console examples runs as printed, in a new
HOME with the gbxfs command on PATH (what scripts/setup gives a login shell),
exits 0 and prints what the README shows under it: compared word by word (a
terminal's `ls` prints columns, a pipe one name a line), `...` standing for any
words, /home/you for HOME. The examples on public files get the corpus folders
copied into one folder and mounted on ~/tm, as the README says."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mountkit import find_mount

pytestmark = [pytest.mark.mount, pytest.mark.corpus]
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# the README's public examples: the folder of the mount they are in, from which corpus folder
PUBLIC = {
    "Meshes": "maniaplanet+game-modes/Titles/SMStormCombo@nadeolabs/Items/Storm/MeleeUltimate/Meshes",
    "Items": "SM-Obstacle+Titlepack/Blocks/Common/ObstacleSignsNormal/White",
    "Replays": "adrien-obrecht+GbxParser/Benchmark/Replays",
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
    mounter.mountpoints.append(str(home / "tm"))
    blocks = console_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 3 and all(blocks)
    for steps in blocks:
        public = any("~/tm/Meshes" in cmd for cmd, _ in steps)
        if public:
            for name, folder in PUBLIC.items():     # plain copies: the corpus's read-only modes not kept
                shutil.copytree(corpus / folder, tmp_path / "public" / name, copy_function=shutil.copyfile)
                for sub in [tmp_path / "public" / name, *(tmp_path / "public" / name).rglob("*")]:
                    sub.chmod(0o755 if sub.is_dir() else 0o644)
            mounter.mount(tmp_path / "public", mountpoint=str(home / "tm"))
        for cmd, expected in steps:
            res = subprocess.run(["bash", "-c", cmd], env=env, cwd=home, capture_output=True, text=True,
                                 timeout=120, stdin=subprocess.DEVNULL)
            assert res.returncode == 0, (cmd, res.stderr)
            assert shows(res.stdout + res.stderr, expected, home), (cmd, expected, res.stdout + res.stderr)
        if public:
            subprocess.run([BIN / "gbxfs", "umount", home / "tm"], capture_output=True, timeout=120)
        assert find_mount(str(home / "tm")) is None, steps[-1][0]
