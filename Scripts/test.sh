#!/usr/bin/env bash
# What CI runs: installs missing packages, builds everything (the userdebug binary too, which the
# end-to-end tests drive) with the C warnings on, fails on any compiler warning or error and on any
# `swift format lint --strict` finding, then runs every test. Extra arguments go to `swift test`
# (e.g. Scripts/test.sh --filter BadInput).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/deps.sh --test  # the build packages and the test tools (Xvfb, peers, shells, the PyPI venv)

# The C targets' warnings live here, not in Package.swift: SwiftPM refuses a package whose
# targets carry unsafeFlags as a versioned dependency, and an app depends on UserDebugKit.
c_warnings=(-Xcc -Wall -Xcc -Wextra -Xcc -Werror=implicit-function-declaration)

log=$(mktemp "${TMPDIR:-/tmp}/userdebug-build.XXXXXX")
trap 'rm -f "$log"' EXIT
# The build's status is taken on its own: a pipeline's status would be the last command's.
build_status=0
swift build --build-tests "${c_warnings[@]}" >"$log" 2>&1 || build_status=$?
cat "$log"
if [[ $build_status -ne 0 ]]; then
  echo "test.sh: the build failed (swift build exited $build_status; see above)" >&2
  exit 1
fi
if grep -qE '(warning|error):' "$log"; then
  echo "test.sh: the build has warnings (see above); the project builds clean" >&2
  exit 1
fi
swift format lint --strict --recursive Sources Tests Package.swift || {
  echo "test.sh: swift format lint --strict has findings (fix them, or run: swift format format -i -r Sources Tests Package.swift)" >&2
  exit 1
}
python3 Scripts/layers.py  # the folders of UserDebugKit read as layers, no cycles
Scripts/docs.sh --skip-build
# Under the reaper (Scripts/reaper.py): whatever a test starts (Xvfb, peers, owners) is killed when
# the run ends, even a hung or crashed one, and a run that leaves a process behind fails.
Scripts/reaper.py -- swift test --skip-build "${c_warnings[@]}" "$@"
