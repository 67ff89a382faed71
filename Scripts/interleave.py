#!/usr/bin/env python3
"""Interleaved timing, beside hyperfine (Scripts/bench.sh uses both; neither asserts anything).

    interleave.py ROUNDS CMD [CMD ...]

hyperfine runs all repetitions of one command, then all of the next, so a shared machine that
gets busier halfway through lands on one side. Here every round runs each command once, the
starting command rotating, and the medians of the wall times are compared. Each CMD is split
like a shell word list (shlex) and run directly, stdout and stderr to /dev/null; the time
includes process creation, as with `hyperfine -N`. Leading NAME=value words set the command's
environment (no extra exec).
"""
import os
import shlex
import statistics
import sys
import time


def main():
    rounds = int(sys.argv[1])
    commands = sys.argv[2:]
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
    for r in range(rounds):
        order = list(range(len(argvs)))
        order = order[r % len(order):] + order[:r % len(order)]
        for i in order:
            start = time.perf_counter_ns()
            pid = os.posix_spawnp(argvs[i][0], argvs[i], envs[i], file_actions=actions)
            _, status = os.waitpid(pid, 0)
            times[i].append((time.perf_counter_ns() - start) / 1e6)
            if status != 0:
                sys.exit(f"interleave.py: {commands[i]!r} failed (wait status {status})")
    first = statistics.median(times[0])
    print("| command | median [ms] | runs | median ÷ first |")
    print("|:---|---:|---:|---:|")
    for command, t in zip(commands, times):
        median = statistics.median(t)
        print(f"| `{command}` | {median:.2f} | {len(t)} | {median / first:.2f} |")


if __name__ == "__main__":
    main()
