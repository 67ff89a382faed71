#!/usr/bin/env python3
"""Checks a HAR file the way a consumer sees it, and against the HAR 1.2 spec's structure.

    har_check.py FILE.har      prints "ok ENTRIES" or one line per problem, exit 1

1. haralyzer (PyPI) loads it and every property a reader uses is read: method, URL, headers,
   cookies, query string, sizes, status, status text, content, redirect URL, timings.
2. The structure the spec (http://www.softwareishard.com/blog/har-12-spec/) requires, written
   out here rather than copied from any schema: required members, their JSON types, the ISO 8601
   start time, timings >= -1, name/value pairs as strings, custom members starting with "_".
"""
import json
import re
import sys

from haralyzer import HarEntry, HarParser

problems = []


def need(obj, key, types, where):
    if not isinstance(obj, dict) or key not in obj:
        problems.append(f"{where}: missing {key}")
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, types):
        problems.append(f"{where}.{key}: {type(value).__name__} is not {types}")
        return None
    return value


def pairs(obj, key, where):
    for i, item in enumerate(need(obj, key, list, where) or []):
        need(item, "name", str, f"{where}.{key}[{i}]")
        need(item, "value", str, f"{where}.{key}[{i}]")


def known(obj, names, where):
    for key in obj:
        if key not in names and not key.startswith("_"):
            problems.append(f"{where}: {key} is not a HAR 1.2 member and does not start with _")


DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
har = json.load(open(sys.argv[1], encoding="utf-8"))
log = need(har, "log", dict, "$") or {}
if need(log, "version", str, "log") != "1.2":
    problems.append("log.version is not 1.2")
creator = need(log, "creator", dict, "log") or {}
need(creator, "name", str, "log.creator")
need(creator, "version", str, "log.creator")
entries = need(log, "entries", list, "log") or []
for n, entry in enumerate(entries):
    w = f"entries[{n}]"
    known(entry, {"pageref", "startedDateTime", "time", "request", "response", "cache", "timings",
                  "serverIPAddress", "connection", "comment"}, w)
    if not DATE.match(need(entry, "startedDateTime", str, w) or ""):
        problems.append(f"{w}.startedDateTime is not ISO 8601")
    if (need(entry, "time", (int, float), w) or 0) < 0:
        problems.append(f"{w}.time is negative")
    request = need(entry, "request", dict, w) or {}
    known(request, {"method", "url", "httpVersion", "cookies", "headers", "queryString", "postData",
                    "headersSize", "bodySize", "comment"}, w + ".request")
    for key, types in (("method", str), ("url", str), ("httpVersion", str), ("headersSize", int), ("bodySize", int)):
        need(request, key, types, w + ".request")
    for key in ("cookies", "headers", "queryString"):
        pairs(request, key, w + ".request")
    if "postData" in request:
        post = need(request, "postData", dict, w + ".request") or {}
        need(post, "mimeType", str, w + ".request.postData")
        need(post, "text", str, w + ".request.postData")
    response = need(entry, "response", dict, w) or {}
    known(response, {"status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL",
                     "headersSize", "bodySize", "comment"}, w + ".response")
    for key, types in (("status", int), ("statusText", str), ("httpVersion", str), ("redirectURL", str),
                       ("headersSize", int), ("bodySize", int)):
        need(response, key, types, w + ".response")
    for key in ("cookies", "headers"):
        pairs(response, key, w + ".response")
    content = need(response, "content", dict, w + ".response") or {}
    need(content, "size", int, w + ".response.content")
    need(content, "mimeType", str, w + ".response.content")
    if "encoding" in content and content["encoding"] != "base64":
        problems.append(f"{w}.response.content.encoding is {content['encoding']!r}")
    need(entry, "cache", dict, w)
    timings = need(entry, "timings", dict, w) or {}
    for key in ("send", "wait", "receive"):
        if (need(timings, key, (int, float), w + ".timings") or 0) < -1:
            problems.append(f"{w}.timings.{key} < -1")

# The consumer: every entry through haralyzer's own accessors.
parser = HarParser(har)
for raw in parser.har_data["entries"]:
    e = HarEntry(raw)
    _ = (e.request.method, e.request.url, e.request.headers, e.request.cookies, e.request.queryString,
         e.request.bodySize, e.request.headersSize, e.request.httpVersion)
    _ = (e.response.status, e.response.statusText, e.response.headers, e.response.mimeType,
         e.response.text, e.response.textEncoding, e.response.redirectURL, e.response.bodySize, e.timings, e.time)
    if "postData" in raw:
        _ = (e.request.mimeType, e.request.text)

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"ok {len(entries)}")
