#!/usr/bin/env bash
# Proves that Scripts/test.sh cannot go green on a broken tree: in a fresh clone of HEAD it adds a
# compile error, then (instead) a compiler warning, and requires test.sh to exit non-zero before
# any test runs each time. CI runs it after the suite (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/userdebug-check-test-script.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone --quiet "$root" "$work/clone"
target="$work/clone/Sources/UserDebugKit/Domain/User.swift"
cp "$target" "$work/User.swift.orig"

# expect_failure NAME: test.sh must exit non-zero and must not have started `swift test`.
expect_failure() {
  local name=$1 status=0
  (cd "$work/clone" && Scripts/test.sh) >"$work/$name.log" 2>&1 || status=$?
  if [[ $status -eq 0 ]]; then
    tail -20 "$work/$name.log" >&2
    echo "check-test-script: test.sh exited 0 with $name added" >&2
    exit 1
  fi
  if grep -qE "Test run started|Test Suite '.*' started" "$work/$name.log"; then
    echo "check-test-script: test.sh ran tests with $name added" >&2
    exit 1
  fi
  echo "check-test-script: test.sh exits $status with $name added"
}

printf '\nextension User {\n    var brokenOnPurpose: Int { "not a number" }\n}\n' >>"$target"
expect_failure "a compile error"
grep -q "error:" "$work/a compile error.log" || { echo "check-test-script: no compiler error was reported" >&2; exit 1; }

cp "$work/User.swift.orig" "$target"
printf '\nextension User {\n    func warnsOnPurpose() {\n        var unused = 1\n    }\n}\n' >>"$target"
expect_failure "a warning"
grep -q "warning:" "$work/a warning.log" || { echo "check-test-script: no compiler warning was reported" >&2; exit 1; }
grep -q "the build has warnings" "$work/a warning.log" || {
  echo "check-test-script: test.sh did not stop on the warning" >&2
  exit 1
}
echo "check-test-script: test.sh refused both broken trees"
