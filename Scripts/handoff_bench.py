#!/usr/bin/env python3
"""Hand-off at once, measured (Scripts/bench.sh clipboard runs it; not a test, asserts no time).

Usage: handoff_bench.py USERDEBUG ROUNDS, with DISPLAY set to a display whose clipboard manager
(csd-clipboard) owns CLIPBOARD_MANAGER. Each round copies a distinct text with
`userdebug copy --hand-off`, then waits for our owner process to leave and checks with `xclip -o`
that the text is still pasteable (now from the manager). Prints medians: how long `copy` took to
return, and how long from the start of `copy` until no owner of ours was left.
"""
import os
import statistics
import subprocess
import sys
import time


def owner_pids(argv):
    """Live serving processes of ours on this display: the forked owner names itself
    `userdebug-owner` (its comm; ud_owner_detach) whatever `argv` forked it, and keeps the
    environment, whose DISPLAY tells it from the owners bench.sh left on its other displays."""
    display = f"DISPLAY={os.environ.get('DISPLAY', '')}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm", "rb") as f:
                if f.read() != b"userdebug-owner\n":
                    continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if display not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    continue
        except OSError:
            continue
        found.append(int(entry))
    return found


def main():
    ud, rounds = sys.argv[1], int(sys.argv[2])
    argv = [ud, "copy", "-q", "--hand-off"]
    returned, gone, kept = [], [], 0
    for i in range(rounds):
        text = f"handed off {i}".encode()
        start = time.perf_counter()
        subprocess.run(argv, input=text, check=True)
        returned.append((time.perf_counter() - start) * 1000)
        deadline = start + 10
        while owner_pids(argv) and time.perf_counter() < deadline:
            time.sleep(0.0005)
        gone.append((time.perf_counter() - start) * 1000)
        out = subprocess.run(["xclip", "-o", "-selection", "clipboard"], capture_output=True, timeout=10).stdout
        kept += out == text
    print(f"copy --hand-off returned after (median): {statistics.median(returned):.2f} ms")
    print(f"our owner had left after (median):      {statistics.median(gone):.2f} ms (max {max(gone):.2f})")
    print(f"content still pasteable from the manager: {kept} of {rounds}")


if __name__ == "__main__":
    main()
