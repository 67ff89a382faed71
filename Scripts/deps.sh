#!/usr/bin/env bash
# Installs the Debian packages userdebug needs to build, test and benchmark, only those missing,
# so running it again does nothing. Needs root (or sudo) the first time.
#   Scripts/deps.sh            build + test packages
#   Scripts/deps.sh --bench    also the benchmark tools
set -euo pipefail

packages=(
  libsqlite3-dev sqlite3                      # the store (CSQLite links libsqlite3; static lib for -static-executable)
  libxcb1-dev libxau-dev libxdmcp-dev libx11-dev # the clipboard shim (static libs for -static-executable)
  xvfb xclip xsel x11-utils python3-tk        # real X server and real peers in the tests
  python3-xlib                                # stalled/killed INCR readers, MULTIPLE, a silent manager
  cinnamon-settings-daemon dbus-daemon        # csd-clipboard: a real clipboard manager (SAVE_TARGETS)
  python3 curl dash                           # test helpers, echo server, shell-safety checks
  zsh fish groff-base                         # completion syntax checks, man page rendering
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(hyperfine)
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "deps.sh: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/userdebug-apt.log 2>&1; then
  "${sudo[@]}" apt-get update -q >>/tmp/userdebug-apt.log 2>&1
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/userdebug-apt.log 2>&1 \
    || { cat /tmp/userdebug-apt.log >&2; exit 1; }
fi
