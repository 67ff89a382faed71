#!/usr/bin/env bash
# What CI runs: installs missing packages, builds everything (the userdebug binary too, which the
# end-to-end tests drive) with the C warnings on, fails on any compiler warning or error, on a file
# generated from the command specs that is stale (Scripts/gen-cli.py) and on any
# `swift format lint --strict` finding, then runs every test, tier by tier, printing each tier's
# time: the unit and fast integration tier (`swift test` alone), the real-desktop tier, both again
# under AddressSanitizer, the concurrent parts under ThreadSanitizer, the fuzzers. Extra arguments
# go to `swift test` and choose among both tiers (e.g. Scripts/test.sh --filter BadInput).
set -euo pipefail
cd "$(dirname "$0")/.."
# The run gets a mount namespace of its own (same files, same mounts): the program watch below
# marks its mounts, so it sees what the run executes and nothing that others run meanwhile.
if [[ ${USERDEBUG_PROGRAM_CHECK:-1} != 0 && -z ${USERDEBUG_TEST_NAMESPACE:-} ]]; then
  unshare --mount --propagation unchanged -- true || {
    echo "test.sh: unshare --mount failed: the program check needs root (USERDEBUG_PROGRAM_CHECK=0 runs without it)" >&2
    exit 1
  }
  USERDEBUG_TEST_NAMESPACE=1 exec unshare --mount --propagation unchanged -- "$0" "$@"
fi
started=$SECONDS
Scripts/deps.sh --test  # the build packages and the test tools (Xvfb, peers, shells, the PyPI venv)

# The toolchain's programs, then Debian's: not a user's pyenv, cargo or npm shims, which a fresh
# machine may not have (the tests must find Debian's python3, with python3-xlib). The toolchain
# comes first so that the sanitizers and libFuzzer symbolize with its llvm-symbolizer (the
# compiler's own version), not one an llvm package may have put in /usr/bin.
PATH="$(dirname "$(command -v swift)"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export PATH

# Every program that anything in this run starts (a test, a fixture, a script, a program those
# start) is recorded (Scripts/programs.py watch: fanotify exec events on this namespace's mounts)
# and, when the run ends, mapped to its Debian package: a package that deps.sh --test does not
# install (nor apt pull in for it, nor Debian require) fails the run, since a fresh machine would
# not have the program. Not seen: what a test runs inside a mount namespace of its own (one test
# does, `unshare -mn`). USERDEBUG_PROGRAM_CHECK=0 turns the check off (it needs root).
programs_log=.build/test-programs.log
watcher=''
mkdir -p .build
: >"$programs_log"
finish() {
  local status=$?
  rm -f "$log"
  if [[ -n $watcher ]]; then
    kill -TERM "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
    /usr/bin/python3 Scripts/programs.py check --log "$programs_log" || status=1
  fi
  exit "$status"
}
log=$(mktemp "${TMPDIR:-/tmp}/userdebug-build.XXXXXX")
trap finish EXIT
if [[ ${USERDEBUG_PROGRAM_CHECK:-1} != 0 ]]; then
  ready="$log.watching"
  /usr/bin/python3 Scripts/programs.py watch --log "$programs_log" --ready "$ready" &
  watcher=$!
  for _ in $(seq 100); do
    [[ -f $ready ]] && break
    kill -0 "$watcher" 2>/dev/null || { watcher=''; echo "test.sh: the program watch could not start (USERDEBUG_PROGRAM_CHECK=0 runs without it)" >&2; exit 1; }
    sleep 0.1
  done
  [[ -f $ready ]] || { echo "test.sh: the program watch did not start within 10 s" >&2; exit 1; }
  rm -f "$ready"
else
  echo "test.sh: USERDEBUG_PROGRAM_CHECK=0: which programs the tests start is NOT checked" >&2
fi

# The C targets' warnings live here, not in Package.swift: SwiftPM refuses a package whose
# targets carry unsafeFlags as a versioned dependency, and an app depends on UserDebugKit.
c_warnings=(-Xcc -Wall -Xcc -Wextra -Xcc -Werror=implicit-function-declaration)

# Generated sources are current: CWayland's protocol tables against the protocol XML, and the
# files setup writes (SetupTemplates.swift) against config/ (before the build: fails at once).
python3 Scripts/gen-wayland-protocol.py --check && python3 Scripts/gen-templates.py --check || {
  echo "test.sh: a generated file is stale (see above)" >&2
  exit 1
}

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
# The files written from the command specs (the man page's SYNOPSIS and OPTIONS, the bash, zsh and
# fish completions, docs/commands.md) must say what the specs of this build say: regenerated from
# `userdebug __spec` and compared, each stale file named with the command that rewrites it.
python3 Scripts/gen-cli.py --check --binary .build/debug/userdebug || {
  echo "test.sh: files generated from the command specs are stale (named above); run Scripts/gen-cli.py and commit them" >&2
  exit 1
}
swift format lint --strict --recursive Sources Tests Package.swift || {
  echo "test.sh: swift format lint --strict has findings (fix them, or run: swift format format -i -r Sources Tests Package.swift)" >&2
  exit 1
}
python3 Scripts/layers.py  # the folders of UserDebugKit read as layers, no cycles
Scripts/docs.sh --skip-build
echo "test.sh: build and static checks: $((SECONDS - started)) s" >&2

# The tests, in two tiers, each under the reaper (Scripts/reaper.py): whatever a test starts (Xvfb,
# peers, owners) is killed when the run ends, even a hung or crashed one, and a run that leaves a
# process behind fails.
# 1. unit and fast integration: exactly what `swift test` alone runs (the suites marked
#    `.desktopTier` skip themselves there);
# 2. the real desktop: those suites (compositors, clipboard managers, notification daemons,
#    launchers and key grabs, release builds in a clone, install.sh), found by Scripts/tiers.py.
# Arguments (a --filter, say) choose among both tiers at once.
tier_started=$SECONDS
if [[ $# -gt 0 ]]; then
  USERDEBUG_TEST_TIER=all Scripts/reaper.py -- swift test --skip-build "${c_warnings[@]}" "$@"
  echo "test.sh: the chosen tests of both tiers: $((SECONDS - tier_started)) s" >&2
else
  Scripts/reaper.py -- swift test --skip-build "${c_warnings[@]}"
  echo "test.sh: tier 1, unit and fast integration (swift test): $((SECONDS - tier_started)) s" >&2
  tier_started=$SECONDS
  desktop_suites=$(python3 Scripts/tiers.py)
  USERDEBUG_TEST_TIER=desktop Scripts/reaper.py -- swift test --skip-build "${c_warnings[@]}" --filter "$desktop_suites"
  echo "test.sh: tier 2, the real desktop ($(python3 Scripts/tiers.py --list | wc -l) suites): $((SECONDS - tier_started)) s" >&2
fi

# The suite again under AddressSanitizer, and its concurrent parts under ThreadSanitizer, each in a
# scratch path of its own so the normal build above stays valid. The end-to-end tests drive the
# `userdebug` beside the test bundle, so under ASan they drive the ASan build of it (dynamically
# linked: -static-executable with -sanitize=address does not link). Foundation's Process leaks 32
# bytes, hence detect_leaks=0. TSan does not follow the thread glibc's getaddrinfo_a resolves on:
# the one test reaching a display by host name stays out of that run. USERDEBUG_SANITIZERS=0 skips
# both (and the fuzzers) for a quick local run.
# ld.gold warns of every ASan symbol it cannot export: noise, left out of the log.
quiet_link() { grep -v 'Cannot export local symbol' || true; }
if [[ ${USERDEBUG_SANITIZERS:-1} != 0 ]]; then
  # Both tiers at once from here on.
  export USERDEBUG_TEST_TIER=all
  tier_started=$SECONDS
  echo "test.sh: the suite under AddressSanitizer (.build/asan)" >&2
  swift build --build-tests --sanitize address --scratch-path .build/asan "${c_warnings[@]}" 2>&1 | quiet_link
  # The tests that run userdebug under `ulimit -v` stay out: ASan reserves terabytes of address
  # space for its shadow memory, so an ASan build cannot start under that limit at all (the normal
  # run above has them).
  under_ulimit='anInputBeyondTheMemoryLimitIsExit65WithAMessageNotATrap|anEndlessDeviceUnderAMemoryLimitIsExit65'
  under_ulimit+='|aBodyThatCannotBeHeldIsExit74WithAMessageNotATrap'
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 Scripts/reaper.py -- swift test --skip-build --sanitize address \
    --scratch-path .build/asan --skip "$under_ulimit" "$@"
  echo "test.sh: tier 3, both tiers under AddressSanitizer: $((SECONDS - tier_started)) s" >&2
  tier_started=$SECONDS
  echo "test.sh: store, deferred actions and owners under ThreadSanitizer (.build/tsan)" >&2
  swift build --build-tests --sanitize thread --scratch-path .build/tsan "${c_warnings[@]}" 2>&1 | quiet_link
  Scripts/reaper.py -- swift test --skip-build --sanitize thread --scratch-path .build/tsan \
    --filter 'UserDebugKitTests\.(Store|CurrentSessionCache|ActionDeferred)' \
    --filter X11ClipboardTests --skip aTCPDisplayIsReachedByNameAndByAddress
  echo "test.sh: tier 4, ThreadSanitizer: $((SECONDS - tier_started)) s" >&2
  tier_started=$SECONDS
  # A short run of every libFuzzer target (Tests/Fuzz), its seeds and past crashes replayed first.
  Scripts/fuzz.sh "${USERDEBUG_FUZZ_SECONDS:-10}"
  echo "test.sh: tier 5, the fuzzers: $((SECONDS - tier_started)) s" >&2
fi
echo "test.sh: every tier passed; $((SECONDS - started)) s in all (the program check follows)" >&2
