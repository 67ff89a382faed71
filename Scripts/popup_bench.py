#!/usr/bin/env python3
"""The popup menu's figures (Scripts/bench.sh popup runs this; nothing here asserts a time).

    Scripts/popup_bench.py USERDEBUG USERDEBUG-POPUP [RUNS]

1. start -> mapped: the time from starting `userdebug-popup --trace` (as the daemon's `menu` key
   does) until it reports its window mapped and the keyboard and pointer grabbed (after XSync),
   on the sample session, under a private Xvfb; RUNS runs (default 50), the median and the 90th
   percentile.
2. filter redraw with 200 entries: the popup on a menu of 200 config actions (plus the built-in
   ones), keys typed into its filter one by one with XTEST (xdotool), and the popup's own
   `drawn in N ms` for each: from the key event's arrival to the server having drawn the new
   rows (XSync), the rows filtered again over the whole tree each time.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def start_xvfb(work):
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-noreset", "-nolisten", "tcp", "-screen", "0", "1920x1080x24"],
        pass_fds=[write], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        display = ":" + pipe.readline().strip()
    return xvfb, display


def home(work, name, userdebug, config=None):
    path = os.path.join(work, name)
    os.makedirs(os.path.join(path, "config"), mode=0o700)
    os.chmod(path, 0o700)
    env = dict(os.environ, USERDEBUG_HOME=path, LANG="C.UTF-8")
    subprocess.run([userdebug, "session", "import", "config/sample-session.json", "-q"], env=env, check=True)
    if config is not None:
        with open(os.path.join(path, "config", "config.json"), "w") as f:
            json.dump(config, f)
    return env


def wait_line(process, needle, deadline=20):
    end = time.monotonic() + deadline
    lines = []
    while time.monotonic() < end:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return line, lines
    raise RuntimeError("popup never printed %r: %s" % (needle, "".join(lines[-5:])))


def xdotool(env, *arguments):
    subprocess.run(["xdotool", *arguments], env=env, check=True)


def close(process, env):
    xdotool(env, "key", "--delay", "0", "Escape")
    process.wait(timeout=20)


def map_latency(popup, env, runs):
    times = []
    for i in range(runs):
        xdotool(env, "mousemove", str(100 + (i * 37) % 1600), str(100 + (i * 53) % 800))
        start = time.monotonic()
        process = subprocess.Popen([popup, "--trace"], env=env, stderr=subprocess.PIPE, text=True)
        wait_line(process, "popup mapped at")
        times.append((time.monotonic() - start) * 1000)
        wait_line(process, "state {")
        close(process, env)
    return times


def filter_redraws(popup, env, rounds):
    process = subprocess.Popen([popup, "--trace"], env=env, stderr=subprocess.PIPE, text=True)
    wait_line(process, "state {")
    times = []
    for _ in range(rounds):
        for key in ["e", "n", "t", "r", "BackSpace", "BackSpace", "BackSpace", "BackSpace"]:
            xdotool(env, "key", "--delay", "0", key)
            line, _ = wait_line(process, "drawn in")
            times.append(float(line.split("drawn in ")[1].split(" ")[0]))
    close(process, env)
    return times


def report(name, times):
    times = sorted(times)
    p90 = times[int(len(times) * 0.9) - 1]
    print("%-44s median %7.2f ms   p90 %7.2f ms   (n=%d)" % (name, statistics.median(times), p90, len(times)))


def main():
    userdebug, popup = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    work = tempfile.mkdtemp(prefix="userdebug-popup-bench.")
    xvfb, display = start_xvfb(work)
    try:
        env = home(work, "sample", userdebug)
        env["DISPLAY"] = display
        env.pop("XAUTHORITY", None)
        report("start -> popup mapped (sample session)", map_latency(popup, env, runs))
        actions = [{"id": "entry-%03d" % i, "title": "Open entry %03d in the admin" % i,
                    "template": "https://admin.example.com/entries/%d" % i} for i in range(200)]
        env200 = home(work, "two-hundred", userdebug, {"actions": actions})
        env200["DISPLAY"] = display
        env200.pop("XAUTHORITY", None)
        report("typed filter key -> redrawn (200 entries)", filter_redraws(popup, env200, max(runs // 8, 7)))
    finally:
        xvfb.kill()
        xvfb.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
