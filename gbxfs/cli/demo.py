"""gbxfs demo [MOUNTPOINT]: build a small demo Packs folder and mount it in
the foreground, printing what to try; Ctrl-C (or SIGTERM) unmounts and
removes what the demo made."""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile

from gbxfs.cli.exits import EXIT_OK, EXIT_USAGE

CLIP = "Demo.pak/Demo/Media/Clips/Intro0.Clip.Gbx"
MAP = "DemoMap.Challenge.Gbx"


def what_to_try(mp: str, packs: str, gbx_mode: str = "folder") -> str:
    q = shlex.quote
    if gbx_mode == "file":      # GBX files are plain files: the CLI shows their folders
        gbx = f"""  gbxfs cat {q(mp + '/' + MAP + '/header/03043002.TmDesc.txt')}
  gbxfs thumbnail {q(mp + '/' + MAP)} ~/gbxfs-demo-thumbnail.png
  gbxfs ls {q(mp + '/' + CLIP + '/body/nodes')}
  cp -r {q(mp + '/Demo.pak')} ~/gbxfs-demo-copy"""
    else:
        gbx = f"""  cat {q(mp + '/' + MAP + '/header/03043002.TmDesc.txt')}
  file {q(mp + '/' + MAP + '/thumbnail.jpg')}
  ls {q(mp + '/' + CLIP + '/body/nodes')}
  grep -r authorTime {q(mp)}
  cp -r {q(mp + '/Demo.pak')} ~/gbxfs-demo-copy
  getfattr -d {q(mp + '/' + MAP)}"""
    return f"""
gbxfs demo: {packs} is mounted on {mp}
Try, in another terminal:
  ls -l {q(mp)}
  ls -lR {q(mp + '/Demo.pak')}
{gbx}
  gbxfs ls {q(packs + '/' + CLIP)}
Ctrl-C here unmounts.
"""


def main(argv: list[str]) -> int:
    """Build a small demo Packs folder and mount it (foreground)."""
    p = argparse.ArgumentParser(prog="gbxfs demo", description=main.__doc__)
    p.add_argument("mountpoint", nargs="?", help="where to mount (default: a new temporary folder)")
    p.add_argument("--build-only", metavar="DIR", help="only write the demo Packs folder into DIR")
    p.add_argument("-o", dest="options", action="append", default=[], help="mount options, as for mount")
    args = p.parse_args(argv)

    from gbxfs.cli.demo_files import build_demo

    if args.build_only:
        print(build_demo(args.build_only))
        return EXIT_OK

    from gbxfs.cli.mount import run_mount
    from gbxfs.fuse.options import OptionError, parse_options

    try:
        opts = parse_options(args.options)
    except OptionError as e:
        print(f"gbxfs: {e}", file=sys.stderr)
        return EXIT_USAGE
    work = tempfile.mkdtemp(prefix="gbxfs-demo-")
    try:
        packs = str(build_demo(work))
        # a MOUNTPOINT given that does not exist is made and removed by run_mount, as for mount
        mp = args.mountpoint or os.path.join(work, "mnt")

        def ready() -> None:
            print(what_to_try(mp, packs, opts.gbx_mode), flush=True)

        return run_mount(packs, mp, opts, foreground=True, on_ready=ready)
    finally:
        shutil.rmtree(work, ignore_errors=True)
