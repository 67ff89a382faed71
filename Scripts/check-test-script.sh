#!/usr/bin/env bash
# Proves that Scripts/test.sh cannot go green on a broken tree: in a fresh clone of HEAD it adds a
# compile error, then (instead) a compiler warning, then a stale generated file (CWayland's
# protocol tables), and requires test.sh to exit non-zero before any test runs each time. Then it
# adds an option to a command's spec without regenerating the man page and completions, and
# requires the check test.sh runs (Scripts/gen-cli.py --check) to fail naming them. Then it
# proves that the program check (Scripts/programs.py) fails when
# the tests start a program that no set of Scripts/deps.sh installs. CI runs it after the suite
# (.ci/run), whose record of started programs (.build/test-programs.log) it reads.
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
cp "$work/User.swift.orig" "$target"
# A generated file edited by hand (or its XML changed without regenerating): CWayland's protocol
# tables no longer what Scripts/gen-wayland-protocol.py makes of the protocol XML.
tables="$work/clone/Sources/CWayland/cwl_protocol.c"
sed -i 's/{"send", "sh",/{"send", "s",/' "$tables"
grep -q '{"send", "s",' "$tables" || { echo "check-test-script: could not make the protocol tables stale" >&2; exit 1; }
expect_failure "a stale generated file"
grep -q "cwl_protocol.c is stale" "$work/a stale generated file.log" || {
  echo "check-test-script: test.sh did not name the stale protocol tables" >&2
  exit 1
}
git -C "$work/clone" checkout --quiet -- Sources/CWayland/cwl_protocol.c
echo "check-test-script: test.sh refused the three broken trees"

# A new option in a command's spec, the generated files not regenerated: the check test.sh runs
# after its build (Scripts/gen-cli.py --check) must exit non-zero naming each stale file. The
# clone's build is reused: only the userdebug product is rebuilt, which recompiles UserDebugCLI
# alone (the warning above stays in UserDebugKit; it does not change the specs).
build_cli() {
  (cd "$work/clone" && swift build --product userdebug -Xcc -Wall -Xcc -Wextra \
    -Xcc -Werror=implicit-function-declaration) >"$work/cli-build.log" 2>&1 || {
    tail -20 "$work/cli-build.log" >&2
    echo "check-test-script: the userdebug product of the clone did not build" >&2
    exit 1
  }
}
gen_check() {
  /usr/bin/python3 "$work/clone/Scripts/gen-cli.py" --check --root "$work/clone" --binary "$work/clone/.build/debug/userdebug"
}
build_cli
gen_check 2>"$work/gen-fresh.log" || {
  cat "$work/gen-fresh.log" >&2
  echo "check-test-script: the generated files of HEAD are stale (run Scripts/gen-cli.py)" >&2
  exit 1
}
daemon="$work/clone/Sources/UserDebugCLI/Commands/DaemonCommand.swift"
grep -q '\.flag("check", ' "$daemon" || { echo "check-test-script: no --check option in $daemon to add one beside" >&2; exit 1; }
sed -i 's|\.flag("check", |.flag("stale-on-purpose", "Added without regenerating."), &|' "$daemon"
build_cli
status=0
gen_check 2>"$work/gen-stale.log" || status=$?
for file in config/userdebug.1 config/completions/userdebug.bash config/completions/_userdebug \
  config/completions/userdebug.fish docs/commands.md; do
  if [[ $status -ne 1 ]] || ! grep -q "gen-cli: $file is stale: .* regenerate it with Scripts/gen-cli.py" "$work/gen-stale.log"; then
    cat "$work/gen-stale.log" >&2
    echo "check-test-script: with --stale-on-purpose added to a spec, the generation check did not fail naming $file" >&2
    exit 1
  fi
done
echo "check-test-script: the generation check exits $status naming the 5 files a new option leaves stale"

# The program check, on what the suite really started: as if deps.sh --test lacked
# x11-xserver-utils (the package a fresh machine missed), it must fail and name the programs
# the tests take from it; with the sets as they are, it must pass.
record="$root/.build/test-programs.log"
[[ -s $record ]] || { echo "check-test-script: no $record: run Scripts/test.sh first" >&2; exit 1; }
python3=/usr/bin/python3
"$python3" "$root/Scripts/programs.py" check --log "$record" 2>"$work/check.log" || {
  cat "$work/check.log" >&2
  echo "check-test-script: the program check fails on the suite's own record" >&2
  exit 1
}
status=0
"$python3" "$root/Scripts/programs.py" check --log "$record" --without x11-xserver-utils 2>"$work/without.log" || status=$?
if [[ $status -ne 1 ]] || ! grep -q '/usr/bin/xrdb: from x11-xserver-utils' "$work/without.log"; then
  cat "$work/without.log" >&2
  echo "check-test-script: without x11-xserver-utils in the sets, the program check did not fail naming xrdb" >&2
  exit 1
fi
echo "check-test-script: the program check names what a set lacks: $(grep -c 'from x11-xserver-utils' "$work/without.log") program(s) of x11-xserver-utils"

# And a program started after the watch begins, from a package outside every set, is caught live:
# a throwaway watch around one `xset -version`, checked without x11-xserver-utils.
(
  ready="$work/ready" live="$work/live.log" me=$BASHPID  # (expanded in a background job, it would be the job's own)
  "$python3" "$root/Scripts/programs.py" watch --root "$me" --log "$live" --ready "$ready" &
  watcher=$!
  for _ in $(seq 100); do [[ -f $ready ]] && break; sleep 0.1; done
  [[ -f $ready ]] || { kill "$watcher"; echo "check-test-script: the watch did not start" >&2; exit 1; }
  xset -version >/dev/null 2>&1 || true
  sleep 0.3
  kill -TERM "$watcher"; wait "$watcher" || true
  status=0
  "$python3" "$root/Scripts/programs.py" check --log "$live" --without x11-xserver-utils 2>"$work/live-check.log" || status=$?
  [[ $status -eq 1 ]] && grep -q '/usr/bin/xset: from x11-xserver-utils' "$work/live-check.log" || {
    cat "$work/live-check.log" >&2
    echo "check-test-script: a live xset from outside the sets was not caught" >&2
    exit 1
  }
  "$python3" "$root/Scripts/programs.py" check --log "$live" 2>/dev/null || {
    echo "check-test-script: the live record fails the check with the sets as they are" >&2
    exit 1
  }
)
echo "check-test-script: a program started from outside the sets fails the check"
