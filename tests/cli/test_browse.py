"""gbxfs ls / cat: the tree without FUSE, into paks and GBX folders."""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys

import pytest

GBXFS = [sys.executable, "-m", "gbxfs"]
CLIP = "Sample.pak/Sample/Media/Clips/Clip0.Clip.Gbx"


def run(*args, text=True):
    return subprocess.run([*GBXFS, *args], capture_output=True, text=text, timeout=60)


@pytest.fixture
def packs(corpus, tmp_path):
    dest = tmp_path / "Packs"
    shutil.copytree(corpus / "synthetic-pak" / "Packs", dest)
    return dest


def _expected(corpus):
    rows = (corpus / "synthetic-pak" / "expected.tsv").read_text().splitlines()[1:]
    return {r.split("\t")[1]: (int(r.split("\t")[2]), r.split("\t")[3]) for r in rows}


def test_ls_real_folder_and_inside_a_pak(packs, corpus):
    res = run("ls", str(packs))
    assert res.returncode == 0 and res.stdout.split() == ["Sample.pak/", "packlist.dat"]
    res = run("ls", "-l", str(packs / "Sample.pak/Sample/Media/Textures"))
    assert res.returncode == 0
    sizes = {line.split()[-1]: int(line.split()[1]) for line in res.stdout.splitlines()}
    want = {p.rsplit("/", 1)[1]: s for p, (s, _) in _expected(corpus).items() if "/Textures/" in p}
    assert sizes == want


def test_ls_and_cat_inside_a_gbx_folder_inside_a_pak(packs, corpus):
    res = run("ls", str(packs / CLIP))
    assert res.returncode == 0
    names = res.stdout.split()
    assert {"original.gbx", "info.txt", "header/", "body/"} <= set(names)
    res = run("cat", str(packs / CLIP / "original.gbx"), text=False)
    assert res.returncode == 0
    size, sha = _expected(corpus)["Sample/Media/Clips/Clip0.Clip.Gbx"]
    assert len(res.stdout) == size and hashlib.sha256(res.stdout).hexdigest() == sha
    info = run("cat", str(packs / CLIP / "info.txt"))
    assert info.returncode == 0 and info.stdout


def test_gbx_file_mode_shows_plain_files(packs, corpus):
    res = run("cat", "--gbx", "file", str(packs / "Sample.pak/Sample/Media/Clips/Clip1.Clip.Gbx"), text=False)
    size, sha = _expected(corpus)["Sample/Media/Clips/Clip1.Clip.Gbx"]
    assert res.returncode == 0 and hashlib.sha256(res.stdout).hexdigest() == sha


def test_errors_and_exit_codes(packs, tmp_path):
    missing = run("cat", str(packs / "Sample.pak/Sample/Nope.txt"))
    assert missing.returncode == 3 and "no such file" in missing.stderr
    under_file = run("ls", str(packs / "packlist.dat/x"))
    assert under_file.returncode == 3 and "not a directory" in under_file.stderr
    a_dir = run("cat", str(packs / "Sample.pak"))
    assert a_dir.returncode == 2 and "is a directory" in a_dir.stderr
    # a pak whose key is unknown: its folder explains, nothing crashes
    lonely = tmp_path / "Lonely"
    lonely.mkdir()
    shutil.copy(packs / "Sample.pak", lonely / "Sample.pak")
    res = run("ls", str(lonely / "Sample.pak"))
    assert res.returncode == 0 and "error.txt" in res.stdout.split()


def test_cat_of_an_unverifiable_entry_is_bad_input(tmp_path):
    from gbxfs.formats.pak import packlist
    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.writer import PakFile, make_key_string, write_packs
    ks = make_key_string("p")
    paths = write_packs(tmp_path, {"P": [PakFile("P/a.bin", bytes(range(256)) * 64)]}, key_strings={"P": ks})
    data = bytearray(paths["P"].read_bytes())
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), packlist.derive_key(ks))
    rec = arc.files[0]
    data[arc.header.data_offset + rec.offset + 8 + rec.stored_size // 2] ^= 0xFF
    paths["P"].write_bytes(bytes(data))
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve
    entry = resolve(build_tree(str(tmp_path)), "P.pak/P/a.bin")
    with pytest.raises(OSError):
        entry.read(0, entry.size())        # the corruption really is in that entry
    res = run("cat", str(tmp_path / "P.pak/P/a.bin"))
    assert res.returncode == 4 and "cannot be read" in res.stderr
