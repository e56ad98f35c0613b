"""`gbxfs coverage DIR`: the per-kind, per-generation table over hand-built files (with
and without a MANIFEST.tsv), its Markdown and JSON forms, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

from gbxfs.formats.gbx.writer import END, W, build_gbx

from gbxfs.cli import EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, main


MAP, REPLAY = 0x03043000, 0x03093000


def tm_desc(version: int) -> bytes:
    """Header chunk 03043002 of the given version (enough for generation inference)."""
    w = W().u8(version)
    if version < 3:
        w.id("uid").id("Stadium").id("me").string("name")
    w.bool(False)
    for t in (4000, 3000, 2000, 1000):
        w.i32(t)
    if version >= 4:
        w.u32(100)
    if version >= 5:
        w.bool(False)
    if version >= 7:
        w.u32(0)
    if version >= 9:
        w.u32(0)
    if version >= 10:
        w.i32(1000)
    if version >= 11:
        w.u32(0)
    return w.bytes()


def gbx_file(class_id: int, body_chunks: bytes = b"", header: list | None = None) -> bytes:
    return build_gbx(class_id=class_id, header_chunks=header or [], body=body_chunks + W().u32(END).bytes())


def make_tree(root: Path, manifest: bool) -> None:
    (root / "a").mkdir()
    # complete: a Forever map (TmDesc version 11) whose body is just the end marker
    (root / "a" / "ok.Challenge.Gbx").write_bytes(gbx_file(MAP, header=[(0x03043002, tm_desc(11), False)]))
    # not complete: an undeclared non-skippable chunk in a TM 1.0 map (TmDesc version 3)
    (root / "a" / "bad.Challenge.Gbx").write_bytes(
        gbx_file(MAP, W().u32(0x03043FFF).u32(1).bytes(), header=[(0x03043002, tm_desc(3), False)]))
    # a replay without header chunks: generation unknown unless a manifest says it
    (root / "r.Replay.Gbx").write_bytes(gbx_file(REPLAY))
    # not GBX: left out
    (root / "notes.txt").write_text("hello")
    if manifest:
        (root / "MANIFEST.tsv").write_text(
            "path\tsize\tsha256\tkind\tsource_repo\tsource_commit\tsource_path\tformat\tnotes\n"
            "r.Replay.Gbx\t0\t-\treplay\t-\t-\t-\t-\tgame≈TM Sunrise (from path)\n", encoding="utf-8")


def run(capsys, *args) -> tuple[int, str]:
    code = main(["coverage", *args])
    return code, capsys.readouterr().out


def rows_of(out: str) -> dict[tuple[str, str], tuple[int, int]]:
    rows = {}
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 4 and parts[-2].isdigit():
            done, total = int(parts[-3]), int(parts[-2])
            rows[(parts[0], " ".join(parts[1:-3]))] = (done, total)
    return rows


def test_table_without_manifest_infers_kind_and_generation(tmp_path, capsys):
    make_tree(tmp_path, manifest=False)
    code, out = run(capsys, str(tmp_path))
    assert code == EXIT_OK
    rows = rows_of(out)
    assert rows[("map", "TM 1.0")] == (0, 1)
    assert rows[("map", "TM Forever")] == (1, 1)
    assert rows[("map", "all")] == (1, 2)
    assert rows[("replay", "unknown")] == (1, 1)
    assert not any(k[0] in ("item", "ghost") for k in rows)


def test_manifest_notes_give_the_generation(tmp_path, capsys):
    make_tree(tmp_path, manifest=True)
    rows = rows_of(run(capsys, str(tmp_path))[1])
    assert rows[("replay", "TM Sunrise")] == (1, 1)
    assert ("replay", "unknown") not in rows


def test_markdown_and_json_forms(tmp_path, capsys):
    make_tree(tmp_path, manifest=False)
    code, md = run(capsys, "--markdown", str(tmp_path))
    assert code == EXIT_OK
    assert md.splitlines()[0].startswith("| kind | generation |")
    assert "| map | TM Forever | 1 / 1 | 100% |" in md
    code, js = run(capsys, "--json", str(tmp_path))
    entries = {e["path"]: e for e in json.loads(js)}
    assert set(entries) == {"a/ok.Challenge.Gbx", "a/bad.Challenge.Gbx", "r.Replay.Gbx"}
    bad = entries["a/bad.Challenge.Gbx"]
    assert bad["status"] == "failed" and "03043FFF" in bad["status_reason"]    # its first chunk is unknown


def test_failures_listing(tmp_path, capsys):
    make_tree(tmp_path, manifest=False)
    out = run(capsys, "--failures", str(tmp_path))[1]
    failing = [line for line in out.splitlines() if line.startswith(("partial", "failed"))]
    assert len(failing) == 1 and "a/bad.Challenge.Gbx" in failing[0]
    md = run(capsys, "--markdown", "--failures", str(tmp_path))[1]
    items = [line for line in md.splitlines() if line.startswith("- ")]
    assert len(items) == 1 and "`a/bad.Challenge.Gbx`" in items[0] and "03043FFF" in items[0]
    assert md.index("| map | **all** |") < md.index(items[0])


def test_exit_codes(tmp_path, capsys):
    assert run(capsys, str(tmp_path / "missing"))[0] == EXIT_NOT_FOUND
    assert run(capsys)[0] == EXIT_USAGE


def test_unreadable_files_are_skipped_with_a_message(capsys):
    # /proc/self holds files that refuse every read (attr/current: EINVAL): one of
    # them used to stop the whole scan with an internal error (exit 70)
    assert main(["coverage", "/proc/self"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("kind ") and "gbxfs: skipped attr/current: " in err
    assert "internal error" not in err
