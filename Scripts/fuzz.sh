#!/usr/bin/env bash
# Builds the libFuzzer targets (Tests/Fuzz/Targets/<target>.swift) and runs each for SECONDS
# (default 5), starting from its seed corpus Tests/Fuzz/<target>/. Fails on the first crash, hang,
# out-of-memory or broken property, printing the input that shows it (the reproducer).
#
#   Scripts/fuzz.sh [SECONDS] [TARGET…]     e.g. Scripts/fuzz.sh 300 har walheader
#   Scripts/fuzz.sh --long [TARGET…]         the campaign (not in CI): each target until it has run
#                                            USERDEBUG_FUZZ_RUNS inputs (default 1,000,000), built
#                                            optimised (-O, still ASan) into .build/fuzz-long; then
#                                            what it found that adds coverage is merged into
#                                            Tests/Fuzz/<target>/ (libFuzzer -merge=1), to be
#                                            committed: the seeds grow with every campaign. Prints
#                                            executions, coverage and the seeds added per target.
#
# How it is built: the libraries with ASan and libFuzzer's coverage (a debug build, into a scratch
# path of its own, .build/fuzz, so the normal build is left alone), then each target's one file,
# whose `LLVMFuzzerTestOneInput` is exported with @_cdecl, linked by swiftc against their objects
# and libFuzzer's main. No fuzz entry point is part of a package target, so none reaches a shipped
# binary. New inputs the fuzzer finds go to .build/fuzz/corpus/<target>, never into the repository.
#
# The sanitizer flags are given by hand, not with `swift build --sanitize`: SwiftPM keeps those in a
# set, so their order changes from run to run (each run rebuilds everything), and swiftc given
# -sanitize=fuzzer before -sanitize=address leaves out the coverage counters of Swift code, so the
# fuzzer would see nothing of the libraries. One -sanitize=address,fuzzer is always right.
set -euo pipefail
cd "$(dirname "$0")/.."
long=0
if [[ ${1:-} == --long ]]; then
  long=1
  shift
  runs_wanted=${USERDEBUG_FUZZ_RUNS:-1000000}
  seconds=0 # no time limit: -runs ends it
else
  seconds=${1:-5}
  shift || true
fi
all_targets=(json session response har config curltrace arguments walheader)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")

scratch=.build/fuzz
build_flags=(--scratch-path "$scratch" -Xswiftc -sanitize=address,fuzzer -Xcc -fsanitize=address,fuzzer-no-link)
optimise=-Onone
if [[ $long == 1 ]]; then # a million runs of a debug build take hours on two cores; -O keeps ASan
  scratch=.build/fuzz-long
  build_flags=(-c release --scratch-path "$scratch" -Xswiftc -sanitize=address,fuzzer
    -Xcc -fsanitize=address,fuzzer-no-link -Xswiftc -enable-testing) # two targets @testable import
  optimise=-O
fi
for module in UserDebugCLI COwnerProcess CShared; do swift build "${build_flags[@]}" --target "$module"; done
bin=$(swift build "${build_flags[@]}" --show-bin-path)

# Every object the targets may need, and the C modules' maps (Swift modules record their imports).
objects=()
for module in UserDebugKit DesktopNotify X11Clipboard WaylandClipboard UserDebugCLI CX11 CWayland COwnerProcess CShared; do
  objects+=("$bin/$module.build/"*.o)
done
module_maps=(-I Sources/CSQLite -I Sources/CZlib -I Sources/CBrotli)
for module in CX11 CWayland COwnerProcess CShared; do
  map=$bin/$module.build/module.modulemap  # SwiftPM writes one for a target without its own
  [[ -f $map ]] || map=Sources/$module/include/module.modulemap
  module_maps+=(-Xcc -fmodule-map-file="$map")
done
# cx11.h and cwl.h include CShared's ud_shared.h: its include directory, as SwiftPM passes it.
module_maps+=(-Xcc -I -Xcc Sources/CShared/include)

export SWIFT_BACKTRACE=enable=no  # libFuzzer reports the crash; the Swift backtracer would stall it
status=0
for target in "${targets[@]}"; do
  source=Tests/Fuzz/Targets/$target.swift
  [[ -f $source ]] || { echo "fuzz.sh: no target '$target' (have: ${all_targets[*]})" >&2; exit 2; }
  exe=$scratch/targets/fuzz-$target
  mkdir -p "$scratch/targets" "$scratch/corpus/$target" "$scratch/artifacts/$target"
  if [[ ! -x $exe || $source -nt $exe || $bin/UserDebugCLI.build -nt $exe || $0 -nt $exe ]]; then
    # ld.gold warns of every ASan symbol it cannot export: noise, left out of what is shown.
    swiftc -sanitize=address,fuzzer -parse-as-library -swift-version 6 "$optimise" -g -module-name "Fuzz_$target" \
      -I "$bin/Modules" "${module_maps[@]}" "$source" "${objects[@]}" \
      -lsqlite3 -lz -lbrotlidec -lxcb -lXau -lXdmcp -o "$exe" 2>&1 | { grep -v 'Cannot export local symbol' || true; }
    [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "fuzz.sh: the target $target does not build" >&2; exit 1; }
  fi
  log=$scratch/artifacts/$target/last-run.log
  limits=(-max_total_time="$seconds")
  if [[ $long == 1 ]]; then
    limits=(-runs="$runs_wanted")
    echo "fuzz.sh: $target until $runs_wanted runs" >&2
  else
    echo "fuzz.sh: $target for ${seconds}s" >&2
  fi
  run_status=0
  started=$(date +%s)
  "$exe" "$scratch/corpus/$target" "Tests/Fuzz/$target" "${limits[@]}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target/" >"$log" 2>&1 ||
    run_status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if [[ $run_status -ne 0 ]]; then
    tail -n 40 "$log" >&2
    reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    echo "fuzz.sh: $target FAILED (exit $run_status after ${runs:-?} runs); reproducer: ${reproducer:-none written}" >&2
    echo "fuzz.sh: replay it with: SWIFT_BACKTRACE=enable=no $exe ${reproducer:-<input>}" >&2
    status=1
  elif [[ $long == 1 ]]; then
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    before=$(find "Tests/Fuzz/$target" -type f | wc -l)
    # Only inputs that add coverage to the kept seeds go in; the fuzzer's own names (SHA-1).
    "$exe" -merge=1 "Tests/Fuzz/$target" "$scratch/corpus/$target" >"$log.merge" 2>&1 ||
      { tail -n 20 "$log.merge" >&2; echo "fuzz.sh: $target: merging its corpus failed" >&2; status=1; }
    after=$(find "Tests/Fuzz/$target" -type f | wc -l)
    echo "fuzz.sh: $target ok, ${runs:-?} runs in $(($(date +%s) - started))s, ${coverage:-cov: ?}," \
      "$((after - before)) seeds added to Tests/Fuzz/$target ($after now)" >&2
  else
    echo "fuzz.sh: $target ok, ${runs:-?} runs in ${seconds}s" >&2
  fi
done
exit $status
