#!/usr/bin/env python3
"""Turns a hyperfine --export-json file into a Markdown table of medians (ms) and ratios to the
first command, which is the baseline of the comparison."""
import json
import statistics
import sys

with open(sys.argv[1]) as handle:
    results = json.load(handle)["results"]
base = statistics.median(results[0]["times"])
print("| command | median [ms] | mean [ms] | min [ms] | runs | median ÷ first |")
print("|:---|---:|---:|---:|---:|---:|")
for result in results:
    median = statistics.median(result["times"])
    print(f"| `{result['command']}` | {median * 1000:.2f} | {result['mean'] * 1000:.2f} | "
          f"{result['min'] * 1000:.2f} | {len(result['times'])} | {median / base:.2f} |")
