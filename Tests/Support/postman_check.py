#!/usr/bin/env python3
"""Checks an exported Postman collection (v2.1) and environment against the structure of the
v2.1.0 collection format and of Postman's environment files, written out here (no schema is
copied into the project).

    postman_check.py COLLECTION.json ENVIRONMENT.json   prints "ok ITEMS" or the problems, exit 1
"""
import json
import sys

problems = []
SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
MODES = {"raw", "urlencoded", "formdata", "file"}


def need(obj, key, types, where, optional=False):
    if not isinstance(obj, dict) or key not in obj:
        if not optional:
            problems.append(f"{where}: missing {key}")
        return None
    value = obj[key]
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        problems.append(f"{where}.{key}: a boolean")
        return None
    if not isinstance(value, types):
        problems.append(f"{where}.{key}: {type(value).__name__} is not {types}")
        return None
    return value


collection = json.load(open(sys.argv[1], encoding="utf-8"))
info = need(collection, "info", dict, "$") or {}
need(info, "name", str, "info")
if need(info, "schema", str, "info") != SCHEMA:
    problems.append("info.schema is not the v2.1.0 schema")
need(info, "_postman_id", str, "info", optional=True)
items = need(collection, "item", list, "$") or []
for n, item in enumerate(items):
    w = f"item[{n}]"
    if "item" in item:
        problems.append(f"{w}: a folder where a request item belongs")
    need(item, "name", str, w)
    request = need(item, "request", dict, w) or {}
    need(request, "method", str, w + ".request")
    for i, header in enumerate(need(request, "header", list, w + ".request") or []):
        need(header, "key", str, f"{w}.request.header[{i}]")
        need(header, "value", str, f"{w}.request.header[{i}]")
        need(header, "disabled", bool, f"{w}.request.header[{i}]", optional=True)
    url = need(request, "url", (dict, str), w + ".request")
    if isinstance(url, dict):
        need(url, "raw", str, w + ".request.url")
        for i, part in enumerate(need(url, "host", list, w + ".request.url", optional=True) or []):
            if not isinstance(part, str):
                problems.append(f"{w}.request.url.host[{i}] is not a string")
        for i, part in enumerate(need(url, "path", list, w + ".request.url", optional=True) or []):
            if not isinstance(part, str):
                problems.append(f"{w}.request.url.path[{i}] is not a string")
        need(url, "port", str, w + ".request.url", optional=True)
        need(url, "protocol", str, w + ".request.url", optional=True)
        for i, q in enumerate(need(url, "query", list, w + ".request.url", optional=True) or []):
            need(q, "key", (str, type(None)), f"{w}.request.url.query[{i}]")
            need(q, "value", (str, type(None)), f"{w}.request.url.query[{i}]")
    body = need(request, "body", dict, w + ".request", optional=True)
    if body is not None:
        if body.get("mode") not in MODES:
            problems.append(f"{w}.request.body.mode {body.get('mode')!r} is not one of {sorted(MODES)}")
        if body.get("mode") == "raw":
            need(body, "raw", str, w + ".request.body")

environment = json.load(open(sys.argv[2], encoding="utf-8"))
need(environment, "name", str, "env")
for i, value in enumerate(need(environment, "values", list, "env") or []):
    w = f"env.values[{i}]"
    need(value, "key", str, w)
    need(value, "value", str, w)
    if need(value, "type", str, w) not in ("default", "secret", "any", "text"):
        problems.append(f"{w}.type is not a Postman variable type")
    enabled = need(value, "enabled", bool, w)
    disabled = need(value, "disabled", bool, w, optional=True)
    if enabled is False and disabled is not True:
        problems.append(f"{w}: enabled false without disabled true (newman would use the value)")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"ok {len(items)}")
