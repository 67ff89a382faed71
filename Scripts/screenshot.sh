#!/usr/bin/env bash
# The README's picture of the popup menu: under a private Xvfb (no window manager), opens
# `userdebug-popup` on the sample session in config/ at the pointer, selects an entry, takes
# `xwd -root`, and crops it to the popup window with ImageMagick's convert.
#   Scripts/screenshot.sh [OUTPUT]      default docs/popup.png
#   THEME=light Scripts/screenshot.sh   the light colours (menu.popup.theme)
#   USERDEBUG_BIN_DIR=DIR               use the userdebug and userdebug-popup in DIR (no build)
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-docs/popup.png}
theme=${THEME:-dark}
for tool in Xvfb xdotool xwd convert xrdb; do
  command -v "$tool" >/dev/null || { echo "screenshot.sh: needs $tool (Scripts/deps.sh --test installs it)" >&2; exit 69; }
done
bin=${USERDEBUG_BIN_DIR:-}
if [[ -z $bin ]]; then
  swift build --product userdebug-popup >/dev/null && swift build --product userdebug >/dev/null
  bin=$(swift build --show-bin-path)
fi

work=$(mktemp -d /tmp/userdebug-screenshot.XXXXXX)
xvfb_pid=
popup_pid=
cleanup() {
  [[ -z $popup_pid ]] || kill "$popup_pid" 2>/dev/null || true
  [[ -z $xvfb_pid ]] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export USERDEBUG_HOME=$work/home LANG=C.UTF-8
mkdir -p "$USERDEBUG_HOME/config"
chmod 700 "$USERDEBUG_HOME" "$USERDEBUG_HOME/config"
"$bin/userdebug" session import config/sample-session.json -q
"$bin/userdebug" response record config/sample-responses.json -q >/dev/null
printf '{"menu": {"popup": {"theme": "%s", "font": "sans-serif:size=11"}}}\n' "$theme" \
  >"$USERDEBUG_HOME/config/config.json"

exec 3>"$work/display"
Xvfb -displayfd 3 -noreset -nolisten tcp -screen 0 1024x768x24 >/dev/null 2>&1 &
xvfb_pid=$!
exec 3>&-
for _ in $(seq 200); do [[ -s $work/display ]] && break; sleep 0.05; done
export DISPLAY=:$(head -1 "$work/display")
unset XAUTHORITY
echo "Xft.dpi: 96" | xrdb -merge
xdotool mousemove 24 24

"$bin/userdebug-popup" --trace 2>"$work/trace" &
popup_pid=$!
wait_for() { # wait_for COUNT PATTERN: until the trace has COUNT lines matching PATTERN (10 s at most)
  for _ in $(seq 500); do
    (($(grep -c -- "$2" "$work/trace" || true) >= $1)) && return 0
    sleep 0.02
  done
  echo "screenshot.sh: the popup did not show '$2':" >&2
  cat "$work/trace" >&2
  exit 1
}
wait_for 1 'state {'
xdotool key --delay 0 Down Down
wait_for 3 'state {'
geometry=$(grep -o 'popup mapped at [0-9]*,[0-9]* [0-9]*x[0-9]*' "$work/trace" | head -1)
read -r x y w h <<<"$(sed -E 's/.* ([0-9]+),([0-9]+) ([0-9]+)x([0-9]+)/\1 \2 \3 \4/' <<<"$geometry")"
xwd -root -silent >"$work/root.xwd"
mkdir -p "$(dirname "$output")"
convert "xwd:$work/root.xwd" -crop "${w}x${h}+${x}+${y}" +repage "$output"
xdotool key --delay 0 Escape
wait "$popup_pid" || true
popup_pid=
echo "screenshot.sh: wrote $output (${w}x${h})" >&2
