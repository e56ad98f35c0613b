"""gbxfs thumbnail: a PNG of a GBX file's thumbnail or icon, or of a .dds texture.

A map's thumbnail (upright), an item's or block's icon, a replay's map thumbnail;
any image Pillow reads (DDS with the pixel formats Pillow decodes, JPEG, WebP,
PNG). A picture that cannot be decoded is an error with the reason, never a
wrong picture.

Exit codes: 0 written; 2 usage; 3 IN not found; 4 no picture in IN, or it
cannot be decoded.
"""
from __future__ import annotations

import argparse
import os
import sys

from gbxfs.cli.exits import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.picture import gbx_png
from gbxfs.formats.image import ImageError, to_png

MAX_INPUT = 1 << 30
GBX_MAGIC = b"GBX"


def picture_png(data: bytes, size: int | None) -> bytes:
    """The PNG for a file's bytes: a GBX file's picture, else the image itself."""
    if data[:3] == GBX_MAGIC:
        return gbx_png(data, size=size)
    return to_png(data, size=size)


def main(argv: list[str]) -> int:
    """Write a PNG of a .Gbx thumbnail or icon, or of a .dds texture."""
    p = argparse.ArgumentParser(prog="gbxfs thumbnail", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("input", metavar="IN", help="a .Gbx file (map, replay, item, block) or an image (.dds, ...)")
    p.add_argument("output", metavar="OUT", help="the PNG to write ('-' for standard output)")
    p.add_argument("-s", "--size", type=int, default=None,
                   help="at most SIZE pixels on the longer side (kept proportions); default: as stored")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_OK if e.code == 0 else EXIT_USAGE
    if args.size is not None and args.size < 1:
        print("gbxfs thumbnail: --size must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    try:
        if os.path.getsize(args.input) > MAX_INPUT:
            print(f"gbxfs thumbnail: {args.input}: larger than {MAX_INPUT >> 20} MiB", file=sys.stderr)
            return EXIT_BAD_INPUT
        with open(args.input, "rb") as f:
            data = f.read()
    except OSError as e:
        print(f"gbxfs thumbnail: {args.input}: {e.strerror or e}", file=sys.stderr)
        return EXIT_NOT_FOUND
    try:
        png = picture_png(data, args.size)
    except (GbxError, ImageError) as e:
        print(f"gbxfs thumbnail: {args.input}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.output == "-":
        sys.stdout.buffer.write(png)
        sys.stdout.buffer.flush()
        return EXIT_OK
    # written in place, not renamed over: a thumbnail service may hand over an
    # output file it holds open and read the PNG back through that descriptor
    opened = False
    try:
        with open(args.output, "wb") as f:
            opened = True
            f.write(png)
    except OSError as e:
        print(f"gbxfs thumbnail: {args.output}: {e.strerror or e}", file=sys.stderr)
        if opened:
            try:
                os.unlink(args.output)      # never leave half a PNG
            except OSError:
                pass
        return EXIT_NOT_FOUND
    return EXIT_OK
