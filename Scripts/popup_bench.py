#!/usr/bin/python3
"""The popup menu's figures (Scripts/bench.sh popup runs this; nothing here asserts a time).
Needs python3-xlib (XTEST) for the key-press figure.

    Scripts/popup_bench.py USERDEBUG USERDEBUG-POPUP [RUNS]

1. start -> mapped: the time from starting `userdebug-popup --trace` (as the daemon's `menu` key
   does) until it reports its window mapped and the keyboard and pointer grabbed (after XSync),
   on the sample session, under a private Xvfb; RUNS runs (default 50), the median and the 90th
   percentile.
2. key press -> mapped: `userdebug daemon` on the same Xvfb with Super+Alt+M bound to `menu`; per
   run Super_L and Alt_L go down (XTEST), the clock starts, M goes down, and the clock stops when
   the server reports an override-redirect window mapped (MapNotify on the root, watched with
   SubstructureNotify); then Escape closes it and the next run waits for the unmap. This is the
   issue's figure: the daemon's fork/exec of userdebug-popup, the popup's start and its map.
3. filter redraw with 200 entries: the popup on a menu of 200 config actions (plus the built-in
   ones), keys typed into its filter one by one with XTEST (xdotool), and the popup's own
   `drawn in N ms` for each: from the key event's arrival to the server having drawn the new
   rows (XSync), the rows filtered again over the whole tree each time.
"""

import json
import os
import select
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


def press_to_map(userdebug, env, runs):
    from Xlib import X, XK, display as xdisplay
    from Xlib.ext import xtest
    config = os.path.join(env["USERDEBUG_HOME"], "config", "config.json")
    with open(config, "w") as f:
        json.dump({"hotkeys": {"Super+Alt+M": "menu"}, "notifications": "never"}, f)
    daemon = subprocess.Popen([userdebug, "daemon"], env=env, stderr=subprocess.PIPE, text=True)
    d = xdisplay.Display(env["DISPLAY"])
    try:
        wait_line(daemon, "hotkey")
        d.screen().root.change_attributes(event_mask=X.SubstructureNotifyMask)
        d.sync()
        keys = [d.keysym_to_keycode(XK.string_to_keysym(name)) for name in ["Super_L", "Alt_L", "m", "Escape"]]
        times = []
        for i in range(runs):
            xdotool(env, "mousemove", str(100 + (i * 37) % 1600), str(100 + (i * 53) % 800))
            for code in keys[:2]:
                xtest.fake_input(d, X.KeyPress, code)
            d.sync()
            start = time.monotonic()
            xtest.fake_input(d, X.KeyPress, keys[2])
            d.sync()
            next_event(d, lambda e: e.type == X.MapNotify and e.override, start + 20)
            times.append((time.monotonic() - start) * 1000)
            for code in reversed(keys[:3]):
                xtest.fake_input(d, X.KeyRelease, code)
            # Escape until the popup is gone (an Escape sent before its keyboard grab is lost).
            end = time.monotonic() + 20
            while True:
                xtest.fake_input(d, X.KeyPress, keys[3])
                xtest.fake_input(d, X.KeyRelease, keys[3])
                d.sync()
                try:
                    next_event(d, lambda e: e.type in (X.UnmapNotify, X.DestroyNotify), time.monotonic() + 0.2)
                    break
                except RuntimeError:
                    if time.monotonic() > end:
                        raise
            time.sleep(0.05)
        return times
    finally:
        daemon.terminate()
        daemon.wait(timeout=20)
        d.close()


def next_event(d, wanted, deadline):
    while time.monotonic() < deadline:
        while d.pending_events():
            event = d.next_event()
            if wanted(event):
                return event
        select.select([d.fileno()], [], [], max(0.0, deadline - time.monotonic()))
    raise RuntimeError("no such X event before the deadline")


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
        report("key press -> popup mapped (the daemon)", press_to_map(userdebug, env, runs))
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
