#!/usr/bin/env bash
# Scripts/floors.sh: what the hotkey path costs beside the floors it cannot go under, interleaved
# (Scripts/interleave.py): a static C program that does nothing, a static Swift `print`, a static C
# program doing only the store's SQLite work for copy-id, `userdebug --version`, and copy-id to
# stdout reading the store (--session) and its copy of the current session. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-500}
swift build -c release -Xswiftc -static-executable >/dev/null 2>&1
ud=$(swift build -c release -Xswiftc -static-executable --show-bin-path)/userdebug
work=$(mktemp -d /tmp/userdebug-floors.XXXXXX)
trap 'rm -rf "$work"' EXIT
clang -O2 -static -o "$work/nop" Scripts/floors/nop.c
clang -O2 -static -o "$work/sqlite_read" Scripts/floors/sqlite_read.c -lsqlite3 -lm 2>/dev/null
swiftc -O -static-executable Scripts/floors/hello.swift -o "$work/hello" 2>/dev/null
export USERDEBUG_HOME=$work/home
"$ud" session import config/sample-session.json -q
sleep 0.2
"$ud" copy-id --to stdout >/dev/null  # writes the copy of the current session
python3 Scripts/interleave.py "$runs" "$work/nop" "$work/hello" "$work/sqlite_read $work/home/data/userdebug.sqlite3" \
  "$ud --version" "$ud copy-id --to stdout --session demo-staging" "$ud copy-id --to stdout"
