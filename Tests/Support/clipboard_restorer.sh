#!/bin/sh
# A stand-in for a clipboard keeper that restores an emptied clipboard only once it is emptied, as
# Diodon does under X11 and wl-clip-persist under Wayland (clipman, the Wayland one Debian 12
# packages, takes every copy over at once instead: its own test): every 0.1 s it reads the
# clipboard with the desktop's own peer, keeps the last text it saw, and copies that back when the
# clipboard is empty or gone. ClipboardContractTests.aTokenPutBackAfterTheClearIsReported runs it.
# With at-once (X11 only) it also takes every new text over at once and serves it itself, as
# clipman does on Wayland: the owner of a secret loses
# the selection before its clear (ClipboardContractTests.aKeeperThatTakesTheTokenAtOnceIsCleared).
# Usage: clipboard_restorer.sh x11|wayland DIRECTORY [at-once] (the directory is its own, for its files)
kind=$1
dir=$2
mode=${3:-}
# wl-paste waits for ever on an empty KWin 5.27 clipboard (KWin sends no selection event then):
# a read that takes a second is taken for an empty clipboard.
read_now() {
    if [ "$kind" = x11 ]; then timeout 1 xclip -o -selection clipboard; else timeout 1 wl-paste -n; fi
}
# Under X11 xclip runs in the foreground (-quiet): a daemonizing xclip sets the selection from a
# process that exits at once, and the X server names a client by the process that connected, as a
# real keeper (Diodon, mutter) is named; then the put-back waits until the copy is there.
put_back() {
    if [ "$kind" != x11 ]; then
        wl-copy <"$dir/last"
        return
    fi
    xclip -quiet -i -selection clipboard <"$dir/last" >/dev/null 2>&1 &
    tries=0
    until [ "$tries" -ge 20 ] || [ -n "$(read_now 2>/dev/null)" ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
}
while :; do
    if read_now >"$dir/now" 2>/dev/null && [ -s "$dir/now" ]; then
        if [ "$mode" = at-once ] && ! cmp -s "$dir/now" "$dir/last"; then
            mv "$dir/now" "$dir/last"
            put_back
        else
            mv "$dir/now" "$dir/last"
        fi
    elif [ -s "$dir/last" ]; then
        put_back
    fi
    sleep 0.1
done
