#!/usr/bin/env python3
"""Runs a command so that nothing it starts outlives it: Scripts/reaper.py [OPTIONS] -- COMMAND...

The reaper makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): every process the
command starts, however it detaches (setsid, a double fork, a dead parent), is reparented to the
reaper rather than to init, so it can be found and killed. A test process that hangs and is
killed, or one that crashes, cannot leave its X servers, compositors or peers behind.

- `--deadline SECONDS` (default $USERDEBUG_TEST_DEADLINE, else 10800): when the command runs
  longer, it and everything it started are killed and the reaper exits 124.
- When the command ends, its descendants get `--grace SECONDS` (default 10) to leave on their
  own (an owner leaves when its X server goes away). Any still running then is listed on stderr
  with its command line and killed, and the reaper exits 1 if the command had succeeded:
  a suite that leaves processes behind fails.
- SIGINT, SIGTERM and SIGHUP are passed on to the command; then the same cleanup runs.
Otherwise it exits with the command's status (128 + signal when a signal ended it).
"""
import argparse
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def parent_of(pid):
    """The parent pid of `pid` from /proc, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            data = stat.read()
    except OSError:
        return None
    # The command name is parenthesised and may hold spaces or parentheses itself.
    fields = data[data.rindex(b")") + 2:].split()
    return int(fields[1]) if fields[0] not in (b"Z", b"X") else None


def descendants(root):
    """Every live (not zombie) process below `root`."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            parent = parent_of(int(name))
            if parent is not None:
                children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip() or "?"
    except OSError:
        return "(gone)"


def reap_any():
    """Reaps every exited child; returns {pid: wait status}."""
    reaped = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped[pid] = status


def kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def report(title, pids):
    print(f"reaper: {title}:", file=sys.stderr)
    for pid in pids:
        print(f"reaper:   {pid} {command_line(pid)}", file=sys.stderr)


def clean_up(me, grace):
    """Waits up to `grace` seconds for the descendants to leave; kills and names the rest."""
    end = time.monotonic() + grace
    left = descendants(me)
    while left and time.monotonic() < end:
        time.sleep(0.1)
        reap_any()
        left = descendants(me)
    survivors = list(left)
    if survivors:
        report(f"{len(survivors)} process(es) started by the command were still running; killing them", survivors)
    for _ in range(50):  # the killed ones' own children are reparented to us in turn
        if not left:
            break
        kill_all(left)
        time.sleep(0.05)
        reap_any()
        left = descendants(me)
    return survivors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deadline", type=float, default=float(os.environ.get("USERDEBUG_TEST_DEADLINE", 10800)))
    parser.add_argument("--grace", type=float, default=10)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"reaper: prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")
    me = os.getpid()
    child = os.fork()
    if child == 0:
        os.execvp(command[0], command)
    received = []
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: received.append(number))

    deadline = time.monotonic() + options.deadline
    status = None
    forwarded = 0
    while status is None:
        status = reap_any().get(child)
        if status is not None:
            break
        if len(received) > forwarded:
            os.kill(child, received[forwarded])
            forwarded += 1
        if time.monotonic() >= deadline:
            running = descendants(me)
            report(f"`{' '.join(command)}` still ran after its deadline of {options.deadline:g} s; killing", running)
            kill_all(running)
            clean_up(me, 0)
            sys.exit(124)
        time.sleep(0.05)
    left_behind = clean_up(me, options.grace)
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code
    if code == 0 and left_behind:
        print("reaper: the command succeeded but left processes behind (listed above): failing", file=sys.stderr)
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
