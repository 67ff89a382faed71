#!/usr/bin/python3
"""Key press -> clipboard has a new owner, for several hotkey programs side by side on one X
server (Scripts/bench.sh hotkey). Needs python3-xlib (XTEST and XFixes).

    hotkey_bench.py ROUNDS PRESSES NAME=KEY=PREPARE ...

Every contestant runs on the same X display ($DISPLAY), each bound to Super+Alt+KEY of its own
(KEY a keysym name). The first contestant is the floor, the second the one compared with it
("daemon / floor" below). PREPARE says how the next value is set before a press (not timed):
    session:HOME:ID_A:ID_B  alternate the current session of USERDEBUG_HOME=HOME between the
                            sessions named a and b, whose user identifiers are ID_A and ID_B
    file:PATH               write a new counter value into PATH (the program copies the file)
Every press must therefore put a value different from the previous one on CLIPBOARD: a read that
returns the old value is a stale read, counted, and read again until the new value arrives.

After the value is set, the bench waits HOTKEY_SETTLE seconds (default 0.25; not timed) before
the press, as a person's press comes well after the `session use` that preceded it; with
HOTKEY_SETTLE=0 every press follows its store change at once (the daemon then makes the payload at
the press). Per press: Super_L and Alt_L go down (XTEST), the clock starts, KEY goes down; the press
ends when XFixes reports a SetSelectionOwner on CLIPBOARD ("owner set": the figure compared) and,
once we asked for UTF8_STRING at once, when the owner's answer holds the new value ("value").

ROUNDS rounds of PRESSES presses of each contestant, interleaved (press 1 of each, then press 2 of
each, the order rotating), after 3 warm-up presses of each (not counted). Printed: per round the
median "owner set" of each contestant and daemon / floor; overall the medians of all presses, the
ratio of those medians and the median of the per-round ratios.
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
SETTLE = float(os.environ.get("HOTKEY_SETTLE", "0.25"))


class Contestant:
    def __init__(self, spec):
        self.name, self.keysym, self.prepare_spec = spec.split("=", 2)
        self.d = display.Display()
        self.d.xfixes_query_version()
        root = self.d.screen().root
        self.clipboard = self.d.intern_atom("CLIPBOARD")
        self.utf8 = self.d.intern_atom("UTF8_STRING")
        self.prop = self.d.intern_atom("_HOTKEY_BENCH")
        self.window = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        self.d.xfixes_select_selection_input(root, self.clipboard, xfixes.XFixesSetSelectionOwnerNotifyMask)
        code = lambda name: self.d.keysym_to_keycode(XK.string_to_keysym(name))
        self.mods = [code("Super_L"), code("Alt_L")]
        self.key = code(self.keysym)
        self.count = 0
        self.owner_set, self.value, self.stale, self.lost = [], [], 0, 0
        self.round_owner_set = []
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
        time.sleep(SETTLE)
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
        self.round_owner_set.append((owner_set - start) * 1000)


def summary(ms):
    q = statistics.quantiles(ms, n=10)
    return f"median {statistics.median(ms):7.3f}  p10 {q[0]:7.3f}  p90 {q[-1]:7.3f}  mean {statistics.fmean(ms):7.3f}"


def load():
    return os.getloadavg()[0]


def main():
    rounds, presses = int(sys.argv[1]), int(sys.argv[2])
    contestants = [Contestant(spec) for spec in sys.argv[3:]]
    floor, compared = contestants[0], contestants[1]
    width = max(len(c.name) for c in contestants)
    print(f"{rounds} rounds x {presses} presses of each, interleaved, on {os.environ.get('DISPLAY')};")
    print(f"ms from the key going down (XTEST) to XFixes' SetSelectionOwner on CLIPBOARD; settle {SETTLE} s")
    for i in range(WARMUP):
        for c in contestants:
            c.press(False)
    ratios = []
    for r in range(rounds):
        for c in contestants:
            c.round_owner_set = []
        for p in range(presses):
            shift = (r * presses + p) % len(contestants)
            for c in contestants[shift:] + contestants[:shift]:
                c.press(True)
                time.sleep(0.03)  # let whatever the press started finish before the next one
        cells = "  ".join(
            f"{c.name} {statistics.median(c.round_owner_set):.3f}" if c.round_owner_set else f"{c.name} -"
            for c in contestants)
        ratio = None
        if floor.round_owner_set and compared.round_owner_set:
            ratio = statistics.median(compared.round_owner_set) / statistics.median(floor.round_owner_set)
            ratios.append(ratio)
        shown = f"{ratio:.2f}x" if ratio is not None else "-"
        print(f"round {r + 1}: {cells}  | {compared.name} / {floor.name}: {shown}  (load {load():.2f})")
    print(f"overall ({rounds * presses} presses each):")
    for c in contestants:
        if not c.value:
            print(f"{c.name:<{width}}  no press reached the clipboard ({c.lost} lost)")
            continue
        print(f"{c.name:<{width}}  owner set: {summary(c.owner_set)}")
        print(f"{'':<{width}}  value:     {summary(c.value)}")
        print(f"{'':<{width}}  n={len(c.value)}, presses with a stale first read: {c.stale}, lost: {c.lost}")
    if floor.owner_set and compared.owner_set:
        overall = statistics.median(compared.owner_set) / statistics.median(floor.owner_set)
        print(f"{compared.name} / {floor.name} (owner set): {overall:.2f}x overall medians, "
              f"{statistics.median(ratios):.2f}x median of the per-round ratios "
              f"({', '.join(f'{x:.2f}' for x in ratios)}); load {load():.2f}")
        for c in contestants[2:]:
            if c.owner_set:
                print(f"{c.name} / {floor.name}: {statistics.median(c.owner_set) / statistics.median(floor.owner_set):.2f}x; "
                      f"{compared.name} / {c.name}: {statistics.median(compared.owner_set) / statistics.median(c.owner_set):.3f}x")


if __name__ == "__main__":
    main()
