#!/usr/bin/env bash
# Installs the Debian packages userdebug needs, only those missing, so running it again does
# nothing. Needs root (or sudo) the first time. The Swift 6 toolchain is assumed (swift.org).
#   Scripts/deps.sh            what building needs: the -dev packages of the static link, pkgconf
#                              (Scripts/install.sh and Scripts/demo.sh use this)
#   Scripts/deps.sh --test     also the test tools: Xvfb, real peers, shells, compositors, and
#                              a PyPI venv in .build/pyenv (Scripts/test.sh uses this)
#   Scripts/deps.sh --bench    the test set and the benchmark tools (Scripts/bench.sh)
#   Scripts/deps.sh --proxy    also mitmproxy, for `userdebug proxy` (optional: nothing else needs
#                              it); the test set includes it, as the proxy's tests run mitmdump
#   Scripts/deps.sh --list [--test|--bench|--proxy]   print the set's Debian packages, install nothing
set -euo pipefail

# What the Swift toolchain itself runs and links with on Debian 12 (swift.org's list): present
# wherever `swift build` works, listed so that the program check (Scripts/programs.py) counts them.
toolchain_packages=(binutils git libc6-dev libgcc-12-dev libstdc++-12-dev)
packages=(
  "${toolchain_packages[@]}"
  libsqlite3-dev                              # the store (CSQLite links libsqlite3; static lib for -static-executable)
  libxcb1-dev libxau-dev libxdmcp-dev libx11-dev # the clipboard shim (static libs for -static-executable)
  zlib1g-dev libbrotli-dev                    # Content-Encoding gzip/deflate and br (libz.a, libbrotlidec.a, libbrotlicommon.a)
  libxft-dev libfontconfig-dev libxrandr-dev libxinerama-dev # the popup menu (static libs for -static-executable)
  pkgconf                                     # the popup: Xft's include path (CXft names xft.pc)
)
test_packages=(
  sqlite3                                     # the store's files inspected and damaged by the tests
  xvfb xclip xsel x11-utils python3-tk        # real X server and real peers in the tests
  x11-xserver-utils                           # xrdb (Xft.dpi), xset (key repeat), xhost (XWayland access)
  procps psmisc                               # pgrep/ps/pkill, fuser/killall: finding and stopping test processes
  iproute2 time file                          # ip (a test's own network namespace), GNU time (peak memory), file (xdg-mime under wl-copy)
  python3-xlib                                # stalled/killed INCR readers, MULTIPLE, a silent manager
  cinnamon-settings-daemon dbus-daemon        # csd-clipboard: a real clipboard manager (SAVE_TARGETS)
  copyq gpaste-2 diodon parcellite clipit xfce4-clipman # Debian 12's clipboard managers: does each keep the token? (ClipboardManagerHistoryTests)
  clipman                                     # Debian 12's Wayland clipboard manager: it keeps and restores the token (ClipboardContractTests)
  python3 python3-venv curl dash              # test helpers, echo server, shell-safety checks
  python3-brotli zstd                         # br and zstd answers from the echo server, and the leak search
  nodejs jq                                   # the README login recipes (LoginRecipeTests) and its quick start (ReadmeQuickStartTests)
  zsh fish groff-base                         # completion syntax checks, man page rendering
  strace                                      # which files the hotkey path opens (HotPathCacheTests)
  libxtst-dev libxcb-xtest0-dev libxcb-xfixes0-dev # key injection and selection watching in tests and benchmarks
  xdotool xbindkeys sxhkd                     # real key presses, and hotkey daemons to compare with and to conflict with
  suckless-tools rofi fuzzel wofi bemenu      # dmenu-style launchers driven by the tests
  dunst libnotify-bin                         # a real notification daemon (dunstctl history) and notify-send
  gnome-settings-daemon-common libglib2.0-bin # GNOME's custom keybindings schema and gsettings (setup on GNOME)
  libkf5config-bin                            # kwriteconfig5 and kreadconfig5 (setup on KDE Plasma)
  x11-apps imagemagick fonts-dejavu-core      # xwd + convert for the popup screenshot; a font for Xft
  sway xwayland weston wl-clipboard foot      # headless compositors, XWayland, and the Wayland peers (wl-copy/wl-paste)
  i3-wm openbox python3-xdg                   # X11 window managers of setup's tests: i3's include file, openbox's daemon (PyXDG: its XDG autostart)
  libwayland-dev                              # wayland.xml: test.sh checks CWayland's generated protocol tables against it
  cage                                        # the wlroots kiosk compositor of the clipboard contract (no data-control)
  kwin-wayland mutter dbus-bin                # KDE's KWin 5.27 and GNOME's mutter 43 in the clipboard contract; dbus-run-session for mutter
  python3-gi gir1.2-gtk-4.0                   # a native GTK4 app reading the clipboard in the contract suite (Tests/Support/gtk4_reader.py)
  wtype libbemenu-wayland                     # Wayland key presses (virtual keyboard) for the launcher tests; bemenu on Wayland
  openssl                                     # the proxy tests' HTTPS server certificate (ProxyTests)
)
# `userdebug proxy` runs mitmdump. Debian 12's mitmproxy (8.1.1) rather than PyPI's newer releases:
# it installs offline from the Debian mirror like every other package here, is signed by Debian,
# gets its security updates through apt, and brings its Python libraries as Debian packages (no
# venv, no pip resolver on the user's machine). config/proxy/userdebug_addon.py uses only its
# long-standing addon API (load/configure/response/done hooks, add_option, raw_content).
proxy_packages=(mitmproxy)
with_tests='' list='' with_proxy=''
for argument in "$@"; do
  case $argument in
    --test) with_tests=1 ;;
    --bench) with_tests=1; test_packages+=(hyperfine linux-perf) ;; # perf: Scripts/bench.sh profile
    --proxy) with_proxy=1 ;;
    --list) list=1 ;;
    -h | --help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "deps.sh: unknown argument '$argument' (expected --test, --bench, --proxy or --list)" >&2; exit 64 ;;
  esac
done
[[ -z $with_tests ]] || packages+=("${test_packages[@]}" "${proxy_packages[@]}")
[[ -z $with_proxy || -n $with_tests ]] || packages+=("${proxy_packages[@]}")
if [[ -n $list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
command -v swift >/dev/null || echo "deps.sh: warning: no swift on PATH; building needs the Swift 6 toolchain (https://swift.org/install)" >&2

# Real consumers of the exports, from PyPI, in a venv of Debian's python3 (not whatever python3
# is first on PATH: the tests must find the same interpreter on every machine):
# haralyzer reads HAR, postman-runner runs Postman collections with an environment.
python_packages=(haralyzer==2.4.0 postman-runner==0.2.0)
root=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/userdebug-deps.XXXXXX")
trap 'rm -f "$log"' EXIT
venv="$root/.build/pyenv"

install_python_packages() {
  [[ -n $with_tests ]] || return 0  # only the tests use the venv
  local marker="$venv/.installed"
  if [[ -f "$marker" && "$(cat "$marker")" == "${python_packages[*]}" ]]; then
    return 0
  fi
  echo "deps.sh: installing ${python_packages[*]} into $venv" >&2
  [[ -x "$venv/bin/python" ]] || /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${python_packages[@]}" >"$log" 2>&1 \
    || { cat "$log" >&2; exit 1; }
  echo "${python_packages[*]}" >"$marker"
}

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  install_python_packages
  exit 0
fi

echo "deps.sh: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  "${sudo[@]}" apt-get update -q >>"$log" 2>&1
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1 \
    || { cat "$log" >&2; exit 1; }
fi
install_python_packages
