"""A directory of thousands of entries through the kernel: readdirplus
resumes from the offsets gbxfs hands out, nothing skipped or repeated."""
from __future__ import annotations

import os
import subprocess
import tempfile

import pytest

pytestmark = pytest.mark.mount

N = 4000


@pytest.fixture
def big_source(tmp_path):
    # tmpfs when there is one: creating thousands of files on a slow disk takes seconds
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else str(tmp_path)
    with tempfile.TemporaryDirectory(dir=base, prefix="gbxfs-bigdir-") as d:
        sub = os.path.join(d, "many")
        os.mkdir(sub)
        for i in range(N):
            with open(os.path.join(sub, f"entry-with-a-longish-name-{i:05}.txt"), "wb") as f:
                f.write(b"x" * (i % 7))
        yield d


def test_thousands_of_entries(mounter, big_source):
    mp = mounter.mount(big_source)
    names = os.listdir(os.path.join(mp, "many"))
    assert len(names) == len(set(names)) == N
    assert sorted(names) == sorted(os.listdir(os.path.join(big_source, "many")))
    out = subprocess.run(["ls", "-la", os.path.join(mp, "many")], capture_output=True, text=True, timeout=60)
    lines = out.stdout.splitlines()[1:]            # after "total"
    assert [line.split()[-1] for line in lines[:2]] == [".", ".."]
    assert len(lines) == N + 2
    sizes = {line.split()[-1]: int(line.split()[4]) for line in lines[2:]}
    assert all(sizes[f"entry-with-a-longish-name-{i:05}.txt"] == i % 7 for i in range(0, N, 97))
