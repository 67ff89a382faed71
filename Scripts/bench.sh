#!/usr/bin/env bash
# Benchmarks (not tests: nothing here asserts a time). Builds the fully static release binary and
# prints each figure with the command that produced it; BENCHMARKS.md records the results.
#   Scripts/bench.sh            everything
#   Scripts/bench.sh startup    copy-id --to stdout beside /bin/true and printf
#   Scripts/bench.sh store      print-response last at 10 vs 1,000,000 responses; library record rate
#   Scripts/bench.sh clipboard  copy latency vs xclip/xsel, stale reads, 128 MiB throughput (own Xvfb)
#   Scripts/bench.sh wayland    the same beside wl-copy/wl-paste on a headless sway (data-control)
#   Scripts/bench.sh profile    where copy-id --to clipboard spends its CPU (perf, by phase)
#   Scripts/bench.sh popup      the popup menu: start -> window mapped, a typed filter key -> redrawn
#                               with 200 entries (Scripts/popup_bench.py, own Xvfb; RUNS=50 default)
#   Scripts/bench.sh json       JSONParser on 64 MiB of string escapes beside Python's json.load
#   Scripts/bench.sh hotkey     key press -> CLIPBOARD has a new owner, one Xvfb, interleaved: a bare
#                               XGrabKey program (the floor), userdebug daemon, sxhkd running
#                               userdebug and xclip, xbindkeys running userdebug (HOTKEY_ROUNDS=5,
#                               HOTKEY_PRESSES=20, HOTKEY_SETTLE=0.25 s)
#   Scripts/bench.sh large      128 MiB copy and paste beside xclip, a 60 MiB body printed revealed
#                               and redacted: median wall time and peak RSS (/usr/bin/time -f %M)
#                               of LARGE_RUNS (default 5) interleaved rounds (own Xvfb)
#   Scripts/bench.sh audit      each speed mechanism with and without it (USERDEBUG_DISABLE, docs/diagnosis.md)
#                               on the path it serves, interleaved: medians and their ratio, the
#                               load average before and after (AUDIT_RUNS=100, AUDIT_LARGE_RUNS=5,
#                               AUDIT_HOTKEY_ROUNDS=5, AUDIT_HOTKEY_PRESSES=20; own Xvfb servers and a headless sway)
#   Scripts/bench.sh config     copy-id --to clipboard with no config, the daemon's hotkeys file,
#                               {"notifications":"never"} and the shipped template with hotkeys,
#                               interleaved beside xclip; then after another owner (xclip and
#                               copy-id alternating); then each one's instructions (callgrind)
#   Scripts/bench.sh owners     a 128 MiB copy from a file beside xclip, on a fresh server, after
#                               another program's copy, after its own, after the daemon's key
#                               press and with csd-clipboard managing (LARGE_RUNS rounds, own Xvfb)
#   Scripts/bench.sh readable   Wayland copies by time-until-readable: wl-copy, copy-id and copy, from the
#                               command's start until a data-control listener has read the new value
#                               (Scripts/bench/readable_bench.py), on a headless sway and KWin; then the
#                               same on sway with a wl-paste -n polling reader (READABLE_ROUNDS=50,
#                               READABLE_POLL_ROUNDS=20)
#   BENCH_WRITE=1 Scripts/bench.sh hotkey|config|owners|readable|store|json   also writes that section's table into
#                               BENCHMARKS.md (between its <!-- bench.sh SECTION --> markers;
#                               Scripts/bench_write.py), with the date and the load average
#   Scripts/bench.sh before REV  the hotkey path (copy-id to stdout and to the clipboard) of REV
#                               beside this tree's, in one run (REV built in a temporary worktree)
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/deps.sh --bench
what=${1:-all}
before_rev=${2:-}
runs=${RUNS:-200}

swift build -c release -Xswiftc -static-executable >/dev/null 2>&1 || swift build -c release -Xswiftc -static-executable
built=$(swift build -c release -Xswiftc -static-executable --show-bin-path)
work=$(mktemp -d /tmp/userdebug-bench.XXXXXX)
# The programs measured are copies installed as Scripts/install.sh installs them (and as dpkg
# installs xclip), not the linker's output in .build: a process started from a freshly linked
# file pays for the page cache the linker's small writes left, up to 20% of a copy-id here (an
# A/A interleave of the two files: 2.19 vs 1.83 ms; equal once the page cache was dropped).
bin=$work/bin
mkdir -p "$bin"
for program in userdebug userdebug-popup userdebug-bench; do install -m 755 "$built/$program" "$bin/$program"; done
ud=$bin/userdebug
xvfb_pids=()
helper_pids=() # programs started against those servers (hotkey daemons), stopped first
sway_pids=()
sway_dirs=()
cleanup() {
  for pid in "${helper_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${xvfb_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${sway_pids[@]}"; do
    for child in $(pgrep -P "$pid" || true); do kill -9 "$child" 2>/dev/null || true; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$work" "${sway_dirs[@]}"
}
trap cleanup EXIT

echo "# userdebug benchmarks — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -r)"
echo "# binary: $(file -b "$ud" | cut -d, -f1-4), $(stat -c %s "$ud") bytes"

home_with() { # home_with DIR COUNT: a home with the sample session and COUNT responses
  local dir=$1 count=$2
  mkdir -p "$dir"
  USERDEBUG_HOME=$dir "$ud" session import config/sample-session.json --session bench -q
  "$bin/userdebug-bench" fill "$dir/data/userdebug.sqlite3" "$count" >/dev/null
  USERDEBUG_HOME=$dir "$ud" session use bench -q
}

start_xvfb() { # start_xvfb VAR: a private Xvfb (stopped by pid on exit); its display name in VAR
  local file
  file=$(mktemp "$work/display.XXXXXX")
  exec 3>"$file"
  Xvfb -displayfd 3 -noreset -nolisten tcp >/dev/null 2>&1 &
  xvfb_pids+=($!)
  exec 3>&-
  for _ in $(seq 100); do [[ -s "$file" ]] && break; sleep 0.05; done
  printf -v "$1" ':%s' "$(head -1 "$file")"
}

section_load=$(cut -d' ' -f1 /proc/loadavg)
write_figures() { # write_figures AREA FILE...: with BENCH_WRITE=1, AREA's table in BENCHMARKS.md (Scripts/bench_write.py)
  [[ ${BENCH_WRITE:-} == 1 ]] || return 0
  local area=$1 now loads
  shift
  now=$(cut -d' ' -f1 /proc/loadavg)
  loads=$(printf '%s\n%s\n' "$section_load" "$now" | sort -g | paste -sd' ')
  python3 Scripts/bench_write.py "$area" "$(date -u '+%Y-%m-%d %H:%M') UTC, load ${loads% *}–${loads#* }" "$@"
}

start_sway() { # a headless sway as userdebug-test (sway refuses root); exports WAYLAND_DISPLAY, XDG_RUNTIME_DIR
  id userdebug-test >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin userdebug-test
  local uid gid dir
  uid=$(id -u userdebug-test)
  gid=$(id -g userdebug-test)
  dir=$(mktemp -d /tmp/userdebug-bench-sway.XXXXXX)
  sway_dirs+=("$dir")
  chown "$uid:$gid" "$dir"
  chmod 700 "$dir"
  printf 'xwayland disable\n' > "$dir/sway.conf"
  chmod 644 "$dir/sway.conf"
  env -i PATH=/usr/bin:/bin HOME="$dir" XDG_RUNTIME_DIR="$dir" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 \
    WLR_RENDERER=pixman setpriv --reuid="$uid" --regid="$gid" --clear-groups -- sway -c "$dir/sway.conf" \
    >/dev/null 2>&1 &
  sway_pids+=($!)
  disown  # killed by pid in cleanup; no "Killed" notice from the shell
  for _ in $(seq 200); do compgen -G "$dir/wayland-[0-9]" >/dev/null && break; sleep 0.05; done
  export XDG_RUNTIME_DIR=$dir
  WAYLAND_DISPLAY=$(compgen -G "$dir/wayland-[0-9]" | head -1)
  export WAYLAND_DISPLAY
  unset DISPLAY
}

start_kwin() { # a virtual KWin (no XWayland) as userdebug-test, as start_sway; 1 if it did not start
  id userdebug-test >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin userdebug-test
  local uid gid dir
  uid=$(id -u userdebug-test)
  gid=$(id -g userdebug-test)
  dir=$(mktemp -d /tmp/userdebug-bench-kwin.XXXXXX)
  sway_dirs+=("$dir")
  chown "$uid:$gid" "$dir"
  chmod 700 "$dir"
  # A copy has no file capability (exec of the original fails with EPERM in a container).
  cp /usr/bin/kwin_wayland "$dir/kwin_wayland"
  chmod 755 "$dir/kwin_wayland"
  env -i PATH=/usr/bin:/bin HOME="$dir" XDG_RUNTIME_DIR="$dir" LANG=C.UTF-8 \
    setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$dir/kwin_wayland" --virtual --socket wayland-ud \
    --no-lockscreen --no-global-shortcuts --no-kactivities >"$dir/kwin.log" 2>&1 &
  sway_pids+=($!)
  disown
  for _ in $(seq 300); do [[ -S $dir/wayland-ud ]] && break; sleep 0.05; done
  [[ -S $dir/wayland-ud ]] || return 1
  export XDG_RUNTIME_DIR=$dir WAYLAND_DISPLAY=wayland-ud
  unset DISPLAY
}

if [[ $what == readable ]]; then
  # Issue 26, item 4: wl-copy returns before its serving child has set the selection, copy-id
  # after the compositor confirmed its source, so each is timed until a reader has the value.
  echo; echo "## Wayland: time until readable (DISPLAY unset, so userdebug uses Wayland)"
  mkdir -p "$work/readable"
  export USERDEBUG_HOME=$work/readable
  "$ud" session import config/sample-session.json -q
  start_sway
  section_load=$(cut -d' ' -f1 /proc/loadavg)
  echo; echo "### sway 1.7 (headless), data-control listener: Scripts/bench/readable_bench.py $ud ${READABLE_ROUNDS:-50} --unchanged"
  python3 Scripts/bench/readable_bench.py "$ud" "${READABLE_ROUNDS:-50}" --unchanged | tee "$work/readable-sway"
  echo; echo "### sway, wl-paste -n polling: Scripts/bench/readable_bench.py $ud ${READABLE_POLL_ROUNDS:-20} --reader poll"
  python3 Scripts/bench/readable_bench.py "$ud" "${READABLE_POLL_ROUNDS:-20}" --reader poll | tee "$work/readable-poll"
  : >"$work/readable-kwin"
  if command -v kwin_wayland >/dev/null && start_kwin; then
    echo; echo "### KWin 5.27 (--virtual), data-control listener: Scripts/bench/readable_bench.py $ud ${READABLE_ROUNDS:-50} --unchanged"
    python3 Scripts/bench/readable_bench.py "$ud" "${READABLE_ROUNDS:-50}" --unchanged | tee "$work/readable-kwin"
  else
    echo; echo "### KWin: not started (no kwin_wayland, or no socket within 15 s)"
  fi
  write_figures readable "$work/readable-sway" "$work/readable-poll" "$work/readable-kwin"
fi

if [[ $what == before ]]; then
  [[ -n "$before_rev" ]] || { echo "usage: Scripts/bench.sh before REV" >&2; exit 64; }
  echo; echo "## hotkey path: $before_rev vs this tree"
  git worktree add -q --detach "$work/before" "$before_rev"
  (cd "$work/before" && swift build -c release -Xswiftc -static-executable >/dev/null 2>&1)
  old=$work/before-bin/userdebug  # installed, as this tree's is (see above)
  install -D -m 755 "$(cd "$work/before" && swift build -c release -Xswiftc -static-executable --show-bin-path)/userdebug" "$old"
  mkdir -p "$work/hot"
  USERDEBUG_HOME=$work/hot "$ud" session import config/sample-session.json -q
  start_xvfb DISPLAY; export DISPLAY
  USERDEBUG_HOME=$work/hot hyperfine -N --style none --warmup 20 --runs "$runs" --export-json "$work/before.json" \
    -n "copy-id --to stdout ($before_rev)" "$old copy-id --to stdout" \
    -n 'copy-id --to stdout (this tree)' "$ud copy-id --to stdout" \
    -n "copy-id --to clipboard ($before_rev)" "$old copy-id --to clipboard -q" \
    -n 'copy-id --to clipboard (this tree)' "$ud copy-id --to clipboard -q"
  python3 Scripts/bench_table.py "$work/before.json"
  echo; echo "### the same, interleaved (every round runs each command once, rotating the order)"
  USERDEBUG_HOME=$work/hot python3 Scripts/interleave.py "$runs" \
    "$old copy-id --to clipboard -q" "$ud copy-id --to clipboard -q"
  echo; echo "### warm copies, in alternating blocks (each binary's copies handed to its own owner; 10 a block)"
  # hyperfine's blocks above run each command's repetitions back to back, so a load that changes
  # between them (a build starting) lands on one side; here the blocks alternate.
  USERDEBUG_HOME=$work/hot python3 Scripts/interleave.py --block 10 "$(( (runs + 9) / 10 ))" \
    "$old copy-id --to clipboard -q" "$ud copy-id --to clipboard -q"
  echo; echo "### instructions of the copying process (callgrind; independent of the machine's load)"
  # Logs to files, not a pipe: the owner forked under valgrind keeps its log descriptor open.
  # Only the copying process has exited (and written its count) when valgrind returns.
  # Stripped copies: valgrind gives up on the static binaries' debug info.
  strip -o "$work/ud-before" "$old"
  strip -o "$work/ud-after" "$ud"
  for build in "before=$work/ud-before" "after=$work/ud-after"; do
    for round in 1 2 3; do
      USERDEBUG_HOME=$work/hot valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        --log-file="$work/callgrind-${build%%=*}-$round.%p" "${build#*=}" copy-id --to clipboard -q
      count=$(cat "$work/callgrind-${build%%=*}-$round".* | awk '/Collected/ { print $4 }')
      echo "copy-id --to clipboard, ${build%%=*} ($([[ ${build%%=*} == before ]] && echo "$before_rev" || echo "this tree")), round $round: $count instructions"
    done
  done
  git worktree remove --force "$work/before"
fi

if [[ $what == audit ]]; then
  # Issue 22, item 6: each mechanism exists to save time on one path; it stays where it saves at
  # least 10% there (with ÷ without ≤ 0.90). Both sides of a row run in one interleaved series
  # (Scripts/interleave.py: every round runs each once, the order rotating), so a load that comes
  # and goes hits both alike. Each side has its own server where the two would disturb each other.
  audit_runs=${AUDIT_RUNS:-100}
  echo; echo "## audit: each speed mechanism with and without it (USERDEBUG_DISABLE), interleaved"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  export USERDEBUG_HOME=$work/audit
  mkdir -p "$USERDEBUG_HOME"
  "$ud" session import config/sample-session.json -q
  : > "$work/audit.rows"
  audit_row() { # audit_row MECHANISM PATH ROUNDS WITH WITHOUT [interleave.py options...]
    local mechanism=$1 path=$2 rounds=$3 with=$4 without=$5
    shift 5
    python3 Scripts/interleave.py "$@" "$rounds" "$with" "$without" > "$work/audit.table"
    python3 - "$mechanism" "$path" "$work/audit.table" "$with" "$without" >> "$work/audit.rows" <<'PY'
import sys
mechanism, path, table, with_cmd, without_cmd = sys.argv[1:]
rows = [line.split("|") for line in open(table) if line.startswith("| `")]
(with_ms, without_ms) = (float(r[2]) for r in rows)
# In blocks, interleave.py also gives the command's own CPU time (user + system), which the
# machine's load moves less than the wall time.
cpu = f" (CPU {float(rows[0][3]):.2f} / {float(rows[1][3]):.2f})" if len(rows[0]) > 6 else ""
ratio = with_ms / without_ms
decision = "yes: keep" if ratio <= 0.90 else "no: delete"
print(f"| {mechanism} | {path} | {with_ms:.2f} ms | {without_ms:.2f} ms{cpu} | {ratio:.2f} | {decision} "
      f"| `{with_cmd}` vs `{without_cmd}` |")
PY
    tail -1 "$work/audit.rows"
  }
  start_xvfb d_resident
  start_xvfb d_plain
  start_xvfb d_cold
  start_xvfb d_large
  # The session copy beside the store is written once the store has settled.
  "$ud" copy-id --to stdout >/dev/null; sleep 0.3; "$ud" copy-id --to stdout >/dev/null
  # Blocks of 5 (the first of each dropped): the table then has each side's CPU time too.
  blocks=$(( (audit_runs + 4) / 5 ))
  audit_row resident "X11 copy-id --to clipboard, a copy of ours already serving" "$blocks" \
    "DISPLAY=$d_resident $ud copy-id --to clipboard -q" \
    "DISPLAY=$d_plain USERDEBUG_DISABLE=resident $ud copy-id --to clipboard -q" --block 5
  audit_row session-cache "copy-id --to stdout (the store settled)" "$blocks" \
    "$ud copy-id --to stdout" "USERDEBUG_DISABLE=session-cache $ud copy-id --to stdout" --block 5
  (set +o pipefail; head -c $((100 * 1024 * 1024)) /dev/urandom | base64 -w 0 | head -c $((128 * 1024 * 1024)) > "$work/big")
  audit_row large-buffer "X11 copy < 128 MiB file" "${AUDIT_LARGE_RUNS:-5}" \
    "DISPLAY=$d_large sh -c '$ud copy -q < $work/big'" \
    "DISPLAY=$d_large USERDEBUG_DISABLE=large-buffer sh -c '$ud copy -q < $work/big'"

  # The daemon: a key press until CLIPBOARD has a new owner (Scripts/hotkey_bench.py), one
  # daemon with its in-process owner (Super+Alt+I) and one without (Super+Alt+K), each with its
  # own home and runtime directory (the daemon's lock), on one server, presses interleaved.
  hk=$work/audit-hotkey
  for home in hosted forked; do
    mkdir -p "$hk/run-$home" && chmod 700 "$hk/run-$home"
    for which in a b; do
      sed "s/usr_8f14e45f/usr_${which}_$home/" config/sample-session.json >"$hk/$which.json"
      USERDEBUG_HOME=$hk/$home "$ud" session import "$hk/$which.json" --session "$which" -q
    done
    mkdir -p "$hk/$home/config"
  done
  printf '{"hotkeys": {"Super+Alt+I": "copy-id"}}\n' >"$hk/hosted/config/config.json"
  printf '{"hotkeys": {"Super+Alt+K": "copy-id"}}\n' >"$hk/forked/config/config.json"
  start_xvfb d_daemons
  DISPLAY=$d_daemons USERDEBUG_HOME=$hk/hosted XDG_RUNTIME_DIR=$hk/run-hosted "$ud" daemon 2>"$hk/hosted.log" &
  helper_pids+=($!)
  DISPLAY=$d_daemons USERDEBUG_HOME=$hk/forked XDG_RUNTIME_DIR=$hk/run-forked USERDEBUG_DISABLE=hosted-owner \
    "$ud" daemon 2>"$hk/forked.log" &
  helper_pids+=($!)
  for _ in $(seq 200); do grep -q 'daemon: pid' "$hk/hosted.log" && grep -q 'daemon: pid' "$hk/forked.log" && break; sleep 0.05; done
  DISPLAY=$d_daemons UD=$ud /usr/bin/python3 Scripts/hotkey_bench.py "${AUDIT_HOTKEY_ROUNDS:-5}" \
    "${AUDIT_HOTKEY_PRESSES:-20}" "with=i=session:$hk/hosted:usr_a_hosted:usr_b_hosted" \
    "without=k=session:$hk/forked:usr_a_forked:usr_b_forked" > "$work/audit.hotkey"
  python3 - "$work/audit.hotkey" >> "$work/audit.rows" <<'PY'
import re, sys
medians = dict(re.findall(r"^(with|without)\s+owner set: median\s+([0-9.]+)", open(sys.argv[1]).read(), re.M))
w, wo = float(medians["with"]), float(medians["without"])
print(f"| hosted-owner | daemon: key press -> CLIPBOARD has a new owner | {w:.2f} ms | {wo:.2f} ms | {w / wo:.2f} "
      f"| {'yes: keep' if w / wo <= 0.90 else 'no: delete'} | `Scripts/hotkey_bench.py`: `userdebug daemon` vs "
      f"`USERDEBUG_DISABLE=hosted-owner userdebug daemon` |")
PY
  tail -1 "$work/audit.rows"

  # Wayland (a headless sway, data-control): the resident owner in alternating blocks (a copy is
  # warm only after a copy of its own side, on one compositor; the first of each block is dropped),
  # the globals cache on cold copies (--new-owner: connect, bind, fork).
  if command -v sway >/dev/null; then
    start_sway
    "$ud" copy-id --to clipboard -q --new-owner
    audit_row resident "Wayland copy-id --to clipboard, a copy of ours already serving" "$(( (audit_runs + 9) / 10 ))" \
      "$ud copy-id --to clipboard -q" "USERDEBUG_DISABLE=resident $ud copy-id --to clipboard -q" --block 10
    audit_row globals-cache "Wayland copy-id --to clipboard --new-owner (connect, bind, fork)" "$blocks" \
      "$ud copy-id --to clipboard -q --new-owner" \
      "USERDEBUG_DISABLE=globals-cache $ud copy-id --to clipboard -q --new-owner" --block 5
  fi
  echo
  echo "| mechanism | path | with | without | with ÷ without | ≥ 10% saved? | commands |"
  echo "|---|---|---|---|---|---|---|"
  cat "$work/audit.rows"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

if [[ $what == config ]]; then
  # What a command pays for the config file it reads (issue 26): each config in its own home,
  # the copies interleaved with xclip's on a second server (rounds rotate the order).
  echo; echo "## copy-id --to clipboard by config file, beside xclip (own Xvfb)"
  start_xvfb DISPLAY; export DISPLAY
  start_xvfb display_b
  for home in none hotkeys never full; do
    mkdir -p "$work/$home/config" && chmod 700 "$work/$home" "$work/$home/config"
    USERDEBUG_HOME=$work/$home "$ud" session import config/sample-session.json -q
  done
  cp config/hotkeys/userdebug-daemon.json "$work/hotkeys/config/config.json"
  echo '{"notifications": "never"}' >"$work/never/config/config.json"
  sed 's/"hotkeys": {}/"hotkeys": {"Super+Alt+I": "copy-id", "Super+Alt+J": "dump-json", "Super+Alt+M": "menu"}/' \
    config/config.json >"$work/full/config/config.json"
  chmod 600 "$work"/*/config/config.json
  section_load=$(cut -d' ' -f1 /proc/loadavg)
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 Scripts/interleave.py "$runs" \
    "sh -c 'printf usr_8f14e45f | xclip -display $display_b -selection clipboard'" \
    "USERDEBUG_HOME=$work/none $ud copy-id --to clipboard -q" \
    "USERDEBUG_HOME=$work/hotkeys $ud copy-id --to clipboard -q" \
    "USERDEBUG_HOME=$work/never $ud copy-id --to clipboard -q" \
    "USERDEBUG_HOME=$work/full $ud copy-id --to clipboard -q" | tee "$work/config.table"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The state a hotkey usually meets: another program copied last. Alternating on one server,
  # each copy takes CLIPBOARD from the other's owner (ours connects and forks; no hand-off).
  echo; echo "### after another owner: xclip and copy-id alternating on one server"
  python3 Scripts/interleave.py "$runs" \
    "sh -c 'printf usr_8f14e45f | xclip -selection clipboard'" \
    "USERDEBUG_HOME=$work/full $ud copy-id --to clipboard -q" | tee "$work/config-other.table"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo; echo "### instructions of the copying process (callgrind; independent of the machine's load)"
  strip --strip-debug -o "$work/ud-symbols" "$ud"  # valgrind gives up on the static binary's debug info
  for home in none hotkeys never full; do
    USERDEBUG_HOME=$work/$home valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      --log-file="$work/callgrind-$home.%p" "$work/ud-symbols" copy-id --to clipboard -q
    echo "$home: $(cat "$work/callgrind-$home".* | awk '/Collected/ { print $4 }') instructions"
  done | tee "$work/config.instructions"
  write_figures config "$work/config.table" "$work/config-other.table" "$work/config.instructions"
fi

if [[ $what == owners ]]; then
  # A 128 MiB copy in the states a user meets: after another program's copy (xclip's) and after
  # its own 128 MiB copy (our owner, or xclip's, holding the last one). Wall, system time, peak RSS.
  echo; echo "## 128 MiB copy by owner state (LARGE_RUNS=${LARGE_RUNS:-5} rounds, interleaved)"
  start_xvfb DISPLAY; export DISPLAY
  mkdir -p "$work/owners" && chmod 700 "$work/owners"
  export USERDEBUG_HOME=$work/owners
  (set +o pipefail; head -c $((100 * 1024 * 1024)) /dev/urandom | base64 -w 0 | head -c $((128 * 1024 * 1024)) > "$work/big")
  # The daemon's in-process owner holds CLIPBOARD after a key press (XTEST, xdotool).
  mkdir -p "$work/owners/config" "$work/owners-run" && chmod 700 "$work/owners-run"
  printf '{"hotkeys": {"Super+Alt+I": "copy-id"}}\n' >"$work/owners/config/config.json"
  chmod 600 "$work/owners/config/config.json"
  "$ud" session import config/sample-session.json -q
  XDG_RUNTIME_DIR=$work/owners-run "$ud" daemon 2>"$work/owners-daemon.log" &
  helper_pids+=($!)
  for _ in $(seq 200); do grep -q 'daemon: pid' "$work/owners-daemon.log" && break; sleep 0.05; done
  # A server whose clipboard csd-clipboard manages: it takes every new CLIPBOARD (all 128 MiB).
  start_xvfb d_managed
  DISPLAY=$d_managed NO_AT_BRIDGE=1 dbus-run-session -- csd-clipboard >/dev/null 2>&1 &
  manager_pid=$!
  DISPLAY=$d_managed /usr/bin/python3 -c '
import sys, time
from Xlib import display
d = display.Display()
atom = d.intern_atom("CLIPBOARD_MANAGER")
for _ in range(200):
    owner = d.get_selection_owner(atom)
    if getattr(owner, "id", owner):
        sys.exit(0)
    time.sleep(0.05)
sys.exit("bench.sh: csd-clipboard did not take CLIPBOARD_MANAGER")'
  section_load=$(cut -d' ' -f1 /proc/loadavg)
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  : >"$work/owners.tsv"
  for round in $(seq "${LARGE_RUNS:-5}"); do
    for tool in userdebug xclip; do
      if [[ $tool == xclip ]]; then copy="xclip -selection clipboard < $work/big"; else copy="$ud copy -q < $work/big"; fi
      for state in fresh "after xclip" "after its own" "after the daemon" "with a clipboard manager"; do
        target=$DISPLAY
        case $state in
          fresh) start_xvfb target ;; # a server whose CLIPBOARD nobody has owned yet
          "after xclip") printf other | xclip -selection clipboard ;;
          "after its own") sh -c "$copy" ;;
          "after the daemon") xdotool key super+alt+i ;;
          "with a clipboard manager") target=$d_managed; printf other | DISPLAY=$target xclip -selection clipboard ;;
        esac
        sleep 0.3
        if [[ $state == "after the daemon" && $(xclip -o -selection clipboard) != usr_8f14e45f ]]; then
          echo "bench.sh: the daemon's key press did not copy (log: $(tail -3 "$work/owners-daemon.log"))" >&2
          exit 1
        fi
        DISPLAY=$target /usr/bin/time -f '%e\t%S\t%M' -o "$work/rss" sh -c "$copy"
        printf '%s\t%s\t%s\n' "$tool" "$state" "$(tail -1 "$work/rss")" >>"$work/owners.tsv"
        if [[ $state == fresh ]]; then kill "${xvfb_pids[-1]}"; unset 'xvfb_pids[-1]'; fi
      done
    done
  done
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 - "$work/owners.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tool, state, wall, system, kib = line.rstrip("\n").split("\t")
    rows.setdefault((tool, state), []).append((float(wall), float(system), int(kib)))
print("| command | state | median wall | largest wall | median system | median peak RSS | runs |")
print("|---|---|---|---|---|---|---|")
for (tool, state), runs in rows.items():
    print(f"| {tool} | {state} | {statistics.median(r[0] for r in runs):.2f} s | {max(r[0] for r in runs):.2f} s "
          f"| {statistics.median(r[1] for r in runs):.2f} s | {statistics.median(r[2] for r in runs) / 1024:.1f} MiB | {len(runs)} |")
PY
  # dbus-run-session's children (csd-clipboard, its bus), then dbus-run-session itself.
  pkill -TERM -P "$manager_pid" 2>/dev/null || true
  wait "$manager_pid" 2>/dev/null || true
  write_figures owners "$work/owners.tsv"
fi

if [[ $what == large ]]; then
  # Each round runs every command once, in this order, so a load that comes and goes hits them
  # alike; the table gives medians (and the largest peak RSS seen). Peak RSS is the command's own
  # (wait4's ru_maxrss through /usr/bin/time): a background owner is not its child.
  echo; echo "## large payloads: Scripts/bench.sh large (LARGE_RUNS=${LARGE_RUNS:-5} rounds, interleaved)"
  start_xvfb DISPLAY; export DISPLAY
  home_with "$work/large" 0
  export USERDEBUG_HOME=$work/large
  (set +o pipefail; head -c $((100 * 1024 * 1024)) /dev/urandom | base64 -w 0 | head -c $((128 * 1024 * 1024)) > "$work/big")
  python3 - "$work/body.json" <<'PY'
import json, sys
# About 60 MiB of JSON records, each with a secret-looking member for the redactor to find.
size, rows, i = 60 * 1024 * 1024, [], 0
out = open(sys.argv[1], "w")
out.write("[")
written = 1
while written < size - 200:
    row = json.dumps({"id": i, "name": f"user {i}", "email": f"user{i}@example.com",
                      "token": f"tok_{i:012d}abcdefabcdef", "note": "x" * 64})
    out.write(("," if i else "") + row)
    written += len(row) + (1 if i else 0)
    i += 1
out.write("]")
PY
  "$bin/userdebug-bench" body "$work/large/data/userdebug.sqlite3" "$work/body.json"
  "$ud" session use bench -q
  ud_copy="$ud copy -q < $work/big"
  xclip_copy="xclip -selection clipboard < $work/big"
  ud_pipe="cat $work/big | $ud copy -q"
  xclip_pipe="cat $work/big | xclip -selection clipboard"
  ud_paste="$ud paste > $work/pasted"
  xclip_paste="xclip -o -selection clipboard > $work/pasted"
  reveal="$ud print-response --body --reveal > $work/body.out"
  redacted="$ud print-response --body > $work/body.out"
  labels=("userdebug copy < 128 MiB file" "xclip -i < 128 MiB file" "userdebug copy, 128 MiB from cat (pipe)"
    "xclip -i, 128 MiB from cat (pipe)" "userdebug paste > file (from our owner)" "xclip -o > file (from our owner)"
    "print-response --body --reveal, 60 MiB body" "print-response --body (redacted), 60 MiB body")
  commands=("$ud_copy" "$xclip_copy" "$ud_pipe" "$xclip_pipe" "$ud_paste" "$xclip_paste" "$reveal" "$redacted")
  : > "$work/large.tsv"
  for round in $(seq "${LARGE_RUNS:-5}"); do
    for i in "${!commands[@]}"; do
      # The pastes read what userdebug copied: it owns the selection again before them.
      [[ $i == 4 ]] && sh -c "$ud_copy" && sleep 0.3
      start=$EPOCHREALTIME
      /usr/bin/time -f '%M' -o "$work/rss" sh -c "${commands[$i]}" || echo "round $round: ${labels[$i]} failed" >&2
      end=$EPOCHREALTIME
      printf '%s\t%s\t%s\n' "${labels[$i]}" "$(echo "$end - $start" | bc)" "$(tail -1 "$work/rss")" >> "$work/large.tsv"
    done
  done
  cmp -s "$work/pasted" "$work/big" && echo "(the last paste equals the 128 MiB copied)" || echo "(the last paste DIFFERS from what was copied)"
  python3 - "$work/large.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, seconds, kib = line.rstrip("\n").split("\t")
    rows.setdefault(label, []).append((float(seconds), int(kib)))
print("| command | median wall | median peak RSS | largest peak RSS | runs |")
print("|---|---|---|---|---|")
for label, runs in rows.items():
    wall = statistics.median(r[0] for r in runs)
    rss = statistics.median(r[1] for r in runs)
    print(f"| {label} | {wall:.3f} s | {rss / 1024:.1f} MiB | {max(r[1] for r in runs) / 1024:.1f} MiB | {len(runs)} |")
PY
fi

if [[ $what == all || $what == hotkey ]]; then
  # One private server; every program on it, each bound to a Super+Alt key of its own; the presses
  # are interleaved across them (Scripts/hotkey_bench.py says how a press is timed and how a stale
  # value is caught: every press must copy a value different from the previous one).
  # HOTKEY_ROUNDS (5) x HOTKEY_PRESSES (20) presses of each; HOTKEY_SETTLE (0.25 s) between a
  # store change and its press (0: the press follows the change at once).
  echo; echo "## hotkey: key press -> CLIPBOARD has a new owner (XTEST in, XFixes out), one Xvfb"
  hk=$work/hotkey
  mkdir -p "$hk/run" && chmod 700 "$hk/run"
  # A home per userdebug contestant, each with sessions a and b of different user identifiers:
  # the bench alternates the current session before each press (not timed).
  # HOTKEY_BEFORE=BINARY: one more contestant, the daemon of another build (an earlier revision's
  # `userdebug`, static), on Super+Alt+P with its own home (a second daemon on one display needs
  # its own XDG_RUNTIME_DIR for the lock).
  before_daemon=${HOTKEY_BEFORE:-}
  for home in daemon sxhkd xbindkeys ${before_daemon:+before}; do
    for which in a b; do
      sed "s/usr_8f14e45f/usr_${which}_$home/" config/sample-session.json >"$hk/$which.json"
      USERDEBUG_HOME=$hk/$home "$ud" session import "$hk/$which.json" --session "$which" -q
    done
    mkdir -p "$hk/$home/config"
  done
  printf '{"hotkeys": {"Super+Alt+I": "copy-id"}}\n' >"$hk/daemon/config/config.json"
  [[ -z $before_daemon ]] || printf '{"hotkeys": {"Super+Alt+P": "copy-id"}}\n' >"$hk/before/config/config.json"
  cc -O2 -Wall -Wextra -o "$hk/grabcopy" Scripts/bench/grabcopy.c -lX11
  {
    printf 'super + alt + u\n\tUSERDEBUG_HOME=%s %s copy-id --to clipboard -q\n' "$hk/sxhkd" "$ud"
    printf 'super + alt + x\n\txclip -selection clipboard -i %s\n' "$hk/value-xclip"
  } >"$hk/sxhkdrc"
  printf '"USERDEBUG_HOME=%s %s copy-id --to clipboard -q"\n  Mod4+Mod1 + b\n' "$hk/xbindkeys" "$ud" >"$hk/xbindkeysrc"
  start_xvfb d_hotkey
  DISPLAY=$d_hotkey USERDEBUG_HOME=$hk/daemon XDG_RUNTIME_DIR=$hk/run "$ud" daemon 2>"$hk/daemon.log" &
  helper_pids+=($!)
  DISPLAY=$d_hotkey "$hk/grabcopy" "$hk/value-floor" o >"$hk/floor.out" &
  helper_pids+=($!)
  DISPLAY=$d_hotkey SHELL=/bin/sh sxhkd -c "$hk/sxhkdrc" >/dev/null 2>&1 &
  helper_pids+=($!)
  DISPLAY=$d_hotkey SHELL=/bin/sh xbindkeys -n -f "$hk/xbindkeysrc" >/dev/null 2>&1 &
  helper_pids+=($!)
  before_spec=()
  if [[ -n $before_daemon ]]; then
    mkdir -p "$hk/run-before" && chmod 700 "$hk/run-before"
    DISPLAY=$d_hotkey USERDEBUG_HOME=$hk/before XDG_RUNTIME_DIR=$hk/run-before "$before_daemon" daemon \
      2>"$hk/before.log" &
    helper_pids+=($!)
    before_spec=("daemon ($before_daemon)=p=session:$hk/before:usr_a_before:usr_b_before")
  fi
  for _ in $(seq 100); do grep -q 'daemon: pid' "$hk/daemon.log" && grep -q ready "$hk/floor.out" && break; sleep 0.05; done
  sleep 1 # sxhkd and xbindkeys say nothing once they have grabbed their keys
  echo "on $d_hotkey: floor Super+Alt+O, daemon Super+Alt+I, sxhkd Super+Alt+U (userdebug) and X (xclip), xbindkeys Super+Alt+B; load $(cut -d' ' -f1-3 /proc/loadavg)"
  section_load=$(cut -d' ' -f1 /proc/loadavg)
  DISPLAY=$d_hotkey UD=$ud /usr/bin/python3 Scripts/hotkey_bench.py "${HOTKEY_ROUNDS:-5}" "${HOTKEY_PRESSES:-20}" \
    "floor=o=file:$hk/value-floor" \
    "daemon=i=session:$hk/daemon:usr_a_daemon:usr_b_daemon" \
    "sxhkd+copy-id=u=session:$hk/sxhkd:usr_a_sxhkd:usr_b_sxhkd" \
    "sxhkd+xclip=x=file:$hk/value-xclip" \
    "xbindkeys+copy-id=b=session:$hk/xbindkeys:usr_a_xbindkeys:usr_b_xbindkeys" "${before_spec[@]}" | tee "$work/hotkey.out"
  [[ -n $before_daemon ]] || write_figures hotkey "$work/hotkey.out"
fi

if [[ $what == profile ]]; then
  echo; echo "## profile: copy-id --to clipboard, 200 runs under perf record (CPU samples by phase)"
  mkdir -p "$work/prof"
  USERDEBUG_HOME=$work/prof "$ud" session import config/sample-session.json -q
  start_xvfb DISPLAY; export DISPLAY
  USERDEBUG_HOME=$work/prof perf record -q -o "$work/perf.data" -F 20000 --call-graph dwarf,16384 -- \
    bash -c "for i in \$(seq 200); do '$ud' copy-id --to clipboard -q; done" >/dev/null 2>&1
  perf script -i "$work/perf.data" --comm userdebug -F ip,sym 2>/dev/null | python3 Scripts/perf_phases.py
fi

if [[ $what == all || $what == popup ]]; then
  echo; echo "## popup menu: Scripts/popup_bench.py $ud $bin/userdebug-popup ${RUNS:-50}"
  /usr/bin/python3 Scripts/popup_bench.py "$ud" "$bin/userdebug-popup" "${RUNS:-50}"
fi

if [[ $what == all || $what == json ]]; then
  # A hostile body made of escapes (issue 12: decoding was quadratic). Each document is parsed
  # whole from a file by both programs, process start included; the ratio column is userdebug's
  # median over Python's.
  echo; echo "## json: parsing 64 MiB of string escapes, userdebug-bench parse beside Python's json.load"
  section_load=$(cut -d' ' -f1 /proc/loadavg)
  python3 - "$work" <<'PY'
import sys
size = 64 * 1024 * 1024
# One array holding one string: escaped quotes only, then escapes between one-byte runs.
for name, unit in (("quotes", '\\"'), ("mixed", 'a\\"')):
    count = (size - 4) // len(unit)
    text = '["' + unit * count + '"]'
    with open(f"{sys.argv[1]}/{name}.json", "w") as out:
        out.write(text + " " * (size - len(text)))
    print(f"{name}.json: {size:,} bytes, [\"{unit}{unit}…\"] with {count:,} escapes")
PY
  for name in quotes mixed; do
    echo; echo "### $name.json"
    hyperfine -N --style none --warmup 1 --runs "${JSON_RUNS:-10}" --export-json "$work/json-$name.json" \
      -n "python3 json.load" "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $work/$name.json" \
      -n "userdebug-bench parse" "$bin/userdebug-bench parse $work/$name.json"
    python3 Scripts/bench_table.py "$work/json-$name.json"
  done
  write_figures json "$work/json-quotes.json" "$work/json-mixed.json"
fi

if [[ $what == all || $what == startup ]]; then
  echo; echo "## startup: copy-id --to stdout (whole process, static build)"
  mkdir -p "$work/small"
  USERDEBUG_HOME=$work/small "$ud" session import config/sample-session.json -q
  USERDEBUG_HOME=$work/small hyperfine -N --style none --warmup 20 --runs "$runs" \
    --export-json "$work/startup.json" \
    -n '/bin/true' '/bin/true' \
    -n 'printf usr_8f14e45f' '/usr/bin/printf usr_8f14e45f' \
    -n 'userdebug copy-id --to stdout' "$ud copy-id --to stdout"
  python3 Scripts/bench_table.py "$work/startup.json"
fi

if [[ $what == all || $what == store ]]; then
  echo; echo "## store: print-response last with 10 vs 1,000,000 stored responses"
  section_load=$(cut -d' ' -f1 /proc/loadavg)
  home_with "$work/ten" 10
  home_with "$work/million" 1000000
  hyperfine -N --style none --warmup 10 --runs "$runs" --export-json "$work/store.json" \
    -n '10 responses' "env USERDEBUG_HOME=$work/ten $ud print-response last --to stdout" \
    -n '1,000,000 responses' "env USERDEBUG_HOME=$work/million $ud print-response last --to stdout"
  python3 Scripts/bench_table.py "$work/store.json"
  echo; echo "## store: reads while another process holds the write lock (BEGIN IMMEDIATE, 30 s)"
  python3 -c 'import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(30)' "$work/ten/data/userdebug.sqlite3" > "$work/lock.out" &
  lock_pid=$!
  for _ in $(seq 100); do [[ -s "$work/lock.out" ]] && break; sleep 0.05; done
  hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$work/locked.json" \
    -n 'copy-id, store unlocked' "env USERDEBUG_HOME=$work/million $ud copy-id --to stdout" \
    -n 'copy-id, write lock held' "env USERDEBUG_HOME=$work/ten $ud copy-id --to stdout" \
    -n 'print-response, write lock held' "env USERDEBUG_HOME=$work/ten $ud print-response last --to stdout"
  kill "$lock_pid" 2>/dev/null || true
  python3 Scripts/bench_table.py "$work/locked.json"
  echo; echo "## store: library record rate (1 KiB bodies, one response per transaction)"
  rm -f "$work/rate.sqlite3"*
  "$bin/userdebug-bench" record "$work/rate.sqlite3" 20000 1024 | tee "$work/record.out"
  write_figures store "$work/store.json" "$work/locked.json" "$work/record.out"
fi

if [[ $what == all || $what == clipboard ]]; then
  echo; echo "## clipboard (own Xvfb)"
  # Three identical private servers: ours on A, where consecutive copies reach the owner process
  # already serving (the resident owner); xclip and xsel on B, each replacing the other's owner as
  # they always do; and on C, copies with --new-owner (connect and fork, replacing the previous
  # owner: what a copy costs after another program took the clipboard).
  start_xvfb display_a
  start_xvfb display_b
  start_xvfb display_c
  export DISPLAY=$display_a
  mkdir -p "$work/clip"
  USERDEBUG_HOME=$work/clip "$ud" session import config/sample-session.json -q
  echo "DISPLAY=$DISPLAY (userdebug), $display_b (xclip, xsel), $display_c (userdebug --new-owner)"
  echo; echo "### copy latency (returns once the selection is owned and confirmed)"
  echo "(hyperfine runs each command's repetitions in one block; the --new-owner block runs on A too,"
  echo "each copy replacing the previous owner)"
  USERDEBUG_HOME=$work/clip hyperfine -N --style none --warmup 10 --runs "$runs" --export-json "$work/copy.json" \
    -n 'userdebug copy-id --to clipboard' "$ud copy-id --to clipboard -q" \
    -n 'userdebug copy-id --to clipboard --new-owner' "$ud copy-id --to clipboard -q --new-owner" \
    -n 'printf ID | xclip -selection clipboard' "sh -c 'printf usr_8f14e45f | xclip -display $display_b -selection clipboard'" \
    -n 'printf ID | xsel -ib' "sh -c 'printf usr_8f14e45f | xsel --display $display_b -ib'" \
    -n 'printf ID | userdebug copy' "sh -c 'printf usr_8f14e45f | $ud copy -q'"
  python3 Scripts/bench_table.py "$work/copy.json"
  echo; echo "### copy latency, interleaved (every round runs each command once, rotating the order)"
  USERDEBUG_HOME=$work/clip python3 Scripts/interleave.py "$runs" \
    "$ud copy-id --to clipboard -q" \
    "sh -c 'printf usr_8f14e45f | xclip -display $display_b -selection clipboard'" \
    "sh -c 'printf usr_8f14e45f | xsel --display $display_b -ib'" \
    "DISPLAY=$display_c $ud copy-id --to clipboard -q --new-owner" \
    "sh -c 'printf usr_8f14e45f | $ud copy -q'" \
    "$ud copy-id --to stdout"
  echo; echo "### paste latency, interleaved (the selection owned by userdebug)"
  USERDEBUG_HOME=$work/clip "$ud" copy-id --to clipboard -q
  USERDEBUG_HOME=$work/clip python3 Scripts/interleave.py "$runs" \
    "$ud paste" "xclip -o -selection clipboard" "xsel -ob"
  echo; echo "### stale reads: 100 rounds of copy then paste by xclip -o"
  for tool in userdebug "userdebug --new-owner" xsel xclip; do
    stale=0
    for i in $(seq 100); do
      case $tool in
        userdebug) printf "round-$i" | "$ud" copy -q ;;
        "userdebug --new-owner") printf "round-$i" | "$ud" copy -q --new-owner ;;
        xsel) printf "round-$i" | xsel -ib ;;
        xclip) printf "round-$i" | xclip -selection clipboard ;;
      esac
      got=$(timeout 5 xclip -o -selection clipboard 2>/dev/null || true)
      [[ "$got" == "round-$i" ]] || stale=$((stale + 1))
    done
    echo "$tool: $stale stale of 100"
  done
  echo; echo "### throughput: xclip -o reading 128 MiB"
  # 128 MiB of text (base64 of random bytes); head closing early is expected, not a failure.
  (set +o pipefail; head -c $((100 * 1024 * 1024)) /dev/urandom | base64 -w 0 | head -c $((128 * 1024 * 1024)) > "$work/big")
  hyperfine -N --style none --warmup 1 --runs 5 --export-json "$work/throughput.json" \
    --prepare "sh -c '$ud copy -q < $work/big'" -n 'from userdebug' "sh -c 'xclip -o -selection clipboard > /dev/null'" \
    --prepare "sh -c 'xclip -selection clipboard < $work/big'" -n 'from xclip' "sh -c 'xclip -o -selection clipboard > /dev/null'"
  python3 Scripts/bench_table.py "$work/throughput.json"
  echo; echo "### hand-off at once (copy --hand-off) with csd-clipboard managing this display"
  NO_AT_BRIDGE=1 dbus-run-session -- csd-clipboard >/dev/null 2>&1 &
  manager_pid=$!
  /usr/bin/python3 -c 'import time
from Xlib import display
d = display.Display(); a = d.intern_atom("CLIPBOARD_MANAGER")
for _ in range(200):
    o = d.get_selection_owner(a)
    if getattr(o, "id", o): break
    time.sleep(0.05)'
  python3 Scripts/handoff_bench.py "$ud" 30
  # Stop dbus-run-session's children (csd-clipboard and its bus); killing dbus-run-session
  # itself would leave its dbus-daemon running.
  pkill -TERM -P "$manager_pid" 2>/dev/null || true
  wait "$manager_pid" 2>/dev/null || true

  echo; echo "### owner peak memory serving 128 MiB (VmHWM of the background owner)"
  "$ud" copy -q < "$work/big"
  sleep 0.5
  xclip -o -selection clipboard >/dev/null
  owner=$(pgrep -n -x userdebug-owner || true)  # the serving process names itself
  [[ -n "$owner" ]] && grep VmHWM "/proc/$owner/status" || echo "owner not found"
fi

if [[ $what == wayland ]]; then
  echo; echo "## Wayland clipboard (own headless sway, zwlr data-control; DISPLAY unset, so userdebug uses Wayland)"
  start_sway
  echo "WAYLAND_DISPLAY=$WAYLAND_DISPLAY"
  mkdir -p "$work/wl"
  export USERDEBUG_HOME=$work/wl
  "$ud" session import config/sample-session.json -q
  echo; echo "### copy latency (each returns once the compositor shows its source as the selection)"
  hyperfine -N --style none --warmup 10 --runs "$runs" --export-json "$work/wlcopy.json" \
    -n 'wl-copy ID' "wl-copy usr_8f14e45f" \
    -n 'userdebug copy-id --to clipboard' "$ud copy-id --to clipboard -q"
  python3 Scripts/bench_table.py "$work/wlcopy.json"
  echo; echo "### copy latency, interleaved (copy-id --to stdout: the same run without the clipboard)"
  python3 Scripts/interleave.py "$runs" "wl-copy usr_8f14e45f" "$ud copy-id --to clipboard -q" \
    "$ud copy-id --to clipboard -q --new-owner" "$ud copy-id --to stdout"
  echo; echo "### paste latency, interleaved (the selection owned by userdebug)"
  "$ud" copy-id --to clipboard -q
  python3 Scripts/interleave.py "$runs" "wl-paste -n" "$ud paste"
  echo; echo "### stale reads: 100 rounds of copy then wl-paste -n"
  for tool in userdebug wl-copy; do
    stale=0
    for i in $(seq 100); do
      case $tool in
        userdebug) printf "round-$i" | "$ud" copy -q ;;
        wl-copy) wl-copy "round-$i" ;;
      esac
      got=$(timeout 5 wl-paste -n 2>/dev/null || true)
      [[ "$got" == "round-$i" ]] || stale=$((stale + 1))
    done
    echo "$tool: $stale stale of 100"
  done
  echo; echo "### throughput: wl-paste reading 128 MiB"
  (set +o pipefail; head -c $((100 * 1024 * 1024)) /dev/urandom | base64 -w 0 | head -c $((128 * 1024 * 1024)) > "$work/big")
  hyperfine -N --style none --warmup 1 --runs 5 --export-json "$work/wlthroughput.json" \
    --prepare "sh -c '$ud copy -q < $work/big'" -n 'from userdebug' "sh -c 'wl-paste -n > /dev/null'" \
    --prepare "sh -c 'wl-copy --type text/plain < $work/big'" -n 'from wl-copy' "sh -c 'wl-paste -n > /dev/null'"
  python3 Scripts/bench_table.py "$work/wlthroughput.json"
  echo; echo "### peak memory serving 128 MiB (VmHWM of the background owner, after one full read)"
  "$ud" copy -q < "$work/big"
  wl-paste -n > /dev/null
  owner=$(pgrep -n -x userdebug-owner || true)  # the serving process names itself
  [[ -n "$owner" ]] && echo "userdebug owner: $(grep VmHWM "/proc/$owner/status")" || echo "owner not found"
  wl-copy --type text/plain < "$work/big"
  wl-paste -n > /dev/null
  owner=$(pgrep -n -x wl-copy || true)
  [[ -n "$owner" ]] && echo "wl-copy owner: $(grep VmHWM "/proc/$owner/status")" || echo "wl-copy owner not found"
  echo; echo "### paste peak memory (max RSS of the reader, 128 MiB vs 5 bytes, into /dev/null)"
  for size in big small; do
    if [[ $size == big ]]; then wl-copy --type text/plain < "$work/big"; else wl-copy --type text/plain usr_1; fi
    echo "$size: userdebug paste $(/usr/bin/time -f '%M KiB' "$ud" paste 2>&1 >/dev/null | tail -1)," \
      "wl-paste -n $(/usr/bin/time -f '%M KiB' wl-paste -n 2>&1 >/dev/null | tail -1)"
  done
fi
