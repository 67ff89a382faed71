#!/usr/bin/env bash
# Runs the whole suite N times in a row (default 5) while two busy loops keep both cores loaded,
# as the project requires of its tests; stops at the first failing run. Builds first (through
# Scripts/test.sh's checks, with the C warnings on, sanitizer builds skipped), then
# `swift test --skip-build` each time under the reaper, as test.sh runs it: a run that leaves a
# process behind fails too.
#   Scripts/loaded-runs.sh [N] [swift test arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
USERDEBUG_SANITIZERS=0 Scripts/test.sh --filter '^$' >/dev/null 2>&1 || USERDEBUG_SANITIZERS=0 Scripts/test.sh --filter '^$'
loaders=()
stop_loaders() { for pid in "${loaders[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_loaders EXIT
for _ in 1 2; do
  yes >/dev/null &
  loaders+=($!)
done
logs=$(mktemp -d "${TMPDIR:-/tmp}/userdebug-loaded-runs.XXXXXX")
for run in $(seq "$runs"); do
  start=$(date +%s)
  status=0
  Scripts/reaper.py -- swift test --skip-build "$@" >"$logs/run-$run.log" 2>&1 || status=$?
  summary=$(grep -E "^(✔|✘) Test run with" "$logs/run-$run.log" | tail -1)
  echo "run $run/$runs: exit $status in $(($(date +%s) - start)) s, load $(cut -d' ' -f1 /proc/loadavg): ${summary:-no summary}"
  if [[ $status -ne 0 ]]; then
    grep -E "^✘" "$logs/run-$run.log" | head -20 >&2
    echo "loaded-runs: run $run failed; its log: $logs/run-$run.log" >&2
    exit 1
  fi
done
rm -rf "$logs"
echo "loaded-runs: $runs of $runs runs passed with both cores loaded"
