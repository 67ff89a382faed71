#!/bin/sh
# userdebug hotkeys for GNOME: adds three custom shortcuts (Settings > Keyboard > Custom
# Shortcuts) with gsettings. Run it once in your GNOME session: sh config/hotkeys/gnome-custom-keybindings.sh
# Running it again updates the same three shortcuts; shortcuts you made yourself are kept.
# Remove them in Settings, or: gsettings reset-recursively on each path below.
#
# GNOME runs the command without a shell and with the session's PATH, which often lacks
# ~/.local/bin: the shortcuts use userdebug's full path as found now (quoted, as GNOME splits
# the command like a shell would).
# Every command says `--to clipboard`: whatever GNOME gives a shortcut as standard output, the
# result goes to the CLIPBOARD, and a notification says what was copied (or why nothing was).
set -eu

userdebug=$(command -v userdebug) || { echo "userdebug is not on PATH; run Scripts/install.sh first" >&2; exit 1; }
schema=org.gnome.settings-daemon.plugins.media-keys
base=/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings

# A GVariant string literal: gsettings parses values, and a bare command like 'x' y is not one.
gvariant_string() {
  printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"
}

# bind ID NAME BINDING COMMAND: sets one shortcut at $base/ID/ and adds it to the list.
bind() {
  path="$base/$1/"
  gsettings set "$schema.custom-keybinding:$path" name "$(gvariant_string "$2")"
  gsettings set "$schema.custom-keybinding:$path" binding "$(gvariant_string "$3")"
  gsettings set "$schema.custom-keybinding:$path" command "$(gvariant_string "$4")"
  list=$(gsettings get "$schema" custom-keybindings)
  case $list in
    *"'$path'"*) ;;                                        # already listed
    "@as []" | "[]") gsettings set "$schema" custom-keybindings "['$path']" ;;
    *) gsettings set "$schema" custom-keybindings "${list%]}, '$path']" ;;
  esac
  echo "bound $3 to $4" >&2
}

# Super+Alt+I: the current user's identifier to the clipboard
bind userdebug-copy-id "userdebug: copy user id" "<Super><Alt>i" "'$userdebug' copy-id --to clipboard"
# Super+Alt+J: the current user as JSON to the clipboard
bind userdebug-dump-json "userdebug: dump user JSON" "<Super><Alt>j" "'$userdebug' dump-json --to clipboard"
# Super+Alt+R: the last backend response's body to the clipboard
bind userdebug-print-response "userdebug: print last response" "<Super><Alt>r" "'$userdebug' print-response --to clipboard"
