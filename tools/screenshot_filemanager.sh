#!/usr/bin/env bash
# Screenshots of a real file manager under Xvfb, in one of two modes:
#
#   bash tools/screenshot_filemanager.sh [OUT.png]
#       a gbxfs mount: pcmanfm on the demo Packs folder, opened at the demo map's
#       GBX folder (icon view, so thumbnail.jpg shows as its picture)
#
#   bash tools/screenshot_filemanager.sh --previews [--fm thunar|pcmanfm] [OUT.png]
#       `gbxfs install-thumbnailer`: a folder of corpus maps, an item and a .dds
#       texture (made with Pillow) in thunar (default; thumbnails by tumbler) or
#       pcmanfm, each file shown with the preview gbxfs makes for it. The PNG is
#       cropped to the window and quantized (docs/filemanager-previews.png)
#
# Everything runs with a private HOME under a temporary folder (its own
# configuration, thumbnail cache, MIME database and D-Bus session bus), so the
# user's settings and caches are never touched. Corpus files are copied to that
# temporary folder only.
#
# Installs what it needs with apt-get (xvfb, x11-apps for xwd, imagemagick for the
# PNG conversion, the file manager; tumbler and dbus for thunar); these are not
# project dependencies and are not in scripts/setup. Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
GBXFS=$REPO/.venv/bin/gbxfs
PY=$REPO/.venv/bin/python

MODE=mount FM="" OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --previews) MODE=previews ;;
    --fm) FM=$2; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) OUT=$1 ;;
  esac
  shift
done
if [ "$MODE" = mount ]; then FM=pcmanfm; fi
FM=${FM:-thunar}
case "$FM" in thunar|pcmanfm) ;; *) echo "unknown file manager: $FM (thunar or pcmanfm)" >&2; exit 2 ;; esac
if [ "$MODE" = previews ]; then OUT=$(realpath -m "${OUT:-filemanager-previews.png}"); else OUT=$(realpath -m "${OUT:-filemanager.png}"); fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
want=(xvfb x11-apps x11-utils imagemagick "$FM")
if [ "$FM" = thunar ]; then want+=(tumbler dbus dbus-x11); fi
need=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

WORK=$(mktemp -d /tmp/gbxfs-shot-XXXXXX)
MP="$WORK/mnt"
DISPLAY_NUM=${DISPLAY_NUM:-97}
XVFB_PID=""; FM_PID=""; BUS_PID=""; MOUNTED=""
cleanup() {
  [ -n "$FM_PID" ] && kill "$FM_PID" 2>/dev/null || true
  [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null || true   # its activated services (tumblerd, xfconfd) leave with it
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  [ -n "$MOUNTED" ] && "$GBXFS" umount "$MP" >/dev/null 2>&1 || true
  sleep 1
  rm -rf "$WORK"
}
trap cleanup EXIT

# a private HOME: fresh file-manager configuration, thumbnail cache and MIME database
export HOME="$WORK/home"
export XDG_DATA_HOME="$HOME/.local/share" XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
export NO_AT_BRIDGE=1          # no accessibility bus to start and leave behind
mkdir -p "$HOME/.config/libfm" "$HOME/.config/pcmanfm/default"
# thumbnail_max (KB): pcmanfm gives an image file (image/*, so also .dds) at most
# this large to its built-in gdk-pixbuf loader only, which has no DDS decoder, and
# only a larger one to the installed thumbnailers; it also refuses to load any
# picture of more than thumbnail_max*1024 pixels, its own 128x128 thumbnails
# included. 32 lets every thumbnail load and sends the demo .dds (65 KB) to gbxfs.
cat > "$HOME/.config/libfm/libfm.conf" <<END
[config]
show_thumbnail=1
thumbnail_local=1
thumbnail_max=$([ "$MODE" = previews ] && echo 32 || echo 4096)
[ui]
big_icon_size=96
END
cat > "$HOME/.config/pcmanfm/default/pcmanfm.conf" <<'END'
[ui]
win_width=900
win_height=620
view_mode=icon
show_hidden=0
END

if [ "$MODE" = mount ]; then
  "$GBXFS" demo --build-only "$WORK" >/dev/null
  mkdir -p "$MP"
  "$GBXFS" "$WORK/Packs" "$MP"
  MOUNTED=1
  TARGET="$MP/DemoMap.Challenge.Gbx"
else
  CORPUS=$(realpath "$REPO/../shared/corpus")
  TARGET="$WORK/Maps"
  mkdir -p "$TARGET"
  # TMNF/TMUF challenges, TM2020 maps (a 3.7 MB one among them) and an item with its icon
  for needle in "Benchmark/Tracks/A01-Race.Challenge.Gbx" "Benchmark/Tracks/ESL-Hockolicious.Challenge.Gbx" \
                "public/data/TMS_Dirt_1.Map.Gbx" "public/data/Simple TECH 1.Map.Gbx" \
                "public/data/Niepodlegli (ft mime).Map.Gbx" "ObstacleSignsNormal/Black/Base.ObjectInfo.gbx"; do
    src=$(find "$CORPUS" -path "*/$needle" -print -quit)
    [ -n "$src" ] && cp "$src" "$TARGET/" || echo "not in the corpus: $needle" >&2
  done
  # the corpus holds no .dds: a 256x256 DXT5 texture, a gradient with a disc and a square
  "$PY" - "$TARGET/Texture.dds" <<'END'
import sys
from PIL import Image, ImageDraw
im = Image.new("RGBA", (256, 256))
d = ImageDraw.Draw(im)
for y in range(256):
    d.line([(0, y), (255, y)], fill=(255 - y, 80, y, 255))
d.ellipse((48, 48, 208, 208), fill=(250, 220, 40, 255))
d.rectangle((96, 96, 160, 160), fill=(20, 20, 20, 255))
im.save(sys.argv[1], format="DDS", pixel_format="DXT5")
END
  "$GBXFS" install-thumbnailer
  EXPECT=$(ls "$TARGET" | wc -l)
fi

Xvfb ":$DISPLAY_NUM" -screen 0 1000x700x24 -nolisten tcp >/dev/null 2>&1 &
XVFB_PID=$!
export DISPLAY=":$DISPLAY_NUM"
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

if [ "$FM" = thunar ]; then
  # a session bus of our own: thunar reaches tumbler (and xfconf) through it
  BUS=$(dbus-daemon --session --fork --print-address=1 --print-pid=1)
  export DBUS_SESSION_BUS_ADDRESS=$(echo "$BUS" | sed -n 1p)
  BUS_PID=$(echo "$BUS" | sed -n 2p)
  thunar "$TARGET" >/dev/null 2>&1 &
else
  pcmanfm --no-desktop "$TARGET" >/dev/null 2>&1 &
fi
FM_PID=$!

thumbs() { find "$XDG_CACHE_HOME/thumbnails" -name '*.png' 2>/dev/null | wc -l; }
if [ "$MODE" = mount ]; then
  sleep "${WAIT:-6}"    # window up, folder listed, thumbnails generated
else
  # until every file has its thumbnail in the cache (or WAIT seconds), then the redraw
  for _ in $(seq "${WAIT:-60}"); do [ "$(thumbs)" -ge "$EXPECT" ] && break; sleep 1; done
  sleep 3
  echo "thumbnails in the cache: $(thumbs) of $EXPECT files"
fi
xwd -root -silent | convert xwd:- "$WORK/shot.png"
if [ "$MODE" = previews ]; then
  # the window only (the screen around it is black), in 256 colours
  "$PY" - "$WORK/shot.png" "$OUT" <<'END'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
im = im.crop(im.point(lambda v: 255 if v > 0 else 0).getbbox())
im.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(sys.argv[2], optimize=True)
END
else
  cp "$WORK/shot.png" "$OUT"
fi
echo "$OUT"
