#!/usr/bin/env python3
"""Where a hot-path run spends its CPU, from `perf script -F ip,sym` output on stdin.

Scripts/bench.sh profile records `userdebug copy-id` with `perf record --call-graph dwarf` and
pipes the samples here. Each phase counts the samples whose call stack passes through it
(inclusive, so phases nest: the store is part of the action). Not a test: it asserts nothing.
"""
import re
import sys

PHASES = [
    ("whole process (samples with our stacks)", r"."),
    ("  Swift main (CLI.run)", r"userdebug_main"),
    ("    argument scan (CommandLine, tokenizer, parser)", r"CommandLine|ParsedArguments|Tokenizer"),
    ("    action model (MenuSession request/perform)", r"MenuSessionC7request|MenuSessionC7perform"),
    ("      store open (SessionStore.open)", r"SessionStoreC4open"),
    ("        schema check (Migrations)", r"Migrations"),
    ("      SQLite statements (prepare + step)", r"sqlite3_prepare|sqlite3_step"),
    ("    clipboard (cx11_own: connect, own, fork)", r"cx11_own"),
    ("      connect + atoms + timestamp", r"cx11_session_open"),
    ("      fork", r"_Fork|__libc_fork"),
    ("  Swift metadata instantiation (anywhere)", r"instantiateConcreteTypeFromMangledName|swift_getTypeByMangledName|swift_getGenericMetadata|swift_conformsToProtocol"),
    ("  kernel: page faults (anywhere)", r"asm_exc_page_fault"),
    ("  kernel: exec (load_elf_binary)", r"load_elf_binary"),
]


def samples(lines):
    current = []
    for line in lines:
        line = line.strip()
        if not line:
            if current:
                yield current
            current = []
            continue
        parts = line.split(None, 1)
        current.append(parts[1] if len(parts) > 1 else parts[0])
    if current:
        yield current


def main():
    stacks = list(samples(sys.stdin))
    if not stacks:
        print("no samples")
        return
    for name, pattern in PHASES:
        matcher = re.compile(pattern)
        hit = sum(1 for stack in stacks if any(matcher.search(frame) for frame in stack))
        print(f"{hit / len(stacks) * 100:5.1f}%  {name}")
    print(f"({len(stacks)} samples)")


if __name__ == "__main__":
    main()
