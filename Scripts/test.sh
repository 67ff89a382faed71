#!/usr/bin/env bash
# What CI runs: installs missing packages, builds everything (the userdebug binary too, which the
# end-to-end tests drive), and runs every test. Extra arguments go to `swift test`
# (e.g. Scripts/test.sh --filter BadInput).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/deps.sh
swift build --build-tests 2>&1 | tee /tmp/userdebug-build.log | grep -E "warning:|error:" && {
  echo "test.sh: the build has warnings or errors (see above); the project builds clean" >&2
  exit 1
}
swift test --skip-build "$@"
