#!/usr/bin/env bash
# Scripts/throughput_ab.sh OLD NEW FILE [ROUNDS]: `xclip -o` reading FILE from three owners in
# turn (the `userdebug` binaries OLD and NEW, and xclip), ROUNDS rounds interleaved, on the
# current DISPLAY; prints each owner's times in ms and their median. A benchmark, not a test.
set -euo pipefail
old=$1 new=$2 file=$3 rounds=${4:-8}
declare -A times
for _ in $(seq "$rounds"); do
  for who in old new xclip; do
    case $who in
      old) "$old" copy -q < "$file" ;;
      new) "$new" copy -q < "$file" ;;
      # xclip's owner keeps what it inherits open: give it nothing a caller waits on.
      xclip) xclip -selection clipboard < "$file" > /dev/null 2>&1 ;;
    esac
    sleep 0.4
    start=$(date +%s%N)
    xclip -o -selection clipboard > /dev/null
    end=$(date +%s%N)
    times[$who]+=" $(( (end - start) / 1000000 ))"
  done
done
for who in old new xclip; do
  median=$(tr ' ' '\n' <<< "${times[$who]}" | sed '/^$/d' | sort -n | python3 -c 'import sys, statistics; print(statistics.median(int(l) for l in sys.stdin))')
  echo "$who:${times[$who]}  (median $median)"
done
