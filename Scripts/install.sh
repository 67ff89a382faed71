#!/usr/bin/env bash
# Installs userdebug: a fully static release binary, the man page and the shell completions.
#   Scripts/install.sh                 build, then install into ${PREFIX:-$HOME/.local}
#   Scripts/install.sh --uninstall     remove exactly the files an install puts there
#   PREFIX=/usr/local Scripts/install.sh               system-wide (as root)
#   DESTDIR=/tmp/stage PREFIX=/usr Scripts/install.sh  stage for a package: files go to $DESTDIR$PREFIX
#   USERDEBUG_INSTALL_BINARY=/path/to/userdebug Scripts/install.sh
#                                      install that binary (and the userdebug-popup beside it, if
#                                      there is one); skips Scripts/deps.sh and the build
# Installed:
#   $PREFIX/bin/userdebug                                   0755
#   $PREFIX/bin/userdebug-popup                             0755  (the popup menu: menu --popup)
#   $PREFIX/share/man/man1/userdebug.1                      0644
#   $PREFIX/share/bash-completion/completions/userdebug     0644
#   $PREFIX/share/zsh/site-functions/_userdebug             0644
#   $PREFIX/share/fish/vendor_completions.d/userdebug.fish  0644
#   $PREFIX/share/systemd/user/userdebug.service            0644  (ExecStart=$PREFIX/bin/userdebug daemon)
#   AUTOSTART/userdebug.desktop                             0644  (Exec=$PREFIX/bin/userdebug daemon)
#     AUTOSTART is ${XDG_CONFIG_HOME:-$HOME/.config}/autostart for a prefix under $HOME,
#     $DESTDIR/etc/xdg/autostart for /usr and /usr/local, else $DESTDIR$PREFIX/etc/xdg/autostart. Neither starts anything by itself: the unit waits for
#     `systemctl --user enable --now userdebug.service`, the autostart entry for the next login.
# Running it again installs the same files again (files already identical are left alone). Each
# file is written beside its destination and renamed over it, so a hotkey firing during an install
# runs either the old binary or the new one, never half of one. Says what it did on stderr.
set -euo pipefail

usage() {
  sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"
}

mode=install
for argument in "$@"; do
  case $argument in
    --uninstall) mode=uninstall ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$argument'" >&2; usage >&2; exit 64 ;;
  esac
done

# Relative paths mean relative to where the script was started, before the cd below.
absolute() {
  if [[ $1 == /* ]]; then printf '%s\n' "$1"; else printf '%s\n' "$PWD/$1"; fi
}
if [[ -z ${PREFIX:-} && -z ${HOME:-} ]]; then
  echo "install.sh: neither PREFIX nor HOME is set; set PREFIX" >&2
  exit 64
fi
prefix=$(absolute "${PREFIX:-$HOME/.local}")
prefix=${prefix%/}
destdir=${DESTDIR:-}
[[ -z $destdir ]] || destdir=$(absolute "$destdir")
destdir=${destdir%/}
binary=${USERDEBUG_INSTALL_BINARY:-}
[[ -z $binary ]] || binary=$(absolute "$binary")

cd "$(dirname "$0")/.."
# Directories created for a system-wide install must be readable by everyone, whatever the umask.
umask 022

# source in the repository (or the binary) | destination under the prefix | mode
files=(
  "BINARY|bin/userdebug|0755"
  "config/userdebug.1|share/man/man1/userdebug.1|0644"
  "config/completions/userdebug.bash|share/bash-completion/completions/userdebug|0644"
  "config/completions/_userdebug|share/zsh/site-functions/_userdebug|0644"
  "config/completions/userdebug.fish|share/fish/vendor_completions.d/userdebug.fish|0644"
  "RENDER:config/systemd/userdebug.service|share/systemd/user/userdebug.service|0644"
  "RENDER:config/autostart/userdebug.desktop|AUTOSTART/userdebug.desktop|0644"
)

# The XDG autostart directory: the user's for a prefix in their home, the system's for /usr and
# /usr/local, else the prefix's own etc/xdg/autostart.
if [[ -n ${HOME:-} && $prefix == "${HOME%/}"/* ]]; then
  autostart=$destdir${XDG_CONFIG_HOME:-${HOME%/}/.config}/autostart
elif [[ $prefix == /usr || $prefix == /usr/local ]]; then
  autostart=$destdir/etc/xdg/autostart
else
  autostart=$destdir$prefix/etc/xdg/autostart
fi
# Where an entry's file goes.
target_of() {
  case $1 in
    AUTOSTART/*) printf '%s\n' "$autostart/${1#AUTOSTART/}" ;;
    *) printf '%s\n' "$destdir$prefix/$1" ;;
  esac
}

if [[ $mode == uninstall ]]; then
  files+=("POPUP|bin/userdebug-popup|0755")
  for entry in "${files[@]}"; do
    IFS='|' read -r _ relative _ <<<"$entry"
    target=$(target_of "$relative")
    if [[ -e $target || -L $target ]]; then
      rm -f -- "$target"
      echo "removed $target" >&2
    else
      echo "not installed: $target" >&2
    fi
  done
  exit 0
fi

if [[ -n $binary ]]; then
  [[ -f $binary && -x $binary ]] || { echo "install.sh: USERDEBUG_INSTALL_BINARY=$binary is not an executable file" >&2; exit 66; }
  echo "using $binary (USERDEBUG_INSTALL_BINARY; not building)" >&2
else
  Scripts/deps.sh  # only what building needs (the test tools come with --test)
  echo "building a static release binary (swift build -c release -Xswiftc -static-executable)" >&2
  swift build -c release -Xswiftc -static-executable >&2
  binary=$(swift build -c release -Xswiftc -static-executable --show-bin-path)/userdebug
  # A dynamic binary still works, but costs several milliseconds per hotkey press.
  # ldd lists libraries ("libc.so.6 => …") only for a dynamic binary.
  if [[ $(ldd "$binary" 2>&1 || true) == *'=>'* ]]; then
    echo "install.sh: warning: $binary is dynamically linked; startup will be slower" >&2
  fi
fi

# The popup menu's program, built beside userdebug (its X libraries stay out of userdebug).
popup=${binary%/*}/userdebug-popup
if [[ -f $popup && -x $popup ]]; then
  files+=("$popup|bin/userdebug-popup|0755")
elif [[ $mode == install ]]; then
  echo "install.sh: warning: no $popup; 'userdebug menu --popup' will say it is missing" >&2
fi

temporary=''
rendered=$(mktemp -d "${TMPDIR:-/tmp}/userdebug-install.XXXXXX")
trap '[[ -z $temporary ]] || rm -f -- "$temporary"; rm -rf -- "$rendered"' EXIT
# RENDER: a template whose @BINDIR@ becomes the installed binary's directory.
render() {
  local text
  text=$(<"$1")
  printf '%s\n' "${text//@BINDIR@/$prefix/bin}" >"$rendered/${1##*/}"
  printf '%s\n' "$rendered/${1##*/}"
}
for entry in "${files[@]}"; do
  IFS='|' read -r source relative mode <<<"$entry"
  [[ $source == BINARY ]] && source=$binary
  if [[ $source == RENDER:* ]]; then
    [[ -f ${source#RENDER:} ]] || { echo "install.sh: missing ${source#RENDER:}" >&2; exit 66; }
    source=$(render "${source#RENDER:}")
  fi
  [[ -f $source ]] || { echo "install.sh: missing $source" >&2; exit 66; }
  target=$(target_of "$relative")
  directory=${target%/*}
  if [[ -f $target && ! -L $target ]] && cmp -s -- "$source" "$target" && [[ $(stat -c %a -- "$target") == "${mode#0}" ]]; then
    echo "up to date: $target" >&2
    continue
  fi
  mkdir -p -- "$directory"
  temporary=$(mktemp "$directory/.userdebug-install.XXXXXX")
  if ! { cp -- "$source" "$temporary" && chmod "$mode" -- "$temporary" && mv -f -- "$temporary" "$target"; }; then
    echo "install.sh: could not install $target" >&2
    exit 74
  fi
  temporary=''
  echo "installed $target" >&2
done

# Hints that only make sense for the machine it was installed on, not for a staged package.
if [[ -z $destdir ]]; then
  case ":$PATH:" in
    *":$prefix/bin:"* | *":$prefix/bin/:"*) ;;
    *) echo "install.sh: warning: $prefix/bin is not on PATH; add it, e.g. in ~/.profile: export PATH=\"$prefix/bin:\$PATH\"" >&2 ;;
  esac
  case $prefix in
    /usr | /usr/local) ;;
    *) echo "install.sh: for zsh completion, add to ~/.zshrc before compinit: fpath=($prefix/share/zsh/site-functions \$fpath)" >&2 ;;
  esac
fi
