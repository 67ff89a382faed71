#!/usr/bin/env python3
"""Writes a benchmark's figures into BENCHMARKS.md (issue 22, item 7). A benchmark tool, not a test.

    bench_write.py AREA WHEN FILE...

Scripts/bench.sh calls it at the end of a section when BENCH_WRITE=1 is set, with the files that
section wrote and WHEN ("2026-12-03 23:35 UTC, load 0.23–0.37"). AREA's table in BENCHMARKS.md,
between the lines `<!-- bench.sh AREA -->` and `<!-- /bench.sh AREA -->`, is replaced whole by the
rows made from those files; everything outside the markers stays as written by hand. A marker
missing, or a file that does not hold what its section prints, is an error (exit 1) and the
document is left as it was.

  config    FILE1 the interleave.py table of xclip then the four config homes (consecutive copies),
            FILE2 the one of xclip and copy-id alternating on one server (after another owner),
            FILE3 lines "HOME: N instructions"
  owners    FILE  the owners.tsv of the 128 MiB copy (tool, state, wall, system, peak KiB)
  hotkey    FILE  hotkey_bench.py's output (floor, daemon, sxhkd + copy-id, sxhkd + xclip,
            xbindkeys + copy-id)
  store     FILE1 hyperfine's JSON of print-response last at 10 and 1,000,000 responses, FILE2 the
            one of reads while a writer holds the lock, FILE3 userdebug-bench record's line
  json      FILE1, FILE2 hyperfine's JSON of python3 json.load then userdebug-bench parse, on the
            quotes and the mixed 64 MiB documents
  readable  FILE1 sway with the listener, FILE2 sway with the wl-paste poller, FILE3 KWin with the
            listener (readable_bench.py's output; FILE3 may be missing when KWin did not start)
"""
import os
import re
import statistics
import sys

DOCUMENT = os.environ.get(
    "BENCH_DOCUMENT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "BENCHMARKS.md"))


def fail(message):
    print(f"bench_write.py: {message}", file=sys.stderr)
    sys.exit(1)


def interleave_medians(path):
    """The commands and medians (ms) of an interleave.py table, in its order."""
    rows = []
    for line in open(path, encoding="utf-8"):
        match = re.match(r"^\| `(.*)` \| ([0-9.]+) \|", line)
        if match:
            rows.append((match.group(1), float(match.group(2))))
    if not rows:
        fail(f"{path}: no interleave.py table")
    return rows


def config_rows(when, table, other, instructions):
    consecutive = interleave_medians(table)
    after = interleave_medians(other)
    if len(consecutive) != 5 or len(after) != 2:
        fail("config: expected xclip and four homes, then xclip and one home")
    xclip = consecutive[0][1]
    ours = [median for _, median in consecutive[1:]]
    counts = dict(re.findall(r"^(\w+): (\d+) instructions$", open(instructions, encoding="utf-8").read(), re.M))
    if sorted(counts) != ["full", "hotkeys", "never", "none"]:
        fail(f"{instructions}: expected the instructions of the four homes")
    runs = os.environ.get("RUNS", "200")
    command = f"`RUNS={runs} Scripts/bench.sh config`"
    ms = " / ".join(f"{m:.2f}" for m in ours)
    ratios = " / ".join(f"{m / xclip:.2f}" for m in ours)
    thousands = " / ".join(f"{int(counts[h]) / 1000:.0f}K" for h in ("none", "hotkeys", "never", "full"))
    return [
        "| figure | measured | ÷ xclip | command | when, load |",
        "|:---|---:|---:|:---|:---|",
        f"| `copy-id --to clipboard -q` by config file, consecutive copies, interleaved with "
        f"`printf ID \\| xclip` ({xclip:.2f} ms), {runs} rounds: no config / the daemon's hotkeys file / "
        f'`{{"notifications":"never"}}` / the shipped template with hotkeys | {ms} ms | **{ratios}** | {command} | {when} |',
        f"| the same after another owner: xclip and `copy-id` (the template with hotkeys) alternating on one "
        f"server | {after[1][1]:.2f} ms (xclip {after[0][1]:.2f} ms) | **{after[1][1] / after[0][1]:.2f}** "
        f"| {command} | {when} |",
        f"| instructions of the copying process (callgrind), the same four configs | {thousands} | | {command} "
        f"| {when.split(',')[0]} (load-independent) |",
    ]


def owners_rows(when, tsv):
    walls, peaks = {}, {}
    for line in open(tsv, encoding="utf-8"):
        tool, state, wall, _system, kib = line.rstrip("\n").split("\t")
        walls.setdefault((tool, state), []).append(float(wall))
        peaks.setdefault((tool, state), []).append(int(kib))
    states = [s for t, s in walls if t == "userdebug"]
    if not states or any(("xclip", s) not in walls for s in states):
        fail(f"{tsv}: expected userdebug and xclip in the same states")
    runs = len(walls[("userdebug", states[0])])
    ours = " / ".join(f"{statistics.median(walls[('userdebug', s)]):.2f}" for s in states)
    theirs = " / ".join(f"{statistics.median(walls[('xclip', s)]):.2f}" for s in states)
    largest = max(max(walls[("userdebug", s)]) for s in states)
    peak = statistics.median(p for s in states for p in peaks[("userdebug", s)]) / 1024
    xpeak = statistics.median(p for s in states for p in peaks[("xclip", s)]) / 1024
    return [
        "| figure | measured | command | when, load |",
        "|:---|---:|:---|:---|",
        f"| `userdebug copy < 128 MiB file` by the owner state it meets: {' / '.join(states)} "
        f"(xclip in the same states: {theirs} s), median of {runs} interleaved rounds | {ours} s (largest "
        f"{largest:.2f} s), peak RSS {peak:.1f} MiB ({peak / 128:.2f}× the payload; xclip {xpeak:.1f} MiB) "
        f"| `LARGE_RUNS={runs} Scripts/bench.sh owners` | {when} |",
    ]


def hyperfine_medians(path):
    """The command names and median times (ms) of a hyperfine --export-json file."""
    import json

    try:
        results = json.load(open(path, encoding="utf-8"))["results"]
        return [(r["command"], statistics.median(r["times"]) * 1000) for r in results]
    except (OSError, ValueError, KeyError, TypeError) as error:
        fail(f"{path}: not hyperfine's JSON ({error})")


def store_rows(when, sizes, locked, record):
    by_size = hyperfine_medians(sizes)
    reads = hyperfine_medians(locked)
    rate = re.search(r"in ([0-9.]+) s: (\d+) responses/s", open(record, encoding="utf-8").read())
    if len(by_size) != 2 or len(reads) != 3 or rate is None:
        fail("store: expected 10 and 1,000,000 responses, three locked reads and the record line")
    runs = os.environ.get("RUNS", "200")
    command = f"`RUNS={runs} Scripts/bench.sh store`"
    (_, ten), (_, million) = by_size
    return [
        "| figure | measured | command | when, load |",
        "|:---|---:|:---|:---|",
        f"| `print-response last` at 1,000,000 vs 10 responses | {million:.2f} / {ten:.2f} ms = {million / ten:.2f}× "
        f"| {command} | {when} |",
        f"| library record rate, 1 KiB bodies, one response per transaction | {int(rate.group(2)):,} responses/s "
        f"| {command} (`userdebug-bench record DB 20000 1024`) | {when} |",
        f"| reads while a writer holds the lock: `copy-id` / `print-response` | {reads[1][1]:.2f} / {reads[2][1]:.2f} ms "
        f"(unlocked `copy-id` {reads[0][1]:.2f} ms) | {command} | {when} |",
    ]


def json_rows(when, quotes, mixed):
    rows = ["| figure | measured | command | when, load |", "|:---|---:|:---|:---|"]
    runs = os.environ.get("JSON_RUNS", "10")
    for path, label in ((quotes, "`\\\"` escapes"), (mixed, "`a\\\"` escapes")):
        medians = hyperfine_medians(path)
        if len(medians) != 2:
            fail(f"{path}: expected python3 json.load and userdebug-bench parse")
        (_, python), (_, ours) = medians
        rows.append(
            f"| 64 MiB of {label}: `userdebug-bench parse` ÷ Python `json.load` | {ours:.0f} / {python:.0f} ms = "
            f"{ours / python:.2f}× | `JSON_RUNS={runs} Scripts/bench.sh json` | {when} |")
    return rows


def hotkey_rows(when, output):
    text = open(output, encoding="utf-8").read()
    owner, value = {}, {}
    name = None
    for line in text.splitlines():
        match = re.match(r"^(\S+)?\s+(owner set|value):\s+median\s+([0-9.]+)", line)
        if match:
            name = match.group(1) or name
            (owner if match.group(2) == "owner set" else value)[name] = float(match.group(3))
    ratios = re.search(r"^daemon / floor \(owner set\): ([0-9.]+)x overall medians, ([0-9.]+)x median of the "
                       r"per-round ratios \(([^)]*)\)", text, re.M)
    wanted = ["floor", "daemon", "sxhkd+copy-id", "sxhkd+xclip", "xbindkeys+copy-id"]
    if ratios is None or any(n not in owner for n in wanted) or "daemon" not in value or "floor" not in value:
        fail(f"{output}: not hotkey_bench.py's output for {', '.join(wanted)}")
    rounds = os.environ.get("HOTKEY_ROUNDS", "5")
    presses = os.environ.get("HOTKEY_PRESSES", "20")
    command = f"`Scripts/bench.sh hotkey` ({rounds} rounds × {presses} interleaved presses)"
    daemon = owner["daemon"]
    others = ", ".join(
        f"{daemon / owner[n]:.3f}× {label} ({owner[n]:.2f} ms)"
        for n, label in [("sxhkd+copy-id", "sxhkd + `userdebug copy-id`"), ("sxhkd+xclip", "sxhkd + xclip"),
                         ("xbindkeys+copy-id", "xbindkeys + `userdebug copy-id`")])
    return [
        "| figure | measured | command | when, load |",
        "|:---|---:|:---|:---|",
        f"| key press (XTEST) → CLIPBOARD has a new owner (XFixes), `userdebug daemon` (payloads made ahead) "
        f"| {daemon:.3f} ms: **{float(ratios.group(1)):.2f}×** the bare XGrabKey C program's {owner['floor']:.3f} ms "
        f"({float(ratios.group(2)):.2f}× median of the rounds' ratios: {ratios.group(3)}); {others} | {command} | {when} |",
        f"| the same, the value readable by a reader (XFixes owner change, then ConvertSelection) "
        f"| daemon {value['daemon']:.3f} ms, floor {value['floor']:.3f} ms | {command} | {when} |",
    ]


CONTESTANTS = ["wl-copy VALUE", "userdebug copy-id", "userdebug copy < pipe", "userdebug copy-id, session unchanged"]


def readable_medians(path):
    """The readable medians (ms) of readable_bench.py's table, by contestant."""
    found = {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 5 and cells[1].startswith("`") and cells[1].strip("`") in CONTESTANTS:
            found[cells[1].strip("`")] = float(cells[4].split()[0])
    if "wl-copy VALUE" not in found or "userdebug copy-id" not in found:
        fail(f"{path}: no readable_bench.py table")
    return found


def readable_cells(found):
    base = found["wl-copy VALUE"]
    names = [n for n in CONTESTANTS if n in found]
    times = " / ".join(f"{found[n]:.2f}" for n in names)
    ratios = ", ".join(
        f"{label} **{found[n] / base:.2f}×**"
        for n, label in zip(names[1:], ["copy-id", "copy", "copy-id unchanged"][: len(names) - 1])
    )
    return times, ratios


def readable_rows(when, sway, poll, kwin=None):
    rounds = os.environ.get("READABLE_ROUNDS", "50")
    command = "`Scripts/bench.sh readable`"
    rows = [
        "| figure | measured | command | when, load |",
        "|:---|---:|:---|:---|",
    ]
    times, ratios = readable_cells(readable_medians(sway))
    rows.append(
        "| until a data-control listener has the new value (sway 1.7): `wl-copy` / `copy-id` after `session set` / "
        f"`copy < pipe` / `copy-id` with the session unchanged, median of {rounds} rotating rounds | {times} ms: "
        f"{ratios} | {command} | {when} |")
    if kwin and os.path.exists(kwin) and os.path.getsize(kwin) > 0:
        times, ratios = readable_cells(readable_medians(kwin))
        rows.append(f"| the same, KWin 5.27 (`--virtual`) | {times} ms: {ratios} | {command} | {when} |")
    else:
        rows.append(f"| the same, KWin 5.27 | not measured: KWin did not start | {command} | {when} |")
    times, ratios = readable_cells(readable_medians(poll))
    rows.append(f"| the same on sway with a `wl-paste -n` poller | {times} ms: {ratios} | {command} | {when} |")
    return rows


def main():
    if len(sys.argv) < 4:
        fail("usage: bench_write.py AREA WHEN FILE...")
    area, when, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    makers = {
        "config": (config_rows, 3), "owners": (owners_rows, 1), "readable": (readable_rows, 2), "hotkey": (hotkey_rows, 1),
        "store": (store_rows, 3), "json": (json_rows, 2),
    }
    if area not in makers:
        fail(f"unknown area '{area}' (expected {', '.join(makers)})")
    maker, least = makers[area]
    if len(files) < least:
        fail(f"{area}: expected at least {least} files")
    rows = maker(when, *files)
    text = open(DOCUMENT, encoding="utf-8").read()
    begin, end = f"<!-- bench.sh {area} -->\n", f"<!-- /bench.sh {area} -->"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        fail(f"BENCHMARKS.md has no single '{begin.strip()}' … '{end}' block")
    start = text.index(begin) + len(begin)
    text = text[:start] + "\n".join(rows) + "\n" + text[text.index(end):]
    temporary = DOCUMENT + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, DOCUMENT)
    print(f"bench_write.py: BENCHMARKS.md's {area} table written ({len(rows) - 2} rows)")


if __name__ == "__main__":
    main()
