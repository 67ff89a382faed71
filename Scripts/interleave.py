#!/usr/bin/env python3
"""Interleaved timing, beside hyperfine (Scripts/bench.sh uses both; neither asserts anything).

    interleave.py ROUNDS CMD [CMD ...]

hyperfine runs all repetitions of one command, then all of the next, so a shared machine that
gets busier halfway through lands on one side. Here every round runs each command once, the
starting command rotating, and the medians of the wall times are compared. Each CMD is split
like a shell word list (shlex) and run directly, stdout and stderr to /dev/null; the time
includes process creation, as with `hyperfine -N`. Leading NAME=value words set the command's
environment (no extra exec).

    interleave.py --block N ROUNDS CMD [CMD ...]

Blocks instead: every round runs each command N + 1 times in a row (the starting command
rotating) and drops the first of each block. A copy that reuses its own resident owner is warm
only while the previous copy was its own, so back-to-back copies of one binary are measured like
this, interleaved with the other's. The table then also gives the median CPU time (user + system
of the command, from wait4) and the median wall minus CPU: the time the command waited (for the
owner, the X server, the scheduler) rather than ran.
"""
import os
import shlex
import statistics
import sys
import time


def main():
    args = sys.argv[1:]
    block = 0
    if args[:1] == ["--block"]:
        block, args = int(args[1]), args[2:]
    rounds = int(args[0])
    commands = args[1:]
    argvs, envs = [], []
    for c in commands:
        words = shlex.split(c)
        env = dict(os.environ)
        # Leading NAME=value words set that command's environment, as in a shell, without the
        # extra exec that `env` would add to its time.
        while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        argvs.append(words)
        envs.append(env)
    devnull = os.open("/dev/null", os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = [[] for _ in argvs]
    waited = [[] for _ in argvs]
    for r in range(rounds):
        order = list(range(len(argvs)))
        order = order[r % len(order):] + order[:r % len(order)]
        for i in order:
            for repeat in range(block + 1 if block else 1):
                start = time.perf_counter_ns()
                pid = os.posix_spawnp(argvs[i][0], argvs[i], envs[i], file_actions=actions)
                _, status, usage = os.wait4(pid, 0)
                wall = (time.perf_counter_ns() - start) / 1e6
                if status != 0:
                    sys.exit(f"interleave.py: {commands[i]!r} failed (wait status {status})")
                if block and repeat == 0:
                    continue  # the block's first run: cold
                times[i].append(wall)
                waited[i].append(wall - (usage.ru_utime + usage.ru_stime) * 1e3)
    first = statistics.median(times[0])
    if block:
        print("| command | median [ms] | median CPU [ms] | median wall − CPU [ms] | runs | median ÷ first |")
        print("|:---|---:|---:|---:|---:|---:|")
    else:
        print("| command | median [ms] | runs | median ÷ first |")
        print("|:---|---:|---:|---:|")
    for command, t, w_ in zip(commands, times, waited):
        median = statistics.median(t)
        if block:
            used = statistics.median(a - b for a, b in zip(t, w_))
            print(f"| `{command}` | {median:.2f} | {used:.2f} | {statistics.median(w_):.2f} | {len(t)} "
                  f"| {median / first:.2f} |")
        else:
            print(f"| `{command}` | {median:.2f} | {len(t)} | {median / first:.2f} |")


if __name__ == "__main__":
    main()
