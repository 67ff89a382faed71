#!/usr/bin/env python3
"""Checks that the folders of Sources/UserDebugKit read as layers: a file may name the types of
its own folder and of the folders before it, never those of a later one.

    Scripts/layers.py [--root DIR] [--order Domain,Formats,...]

Order (default): System, Domain, Formats, Redaction, Store, Actions, Output, Config. System is the
POSIX layer (package access, no types of the project). Config is last: the user's file names
settings of every layer (RetentionPolicy, BackendProvider.Settings, CopyOptions, OutputTarget),
and nothing below reads the file. A subfolder belongs to its top folder (Actions/Host is Actions).
Exit status 1 with one `file:line: Type (Folder)`
line per upward reference, 0 when there is none.

The rule, and why it has no false positives on today's names:
- A folder's types are its TOP-LEVEL `struct`/`enum`/`class`/`actor`/`protocol`/`typealias`
  declarations. `extension X` declares nothing (an extension of a later layer's type names that
  type and is reported like any other use).
- Comments and string literals are not code and are skipped; the code inside a string's
  interpolation `\\(...)` is checked.
- `A.Name` is a member of A, not the top-level Name: a token right after `.` is ignored (the
  reference is to A, which is checked), except after `UserDebugKit.`.
- A nested type shadows a top-level one of the same name inside its parent: within the body of
  `struct Config { ... }` or `extension Config { ... }` (or of a type nested in Config), the name
  `Clipboard` means `Config.Clipboard` when Config declares a nested `Clipboard` anywhere in the
  module, so it is not a use of the protocol `Clipboard` of Output.
Not handled (none occur today): generic parameters or local types that reuse a type's name.

The C targets are layered too (C_LAYERS, as Package.swift declares their dependencies): a
`#include "x.h"` in Sources/<target> must name a header of that target or of a target it may
use. CShared (clock, errors, the resident owner's socket) and COwnerProcess (the detached-owner
rules) use nothing of ours; the backends CX11 and CWayland use both, never each other; CPopup
stands alone. A C target not in C_LAYERS is reported, so a new one is placed on purpose.

The clipboard seam (issue 22 item 3): outside Sources/WaylandClipboard no Swift code makes a
Wayland-only call. Other targets reach the Wayland backend through `WaylandEndpoint` (its
discovery, probe and probe-and-copy) and hold its clipboard as `any Clipboard`; they never name
`WaylandClipboard` itself, its probe or discovery results, or its data-control-only methods
(WAYLAND_ONLY). Reported as `file:line: NAME (Wayland-only) outside WaylandClipboard`.
"""

import argparse
import os
import re
import sys

DEFAULT_ORDER = ["System", "Domain", "Formats", "Redaction", "Store", "Actions", "Output", "Config"]
MODULE = "UserDebugKit"
DECL_KEYWORDS = {"struct", "enum", "class", "actor", "protocol", "typealias"}
SCOPE_KEYWORDS = {"struct", "enum", "class", "actor", "protocol", "extension"}
KEYWORDS = {"func", "var", "let", "init", "subscript", "static", "final", "override", "private", "fileprivate"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
C_LAYERS = {
    "CShared": [],
    "COwnerProcess": [],
    "CX11": ["CShared", "COwnerProcess"],
    "CWayland": ["CShared", "COwnerProcess"],
    "CPopup": [],
}
WAYLAND_ONLY = {"WaylandClipboard", "WaylandProbe", "WaylandDataControl", "CWLCalls", "ownIfDataControl",
                "residentOwnerTaking"}
WAYLAND_MODULE = "WaylandClipboard"
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def c_problems(sources):
    """`file:line: "x.h" (Target) included from Target` for every quoted include that crosses the
    C layers, and `Target: a C target outside C_LAYERS` for a target with .c files not listed."""
    headers = {}  # header file name -> the target that has it
    targets = []
    for target in sorted(os.listdir(sources)):
        root = os.path.join(sources, target)
        if not os.path.isdir(root) or not any(n.endswith(".c") for _, _, ns in os.walk(root) for n in ns):
            continue
        targets.append(target)
        for directory, _, names in os.walk(root):
            for name in names:
                if name.endswith(".h"):
                    headers.setdefault(name, target)
    problems = [f"{target}: a C target outside C_LAYERS (Scripts/layers.py)" for target in targets if target not in C_LAYERS]
    for target in targets:
        allowed = {target, *C_LAYERS.get(target, [])}
        for directory, _, names in os.walk(os.path.join(sources, target)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                for match in QUOTED_INCLUDE.finditer(text):
                    owner = headers.get(os.path.basename(match.group(1)))
                    if owner is not None and owner not in allowed:
                        line = text.count("\n", 0, match.start()) + 1
                        problems.append(f'{os.path.relpath(path)}:{line}: "{match.group(1)}" ({owner}) included from {target}')
    return problems


def wayland_only_problems(sources):
    """`file:line: NAME (Wayland-only) outside WaylandClipboard` for each code token of a Swift
    file outside Sources/WaylandClipboard that is in WAYLAND_ONLY (an `import WaylandClipboard`
    is fine: it brings WaylandEndpoint)."""
    problems = []
    for target in sorted(os.listdir(sources)):
        if target == WAYLAND_MODULE or not os.path.isdir(os.path.join(sources, target)):
            continue
        for directory, _, names in os.walk(os.path.join(sources, target)):
            for name in sorted(names):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    tokens = code_tokens(handle.read())
                for index, (line, token) in enumerate(tokens):
                    if token in WAYLAND_ONLY and not (index and tokens[index - 1][1] == "import"):
                        problems.append(f"{os.path.relpath(path)}:{line}: {token} (Wayland-only) outside {WAYLAND_MODULE}")
    return problems


def code_tokens(text):
    """(line, token) for the code of a Swift file: identifiers, `.`, `{`, `}`, other
    punctuation as single characters; comments and string contents left out, interpolations in."""
    tokens = []
    state = {"i": 0, "line": 1}

    def lex_code(stop_at_paren):
        depth = 0
        while state["i"] < len(text):
            i = state["i"]
            c = text[i]
            if c == "\n":
                state["line"] += 1
                state["i"] += 1
            elif text.startswith("//", i):
                end = text.find("\n", i)
                state["i"] = len(text) if end < 0 else end
            elif text.startswith("/*", i):
                skip_block_comment()
            elif c == '"' or (c == "#" and re.match(r"#+\"", text[i:])):
                lex_string()
            elif c.isalpha() or c == "_":
                match = IDENT.match(text, i)
                tokens.append((state["line"], match.group()))
                state["i"] = match.end()
            elif c.isspace():
                state["i"] += 1
            else:
                if stop_at_paren:
                    if c == "(":
                        depth += 1
                    elif c == ")":
                        if depth == 0:
                            state["i"] += 1
                            return
                        depth -= 1
                tokens.append((state["line"], c))
                state["i"] += 1

    def skip_block_comment():
        depth = 0
        while state["i"] < len(text):
            i = state["i"]
            if text.startswith("/*", i):
                depth += 1
                state["i"] += 2
            elif text.startswith("*/", i):
                depth -= 1
                state["i"] += 2
                if depth == 0:
                    return
            else:
                if text[i] == "\n":
                    state["line"] += 1
                state["i"] += 1

    def lex_string():
        i = state["i"]
        hashes = len(text[i:]) - len(text[i:].lstrip("#"))
        i += hashes
        multiline = text.startswith('"""', i)
        quote = '"""' if multiline else '"'
        closing = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        i += len(quote)
        while i < len(text):
            if text.startswith(escape + "(", i):
                state["i"] = i + len(escape) + 1
                lex_code(stop_at_paren=True)
                i = state["i"]
            elif text.startswith(escape, i):
                i += len(escape) + 1
            elif text.startswith(closing, i):
                state["i"] = i + len(closing)
                return
            else:
                if text[i] == "\n":
                    state["line"] += 1
                i += 1
        state["i"] = i

    lex_code(stop_at_paren=False)
    return tokens


def declarations(tokens):
    """Walks the braces: yields (kind, name, enclosing type path, line) for every type
    declaration, and gives each token index its enclosing type path (for shadowing)."""
    decls = []
    scopes = []  # one entry per open brace: a qualified type name or None
    pending = None  # the type a `{` about to open belongs to
    enclosing = []
    for index, (line, token) in enumerate(tokens):
        path = next((s for s in reversed(scopes) if s), None)
        enclosing.append(path)
        previous = tokens[index - 1][1] if index else ""
        if token in SCOPE_KEYWORDS | DECL_KEYWORDS and previous != "." and index + 1 < len(tokens):
            name = qualified_name(tokens, index + 1)
            if name and token in DECL_KEYWORDS:
                decls.append((token, name, path, line))
            if name and token in SCOPE_KEYWORDS:
                if token == "extension":
                    pending = name
                else:
                    pending = (path + "." + name) if path else name
        elif token == "{":
            scopes.append(pending)
            pending = None
        elif token == "}":
            if scopes:
                scopes.pop()
    return decls, enclosing


def qualified_name(tokens, start):
    """`A.B` from the tokens at `start`; None when they are a keyword (`class func`)."""
    if tokens[start][1] in KEYWORDS:
        return None
    parts = []
    index = start
    while index < len(tokens) and IDENT.fullmatch(tokens[index][1]):
        parts.append(tokens[index][1])
        if index + 2 < len(tokens) and tokens[index + 1][1] == "." and IDENT.fullmatch(tokens[index + 2][1]):
            index += 2
        else:
            break
    return ".".join(parts) if parts else None


def folder_of(path, root, order):
    relative = os.path.relpath(path, root)
    top = relative.split(os.sep)[0]
    return top if top in order else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Report upward references between UserDebugKit's layers.")
    parser.add_argument("--root", default=os.path.join(here, "..", "Sources", MODULE))
    parser.add_argument("--order", default=",".join(DEFAULT_ORDER))
    args = parser.parse_args()
    order = args.order.split(",")
    root = os.path.normpath(args.root)

    files = {}
    for directory, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    files[path] = code_tokens(handle.read())

    layer_of_type = {}
    nested = {}  # qualified parent -> names of its nested types
    scans = {}
    unplaced = []
    for path, tokens in sorted(files.items()):
        folder = folder_of(path, root, order)
        decls, enclosing = declarations(tokens)
        scans[path] = (folder, tokens, enclosing)
        for kind, name, parent, line in decls:
            if parent:
                nested.setdefault(parent, set()).add(name)
            elif folder is None:
                unplaced.append(f"{os.path.relpath(path)}:{line}: {name} is in no layer")
            else:
                layer_of_type[name] = folder

    sources = os.path.normpath(os.path.join(root, ".."))
    problems = list(unplaced) + c_problems(sources) + wayland_only_problems(sources)
    for path, (folder, tokens, enclosing) in sorted(scans.items()):
        if folder is None:
            continue
        rank = order.index(folder)
        for index, (line, token) in enumerate(tokens):
            owner = layer_of_type.get(token)
            if owner is None or order.index(owner) <= rank:
                continue
            if index and tokens[index - 1][1] == ".":
                if not (index > 1 and tokens[index - 2][1] == MODULE):
                    continue
            if shadowed(token, enclosing[index], nested):
                continue
            problems.append(f"{os.path.relpath(path)}:{line}: {token} ({owner}) used in {folder}")

    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} upward reference(s); layers: {' -> '.join(order)}", file=sys.stderr)
        return 1
    return 0


def shadowed(name, path, nested):
    """Whether `name` inside the type path `path` (or an outer type of it) is a nested type."""
    while path:
        if name in nested.get(path, ()):
            return True
        path = path.rpartition(".")[0]
    return False


if __name__ == "__main__":
    sys.exit(main())
