#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target (Tests/Fuzz/<target>/seed-*) from the fixtures of
the repository: config/*.json, the HAR entries and the curl trace of the unit tests, and a real
SQLite store in WAL mode. Run once; the seeds are committed. Scripts/fuzz.sh reads them."""
import os
import re
import shutil
import sqlite3
import struct
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "Tests", "Fuzz")


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def swift_raw_string(path, name):
    """The text of `let NAME = #\"\"\" … \"\"\"#` in a test source, its indentation removed."""
    text = read(*path).decode()
    match = re.search(name + r' = #?"""\n(.*?)\n( *)"""', text, re.S)
    body, indent = match.group(1), match.group(2)
    return "\n".join(line[len(indent):] for line in body.split("\n")).encode()


def write(target, name, data):
    os.makedirs(os.path.join(FUZZ, target), exist_ok=True)
    with open(os.path.join(FUZZ, target, "seed-" + name), "wb") as f:
        f.write(data)


config = read("config", "config.json")
session = read("config", "sample-session.json")
responses = read("config", "sample-responses.json")
har_tests = ("Tests", "UserDebugKitTests", "DocumentHARTests.swift")
chrome = swift_raw_string(har_tests, "chromeEntry")
firefox = swift_raw_string(har_tests, "firefoxEntry")
har = (b'{"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, '
       b'"pages": [], "entries": [' + chrome + b", " + firefox + b"]}}")
trace = swift_raw_string(("Tests", "UserDebugKitTests", "CurlCommandTests.swift"), "static let trace")

for name, data in [("config", config), ("session", session), ("responses", responses), ("har", har),
                   ("escapes", rb'{"a":"\u00e9\ud83d\ude00\n\"","b":[1,-0.5e+10,true,false,null],"c":{}}'),
                   ("comment", b'// a comment\n{"a": /* inline */ 1}\n'), ("deep", b"[" * 40 + b"]" * 40)]:
    write("json", name, data)
write("session", "sample", session)
write("session", "bare-user", b'{"id": 42, "displayName": "Zo\xc3\xab", "plan": "pro"}')
write("session", "dates", b'{"name": "s", "user": {"uid": "u"}, "createdAt": "2024-03-01T09:15:02.123Z", '
      b'"updatedAt": "2024-03-01T10:15:02+01:00", "env": null}')
write("response", "sample", responses)
write("response", "har", har)
write("response", "chrome-entry", chrome)
write("config", "config", config)
write("config", "small", b'{"output": {"defaultTarget": "stdout"}, "redaction": {"extraKeys": ["pin"]}}')
for piece in (1, 7, 200):
    write("har", "pieces-%d" % piece, bytes([piece - 1]) + har)
write("har", "empty-entries", bytes([3]) + b'{"log": {"version": "1.2", "entries": []}}')
write("curltrace", "trace", bytes([6]) + trace)
write("curltrace", "trace-whole", bytes([255]) + trace)
for name, argv in [("session-set", ["session", "set", "--id", "usr_1", "--token", "abc", "--name=staging"]),
                   ("response-list", ["response", "list", "--tag", "x", "--limit=5", "-q"]),
                   ("copy-id", ["copy-id", "--to", "clipboard"]), ("help", ["-q", "help", "session"]),
                   ("capture", ["capture", "--tag", "t", "--", "curl", "-v", "http://x/"]),
                   ("short", ["print-response", "-hq", "-5", "--reveal"])]:
    write("arguments", name, b"\0".join(a.encode() for a in argv))

# A real store in WAL mode with committed frames, read while a connection holds it open.
directory = tempfile.mkdtemp()
try:
    db = os.path.join(directory, "s.sqlite3")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE t(x)")
    for i in range(3):
        conn.execute("INSERT INTO t VALUES (?)", (i,))
        conn.commit()
    database, wal, shm = read(db), read(db + "-wal"), read(db + "-shm")
    conn.close()
finally:
    shutil.rmtree(directory)
page_size = struct.unpack(">I", wal[8:12])[0]
frames = (len(wal) - 32) // (24 + page_size)
frame_headers = b"".join(wal[32 + i * (24 + page_size):56 + i * (24 + page_size)] for i in range(min(frames, 8)))
body = b'{"name": "fuzz", "identifier": "usr_1", "fields": {"plan": "pro"}, "createdAtMs": 1, "updatedAtMs": 2}'
for name, flags, extra in [("wal-published", 0x06, 0), ("wal-unpublished-tail", 0x06, 1), ("no-wal", 0x00, 0),
                           ("no-shm", 0x02, 0), ("short-db", 0x31, 0)]:
    shape = bytes([frames + extra, 0, 0])
    write("walheader", name, bytes([flags]) + database[:32] + wal[:32] + shape + frame_headers
          + (frame_headers[:24] if extra else b"") + shm[:48] + body)
