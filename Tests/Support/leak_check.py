#!/usr/bin/env python3
"""Looks for secrets in files the way an attacker would: as text, and inside every encoding that
would hide them from a plain substring search.

    leak_check.py --secret S [--secret S2 ...] FILE...

Prints "clean" and exits 0, or one line per finding ("FILE: S via base64 > gzip") and exits 1.

Each file is searched as bytes, and so is every blob that can be unwrapped from it, to a depth
of four: JSON string values (which undoes \\u and \\/ escapes), runs of base64 (standard and
URL-safe alphabets), and gzip, zlib, raw deflate, brotli and zstd streams (a gzip or zlib stream
is tried at every offset where its header appears; raw deflate, brotli and zstd on whole blobs).
Every unwrapping is capped at 64 MiB, so a hostile file cannot make the check itself explode.
"""
import base64
import binascii
import json
import re
import subprocess
import sys
import zlib

LIMIT = 64 << 20
BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")


def inflate(data: bytes, wbits: int):
    try:
        return zlib.decompressobj(wbits).decompress(data, LIMIT) or None
    except zlib.error:
        return None


def unbrotli(data: bytes):
    try:
        import brotli  # Debian's python3-brotli (Scripts/deps.sh --test)
    except ImportError:
        return None
    try:
        return brotli.decompress(data)[:LIMIT] or None
    except brotli.error:
        return None


def unzstd(data: bytes):
    if not data.startswith(b"\x28\xb5\x2f\xfd"):
        return None
    done = subprocess.run(["zstd", "-q", "-d", "-c"], input=data, capture_output=True)
    return done.stdout[:LIMIT] or None


def json_strings(value):
    if isinstance(value, str):
        yield value.encode("utf-8", "surrogatepass")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from json_strings(key)
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)


def json_documents(data: bytes):
    """The whole blob as JSON, else each line as JSON (JSON lines output)."""
    for text in [data] + data.split(b"\n"):
        try:
            yield json.loads(text)
        except (ValueError, UnicodeDecodeError):
            continue


def unwrapped(data: bytes):
    """(how, blob) for every blob one step inside `data`."""
    for document in json_documents(data):
        for string in json_strings(document):
            yield "json", string
    for match in BASE64_RUN.finditer(data):
        run = match.group()
        for name, decode in (("base64", base64.b64decode), ("base64url", base64.urlsafe_b64decode)):
            try:
                yield name, decode(run + b"=" * (-len(run) % 4))
            except (binascii.Error, ValueError):
                pass
    for offset in [m.start() for m in re.finditer(b"\x1f\x8b", data)]:
        yield "gzip", inflate(data[offset:], 16 + zlib.MAX_WBITS)
    for offset in [m.start() for m in re.finditer(b"\x78[\x01\x5e\x9c\xda]", data)]:
        yield "zlib", inflate(data[offset:], zlib.MAX_WBITS)
    yield "raw deflate", inflate(data, -zlib.MAX_WBITS)
    yield "brotli", unbrotli(data)
    yield "zstd", unzstd(data)


def search(data: bytes, secrets, path, depth, seen, findings):
    if data is None or len(data) < 4 or data in seen:
        return
    seen.add(data)
    for secret in secrets:
        if secret in data:
            findings.append(f"{' > '.join(path) or 'as is'}: {secret.decode()}")
    if depth < 4:
        for how, blob in unwrapped(data):
            search(blob, secrets, path + [how], depth + 1, seen, findings)


def main():
    secrets, files, args = [], [], sys.argv[1:]
    while args:
        argument = args.pop(0)
        if argument == "--secret":
            secrets.append(args.pop(0).encode())
        else:
            files.append(argument)
    if not secrets:
        sys.exit("usage: leak_check.py --secret S [--secret S2 ...] FILE...")
    found = []
    for name in files:
        with open(name, "rb") as handle:
            findings = []
            search(handle.read(), secrets, [], 0, set(), findings)
            found += [f"{name}: {finding}" for finding in sorted(set(findings))]
    print("\n".join(found) if found else "clean")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
