#!/usr/bin/env bash
# Installs userdebug: a fully static release binary, the man page and the shell completions.
#   Scripts/install.sh                 build, then install into ${PREFIX:-$HOME/.local}
#   Scripts/install.sh --enable-daemon also start the hotkey daemon at every login (XDG autostart)
#   Scripts/install.sh --uninstall     stop this user's daemon of the installed binary, remove the
#                                      files an install puts there and what --enable-daemon or
#                                      `systemctl --user enable` enabled
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
#   $PREFIX/share/userdebug/proxy/userdebug_addon.py        0644  (userdebug proxy's mitmproxy addon)
#   $PREFIX/share/userdebug/sample-session.json             0644  (the sample session the no-store hint names)
# Installing starts nothing: the unit waits for `systemctl --user enable --now userdebug.service`.
# With --enable-daemon, also (the daemon then starts at every login; use it or the unit, not both):
#   AUTOSTART/userdebug.desktop                             0644  (Exec=$PREFIX/bin/userdebug daemon)
#     AUTOSTART is ${XDG_CONFIG_HOME:-$HOME/.config}/autostart for a prefix under $HOME,
#     $DESTDIR/etc/xdg/autostart for /usr and /usr/local, else $DESTDIR$PREFIX/etc/xdg/autostart.
# Running it again installs the same files again (files already identical are left alone). Each
# file is written beside its destination and renamed over it, so a hotkey firing during an install
# runs either the old binary or the new one, never half of one. Says what it did on stderr.
set -euo pipefail

usage() {
  sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"
}

mode=install
enable_daemon=false
for argument in "$@"; do
  case $argument in
    --uninstall) mode=uninstall ;;
    --enable-daemon) enable_daemon=true ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$argument'" >&2; usage >&2; exit 64 ;;
  esac
done
if [[ $mode == uninstall && $enable_daemon == true ]]; then
  echo "install.sh: --enable-daemon and --uninstall cannot go together" >&2
  exit 64
fi

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
  "config/proxy/userdebug_addon.py|share/userdebug/proxy/userdebug_addon.py|0644"
  "config/sample-session.json|share/userdebug/sample-session.json|0644"
)
# Starts the daemon at every login: only when asked for (and always removed by --uninstall).
autostart_entry="RENDER:config/autostart/userdebug.desktop|AUTOSTART/userdebug.desktop|0644"
if [[ $enable_daemon == true || $mode == uninstall ]]; then
  files+=("$autostart_entry")
fi

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

# The unit `systemctl --user enable` links into the user's graphical-session.target.wants.
unit=$prefix/share/systemd/user/userdebug.service
wants_link=${XDG_CONFIG_HOME:-${HOME:-/nonexistent}/.config}/systemd/user/graphical-session.target.wants/userdebug.service

# The field of /proc/PID/stat after the command name: R, S, Z …
process_state() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  printf '%s\n' "${stat%% *}"
}

# Stops this user's daemons of the installed binary: each names its pid in its lock file
# (userdebug-daemon-DISPLAY.lock in $XDG_RUNTIME_DIR, else /tmp/userdebug-UID: DaemonLock.swift).
# A pid is the daemon's only while that process is ours, runs `userdebug daemon` and its
# executable is this install's binary (or the one a later install replaced): a daemon of another
# binary (a development build) is named and left running.
stop_daemons() {
  local directory lock pid executable display arguments waited state
  # As /proc/PID/exe names it: symbolic links in the prefix resolved.
  local installed
  installed=$(realpath -m -- "$prefix/bin/userdebug")
  for directory in "${XDG_RUNTIME_DIR:-}" "/tmp/userdebug-$(id -u)"; do
    [[ -n $directory && -d $directory && ! -L $directory && -O $directory ]] || continue
    for lock in "$directory"/userdebug-daemon-*.lock; do
      [[ -f $lock && ! -L $lock && -O $lock ]] || continue
      pid=$(head -c 32 -- "$lock" | head -n 1)
      [[ $pid =~ ^[1-9][0-9]*$ ]] || continue
      [[ -O /proc/$pid ]] || continue
      state=$(process_state "$pid") || continue
      [[ $state != Z ]] || continue
      arguments=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null) || continue
      [[ $'\n'$arguments$'\n' == *$'\ndaemon\n'* ]] || continue
      executable=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
      display=${lock##*/userdebug-daemon-}
      display=${display%.lock}
      if [[ $executable != "$installed" && $executable != "$installed (deleted)" ]]; then
        echo "install.sh: left running: the userdebug daemon (pid $pid) on $display runs $executable, not $installed" >&2
        continue
      fi
      kill -TERM "$pid" 2>/dev/null || continue
      # It hands the clipboard to an owner process, then exits (a zombie until its parent reaps it).
      for ((waited = 0; waited < 50; waited++)); do
        state=$(process_state "$pid") || break
        [[ $state != Z ]] || break
        sleep 0.1
      done
      if state=$(process_state "$pid") && [[ $state != Z ]]; then
        echo "install.sh: warning: the userdebug daemon (pid $pid) on $display is still running 5 s after SIGTERM; kill $pid" >&2
      else
        echo "stopped the userdebug daemon (pid $pid) on $display" >&2
      fi
    done
  done
}

if [[ $mode == uninstall ]]; then
  [[ -n $destdir ]] || stop_daemons
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
  # The link `systemctl --user enable userdebug.service` made to this install's unit.
  if [[ -z $destdir && -L $wants_link ]]; then
    if [[ $(readlink -- "$wants_link") == "$unit" ]]; then
      rm -f -- "$wants_link"
      echo "disabled userdebug.service: removed $wants_link" >&2
      # The user manager (when one runs) forgets the unit now rather than at the next login.
      if command -v systemctl >/dev/null; then systemctl --user daemon-reload >/dev/null 2>&1 || true; fi
    else
      echo "install.sh: left alone: $wants_link points to $(readlink -- "$wants_link"), not $unit" >&2
    fi
  fi
  exit 0
fi

if [[ -n $binary ]]; then
  [[ -f $binary && -x $binary ]] || { echo "install.sh: USERDEBUG_INSTALL_BINARY=$binary is not an executable file" >&2; exit 66; }
  echo "using $binary (USERDEBUG_INSTALL_BINARY; not building)" >&2
else
  Scripts/deps.sh  # only what building needs (the test tools come with --test)
  # Only the two programs it installs (not the benchmark driver, the libraries' tests or the
  # fixtures): about 3 minutes of CPU the first time, seconds after.
  echo "building the static release binaries userdebug and userdebug-popup (swift build -c release; a few minutes the first time)" >&2
  for product in userdebug userdebug-popup; do
    swift build -c release -Xswiftc -static-executable --product "$product" >&2
  done
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

autostart_file=$(target_of AUTOSTART/userdebug.desktop)
if [[ $enable_daemon == true ]]; then
  echo "enabled: the hotkey daemon starts at every login ($autostart_file); to use the systemd unit instead: rm $autostart_file && systemctl --user import-environment DISPLAY XAUTHORITY && systemctl --user enable --now userdebug.service (not both: the second exits 75)" >&2
elif [[ -e $autostart_file ]]; then
  echo "the hotkey daemon starts at every login ($autostart_file); --uninstall removes it" >&2
else
  echo "the hotkey daemon is not enabled; to start it at every login: Scripts/install.sh --enable-daemon, or systemctl --user enable --now userdebug.service (README: The hotkey daemon)" >&2
fi

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
[[ -n $destdir || $mode != install ]] ||
  echo "install.sh: next: bind a key (README: Hotkeys), record a session (userdebug session import FILE), press the key" >&2
