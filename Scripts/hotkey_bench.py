#!/usr/bin/python3
"""Key press -> clipboard holds the new value, for several hotkey programs side by side
(Scripts/bench.sh hotkey). Needs python3-xlib (XTEST and XFixes).

    hotkey_bench.py ROUNDS NAME=DISPLAY=PREPARE ...

Each contestant runs on its own X display with Super+Alt+I bound. PREPARE says how the next value
is set before a press (not timed):
    session:HOME:ID_A:ID_B  alternate the current session of USERDEBUG_HOME=HOME between the
                            sessions named a and b, whose user identifiers are ID_A and ID_B
    file:PATH               write a new counter value into PATH (the program copies the file)
Every press must therefore put a value different from the previous one on CLIPBOARD: a read that
returns the old value is a stale read, counted, and read again until the new value arrives.

Per press, on the contestant's display: Super_L and Alt_L go down (XTEST), the clock starts, I goes
down; the press ends when XFixes reports a SetSelectionOwner on CLIPBOARD ("owner set") and,
once we asked for UTF8_STRING at once, when the owner's answer holds the new value ("value").
Rounds are interleaved: every round presses each contestant once, the order rotating. The first
3 rounds are a warm-up and not counted.
"""

import os
import select
import statistics
import subprocess
import sys
import time

from Xlib import X, XK, display
from Xlib.ext import xfixes, xtest

WARMUP = 3


class Contestant:
    def __init__(self, spec):
        self.name, self.display_name, self.prepare_spec = spec.split("=", 2)
        self.d = display.Display(self.display_name)
        self.d.xfixes_query_version()
        root = self.d.screen().root
        self.clipboard = self.d.intern_atom("CLIPBOARD")
        self.utf8 = self.d.intern_atom("UTF8_STRING")
        self.prop = self.d.intern_atom("_HOTKEY_BENCH")
        self.window = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        self.d.xfixes_select_selection_input(root, self.clipboard, xfixes.XFixesSetSelectionOwnerNotifyMask)
        code = lambda name: self.d.keysym_to_keycode(XK.string_to_keysym(name))
        self.mods = [code("Super_L"), code("Alt_L")]
        self.key = code("i")
        self.count = 0
        self.owner_set, self.value, self.stale, self.lost = [], [], 0, 0
        self.d.sync()

    def prepare(self):
        """Sets the value the next press must copy; returns it."""
        self.count += 1
        kind, _, rest = self.prepare_spec.partition(":")
        if kind == "file":
            value = f"{self.name}-{self.count}"
            with open(rest + ".tmp", "w") as f:
                f.write(value)
            os.replace(rest + ".tmp", rest)
            return value
        home, id_a, id_b = rest.split(":")
        which = "a" if self.count % 2 else "b"
        env = dict(os.environ, USERDEBUG_HOME=home)
        subprocess.run([os.environ["UD"], "session", "use", which, "-q"], env=env, check=True)
        return id_a if which == "a" else id_b

    def next_event(self, deadline):
        while self.d.pending_events() == 0:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            select.select([self.d.fileno()], [], [], left)
        return self.d.next_event()

    def read(self, deadline):
        self.window.convert_selection(self.clipboard, self.utf8, self.prop, X.CurrentTime)
        self.d.flush()
        while True:
            ev = self.next_event(deadline)
            if ev is None:
                return None
            if ev.type == X.SelectionNotify:
                if ev.property == X.NONE:
                    return None
                p = self.window.get_full_property(self.prop, X.AnyPropertyType)
                return p.value.decode() if p is not None else None

    def press(self, counted):
        expected = self.prepare()
        while self.d.pending_events():
            self.d.next_event()
        for m in self.mods:
            xtest.fake_input(self.d, X.KeyPress, m)
        self.d.sync()
        start = time.perf_counter()
        xtest.fake_input(self.d, X.KeyPress, self.key)
        # Released at once: a key held down repeats, and each repeat would copy again.
        xtest.fake_input(self.d, X.KeyRelease, self.key)
        self.d.flush()
        deadline = start + 5
        owner_set = value = None
        while owner_set is None:
            ev = self.next_event(deadline)
            if ev is None:
                break
            # (python-xlib builds extension events from its own copy of the class: match by name)
            if type(ev).__name__ == "SetSelectionOwnerNotify" and ev.selection == self.clipboard:
                owner_set = time.perf_counter()
        stale = 0
        while owner_set is not None and time.perf_counter() < deadline:
            got = self.read(deadline)
            if got == expected:
                value = time.perf_counter()
                break
            stale += 1
            time.sleep(0.001)
        for k in self.mods[::-1]:
            xtest.fake_input(self.d, X.KeyRelease, k)
        self.d.sync()
        if not counted:
            return
        if value is None:
            self.lost += 1
            return
        self.stale += 1 if stale else 0
        self.owner_set.append((owner_set - start) * 1000)
        self.value.append((value - start) * 1000)


def summary(ms):
    q = statistics.quantiles(ms, n=10)
    return f"median {statistics.median(ms):7.3f}  p10 {q[0]:7.3f}  p90 {q[-1]:7.3f}  mean {statistics.fmean(ms):7.3f}"


def main():
    rounds = int(sys.argv[1])
    contestants = [Contestant(spec) for spec in sys.argv[2:]]
    for r in range(rounds + WARMUP):
        shift = r % len(contestants)
        for c in contestants[shift:] + contestants[:shift]:
            c.press(r >= WARMUP)
            time.sleep(0.03)  # let whatever the press started finish before the next one
    width = max(len(c.name) for c in contestants)
    print(f"{rounds} presses each, interleaved; times in ms from the key going down (XTEST)")
    for c in contestants:
        if not c.value:
            print(f"{c.name:<{width}}  no press reached the clipboard ({c.lost} lost)")
            continue
        print(f"{c.name:<{width}}  value: {summary(c.value)}")
        print(f"{'':<{width}}  owner set: {summary(c.owner_set)}")
        print(f"{'':<{width}}  n={len(c.value)}, presses with a stale first read: {c.stale}, lost: {c.lost}")
    medians = {c.name: statistics.median(c.value) for c in contestants if c.value}
    names = list(medians)
    if len(names) > 1:
        print("ratios of medians (value):")
        for n in names[1:]:
            print(f"  {names[0]} / {n}: {medians[names[0]] / medians[n]:.3f}")


if __name__ == "__main__":
    main()
