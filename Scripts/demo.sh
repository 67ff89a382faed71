#!/usr/bin/env bash
# The main job, on the sample session in config/: builds the release binary, records the sample
# session and responses in a throwaway home, and runs the three debug actions. copy-id goes to the
# clipboard when a display answers (and this is a terminal), else to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/deps.sh  # only what building needs
# Only the product the demo runs (not the popup, the benchmark driver or the tests); a few minutes
# the first time, seconds after.
echo "demo.sh: building the static release binary (swift build -c release --product userdebug; a few minutes the first time)…" >&2
log=$(mktemp)
swift build -c release -Xswiftc -static-executable --product userdebug >"$log" 2>&1 || {
  cat "$log" >&2
  rm -f "$log"
  exit 1
}
rm -f "$log"
bin=$(swift build -c release -Xswiftc -static-executable --show-bin-path)/userdebug
home=$(mktemp -d /tmp/userdebug-demo.XXXXXX)
trap 'rm -rf "$home"' EXIT
export USERDEBUG_HOME="$home"

if [[ -t 2 ]]; then
  step() { printf '\n\033[1m$ %s\033[0m\n' "$*" >&2; }
else
  step() { printf '\n$ %s\n' "$*" >&2; }
fi

step "userdebug session import config/sample-session.json"
"$bin" session import config/sample-session.json
step "userdebug response record config/sample-responses.json"
"$bin" response record config/sample-responses.json >/dev/null

step "userdebug copy-id"
"$bin" copy-id
step "userdebug dump-json"
"$bin" dump-json --to stdout
step "userdebug print-response --tag login"
"$bin" print-response --tag login --to stdout
step "userdebug print-response --status 4xx --full"
"$bin" print-response --status 4xx --full --to stdout
step "userdebug response list"
"$bin" response list --json
echo >&2
echo "demo.sh: done. Next: Scripts/install.sh puts userdebug on your PATH; then userdebug setup binds the hotkeys (README: The first ten minutes)." >&2
