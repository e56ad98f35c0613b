#!/usr/bin/env bash
# A file manager on a gbxfs mount: runs pcmanfm under Xvfb on the demo Packs
# folder, opens the demo map's GBX folder (icon view, so thumbnail.jpg shows
# as its picture) and saves a PNG screenshot.
#
#   bash tools/screenshot_filemanager.sh [OUT.png]     (default: ./filemanager.png)
#
# Installs what it needs (pcmanfm, xvfb, x11-apps for xwd, imagemagick for the
# PNG conversion) with apt-get; these are not project dependencies and are not
# in scripts/setup. Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${1:-filemanager.png}")
GBXFS=.venv/bin/gbxfs

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
need=()
for p in pcmanfm xvfb x11-apps imagemagick; do
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
XVFB_PID=""; FM_PID=""
cleanup() {
  [ -n "$FM_PID" ] && kill "$FM_PID" 2>/dev/null || true
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  "$GBXFS" umount "$MP" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

"$GBXFS" demo --build-only "$WORK" >/dev/null
mkdir -p "$MP"
"$GBXFS" "$WORK/Packs" "$MP"

# a private HOME: a fresh pcmanfm configuration (icon view, thumbnails on) and thumbnail cache
export HOME="$WORK/home"
mkdir -p "$HOME/.config/libfm" "$HOME/.config/pcmanfm/default"
cat > "$HOME/.config/libfm/libfm.conf" <<'END'
[config]
show_thumbnail=1
thumbnail_local=1
thumbnail_max=4096
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

Xvfb ":$DISPLAY_NUM" -screen 0 1000x700x24 -nolisten tcp >/dev/null 2>&1 &
XVFB_PID=$!
export DISPLAY=":$DISPLAY_NUM"
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done 2>/dev/null || sleep 2

pcmanfm --no-desktop "$MP/DemoMap.Challenge.Gbx" >/dev/null 2>&1 &
FM_PID=$!
sleep "${WAIT:-6}"    # window up, folder listed, thumbnails generated
xwd -root -silent | convert xwd:- "$OUT"
echo "$OUT"
