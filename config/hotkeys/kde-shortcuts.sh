#!/bin/sh
# userdebug hotkeys for KDE Plasma (Wayland or X11): three global shortcuts that run a command.
#
# KWin offers zwlr_data_control_manager_v1 on Wayland, so `userdebug` copies through Wayland
# data-control there and through X11 in an X11 session (`userdebug doctor` shows which and why).
# Plasma's global shortcuts work whatever window has focus; an X11 key grabber (sxhkd, xbindkeys,
# the userdebug daemon) under Plasma Wayland sees only keys pressed in XWayland windows.
#
# `--to clipboard` is explicit: the command's standard output is not a terminal and may be the
# session journal, where `--to auto` would write instead of the clipboard.
#
# By hand (Plasma 5.25 and later, Plasma 6): System Settings > Keyboard > Shortcuts >
# Add New > Command or Script…, then for each line below: the command, and the keys with
# "Add custom shortcut". Older Plasma: System Settings > Shortcuts > Custom Shortcuts > Edit >
# New > Global Shortcut > Command/URL.
#
# keys          command
# Meta+Alt+I    userdebug copy-id --to clipboard
# Meta+Alt+J    userdebug dump-json --to clipboard
# Meta+Alt+R    userdebug print-response --to clipboard
#
# This script, run in a terminal of your Plasma session (Plasma 6; with Plasma 5 set
# KWRITECONFIG=kwriteconfig5), makes each command a .desktop file in ~/.local/share/applications
# and a shortcut in ~/.config/kglobalshortcutsrc. Log out and back in (or restart plasmashell)
# so kglobalaccel reads them. If ~/.local/bin is not on the session's PATH, write userdebug's
# full path in the commands below.
set -eu
kwriteconfig=${KWRITECONFIG:-kwriteconfig6}
applications=${XDG_DATA_HOME:-$HOME/.local/share}/applications
mkdir -p "$applications"

# shortcut KEYS NAME TITLE COMMAND: a hidden application entry and its global shortcut.
shortcut() {
  file="$applications/userdebug-$2.desktop"
  printf '[Desktop Entry]\nType=Application\nName=userdebug: %s\nExec=%s\nNoDisplay=true\n' "$3" "$4" >"$file"
  "$kwriteconfig" --file kglobalshortcutsrc --group services --group "userdebug-$2.desktop" --key _launch "$1"
}

shortcut Meta+Alt+I copy-id "Copy Identifier" "userdebug copy-id --to clipboard"
shortcut Meta+Alt+J dump-json "Dump JSON" "userdebug dump-json --to clipboard"
shortcut Meta+Alt+R print-response "Print Last Response" "userdebug print-response --to clipboard"
