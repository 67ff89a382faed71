#!/usr/bin/python3
"""The test suites of the real-desktop tier, as a `swift test --filter` pattern.

  Scripts/tiers.py            prints the pattern (Module.Suite/ for every suite whose @Suite
                              attribute holds `.desktopTier`), or exits 1 when none is found
  Scripts/tiers.py --list     prints one Module.Suite a line

A suite is in the desktop tier when its `@Suite(…)` attribute says `.desktopTier` (the trait in
Tests/TestSupport/TestTier.swift), so the attribute is the one place that decides: `swift test`
alone skips the suite, and Scripts/test.sh runs exactly these suites in its second tier.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECLARATION = re.compile(r"\s*(?:(?:public|final|internal|private|fileprivate)\s+)*(?:struct|class|enum|actor)\s+(\w+)")


def attribute_arguments(text, start):
    """The text between the parentheses that open at `start`, and the index after them."""
    depth, index, in_string = 0, start, False
    while index < len(text):
        character = text[index]
        if character == '"' and text[index - 1] != "\\":
            in_string = not in_string
        elif not in_string and character == "(":
            depth += 1
        elif not in_string and character == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:index], index + 1
        index += 1
    return text[start + 1:], len(text)


def desktop_suites():
    found = []
    tests = os.path.join(ROOT, "Tests")
    for module in sorted(os.listdir(tests)):
        for directory, _, files in os.walk(os.path.join(tests, module)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                with open(os.path.join(directory, name)) as source:
                    text = source.read()
                for match in re.finditer(r"@Suite\(", text):
                    arguments, end = attribute_arguments(text, match.end() - 1)
                    if ".desktopTier" not in arguments:
                        continue
                    declaration = DECLARATION.match(text, end)
                    if declaration is None:
                        sys.exit(f"tiers.py: {name}: no type after an @Suite(.desktopTier) attribute")
                    found.append(f"{module}.{declaration.group(1)}")
    return found


def main():
    suites = desktop_suites()
    if not suites:
        sys.exit("tiers.py: no suite is in the desktop tier (@Suite(.desktopTier)): the pattern would match nothing")
    if sys.argv[1:] == ["--list"]:
        print("\n".join(suites))
    elif not sys.argv[1:]:
        print("^(" + "|".join(re.escape(suite) for suite in suites) + ")/")
    else:
        sys.exit(f"tiers.py: unknown arguments {' '.join(sys.argv[1:])} (expected --list or nothing)")


if __name__ == "__main__":
    main()
