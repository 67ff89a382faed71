#!/usr/bin/env python3
"""An HTTP/1.1 server on 127.0.0.1 that records every request it receives, byte for byte.

    echo_server.py LOGFILE [--lifetime SECONDS]

Prints the port it listens on (a free one, chosen by the kernel) as the first line of stdout,
then serves until it is killed or its lifetime (default 120 s) is over, so a test that dies
cannot leave it running for long.

Every request is appended to LOGFILE as one JSON line:
    {"method", "target", "headers": [[name_b64, value_b64], ...], "body_b64"}
Header names and values are the raw bytes from the wire (base64), so tests can compare them
with what was recorded without any decoding guesswork.

What it answers depends on the path:
    /status/NNN      status NNN, a small JSON body
    /redirect?to=P   302 to P
    /bytes           200, a binary body with NUL bytes
    /chunked         200, a chunked body
    /v1/login        POST: 200 {"user": {"id": "usr_<username>", "name", "email"}, "token":
                     LOGIN_TOKEN}, the username from the JSON (or form) body, "lena" without
                     one; a password "wrong" gets 401 {"error": "bad credentials"}
    /encoded/NAME    200, a JSON body holding SERVER_SECRET (an access_token) and the request's
                     Authorization value, sent with a Content-Encoding (see ENCODINGS): gzip,
                     x-gzip, deflate (zlib), raw-deflate (labelled deflate, as browsers accept),
                     br, gzip-br (gzip then br: "gzip, br"), zstd (the zstd CLI), corrupt-gzip
                     (truncated), unknown (plain JSON labelled x-unknown)
    /gated/NAME      200, the request echoed back as JSON, but only once the file LOGFILE.gate-NAME
                     exists (or after 30 s): the test decides when it answers; each answer is
                     then appended to LOGFILE.answered as the line "NAME released" (or "NAME
                     unreleased" after the 30 s)
    anything else    200, the request echoed back as JSON
"""
import base64
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
SERVER_SECRET = "srv-canary-5e1d9b-body"
LOGIN_TOKEN = "tok-login-canary-83c1f0"


def raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-15)
    return compressor.compress(data) + compressor.flush()


def brotli_compress(data: bytes) -> bytes:
    import brotli  # Debian's python3-brotli; imported here so the other paths never need it

    return brotli.compress(data)


def zstd_compress(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout


# name: (Content-Encoding value, how the body is made from the plain JSON)
ENCODINGS = {
    "gzip": ("gzip", gzip.compress),
    "x-gzip": ("x-gzip", gzip.compress),
    "deflate": ("deflate", zlib.compress),
    "raw-deflate": ("deflate", raw_deflate),
    "br": ("br", brotli_compress),
    "gzip-br": ("gzip, br", lambda data: brotli_compress(gzip.compress(data))),
    "zstd": ("zstd", zstd_compress),
    "corrupt-gzip": ("gzip", lambda data: gzip.compress(data)[:-12]),
    "unknown": ("x-unknown", lambda data: data),
}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "userdebug-echo/1"

    def log_message(self, format, *args):  # keep stderr quiet
        pass

    def read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def handle_any(self):
        body = self.read_body()
        # raw_items keeps order, case and repeats; http.client decoded the bytes as Latin-1.
        headers = [[b64(k.encode("latin-1")), b64(v.encode("latin-1"))] for k, v in self.headers.raw_items()]
        record = {"method": self.command, "target": self.path, "headers": headers, "body_b64": b64(body)}
        with LOCK, open(self.server.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        parts = urlsplit(self.path)
        if parts.path.startswith("/status/"):
            self.answer(int(parts.path.split("/")[2]), b'{"status":"as asked"}', "application/json")
        elif parts.path == "/redirect":
            target = parse_qs(parts.query).get("to", ["/"])[0]
            self.answer(302, b"", "text/plain", extra=[("Location", target)])
        elif parts.path == "/bytes":
            self.answer(200, bytes([0, 1, 2, 255, 0, 10, 13, 39]), "application/octet-stream")
        elif parts.path.startswith("/encoded/") and parts.path[len("/encoded/"):] in ENCODINGS:
            coding, encode = ENCODINGS[parts.path[len("/encoded/"):]]
            plain = {"access_token": SERVER_SECRET, "user": "usr_42", "seen": self.headers.get("Authorization", "")}
            body = encode(json.dumps(plain).encode())
            self.answer(200, body, "application/json", extra=[("Content-Encoding", coding)])
        elif parts.path == "/v1/login" and self.command == "POST":
            self.login(body)
        elif parts.path.startswith("/gated/"):
            name = parts.path[len("/gated/"):]
            gate = self.server.log_path + ".gate-" + name
            deadline = time.monotonic() + 30
            while not os.path.exists(gate) and time.monotonic() < deadline:
                time.sleep(0.02)
            with LOCK, open(self.server.log_path + ".answered", "a", encoding="utf-8") as log:
                log.write("%s %s\n" % (name, "released" if os.path.exists(gate) else "unreleased"))
            self.answer(200, json.dumps(record).encode(), "application/json")
        elif parts.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (b"hello ", b"chunked ", b"world"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            echo = json.dumps(record).encode()
            self.answer(200, echo, "application/json", extra=[("Set-Cookie", "sid=abc123; Path=/")])

    def login(self, body: bytes):
        try:
            credentials = json.loads(body or b"{}")
        except ValueError:
            credentials = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        if credentials.get("password") == "wrong":
            self.answer(401, b'{"error": "bad credentials"}', "application/json")
            return
        username = credentials.get("username") or "lena"
        user = {"id": "usr_" + username, "name": username.title() + " Login", "email": username + "@example.test"}
        answer = {"user": user, "token": LOGIN_TOKEN, "expires_in": 3600}
        self.answer(200, json.dumps(answer).encode(), "application/json", extra=[("Cache-Control", "no-store")])

    def answer(self, status, body, content_type, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client hanging up is not news
        pass


def main():
    # Pipes the test runner had open when it started us (other tests' stdout, running in
    # parallel) must not stay open here, or those tests wait for our exit to see end of file.
    os.closerange(3, 4096)
    # The test runner's threads block signals, and a spawned child inherits the mask: without
    # this, the SIGTERM a test sends to stop us would wait until our lifetime is over.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    log_path = sys.argv[1]
    lifetime = 120.0
    if "--lifetime" in sys.argv:
        lifetime = float(sys.argv[sys.argv.index("--lifetime") + 1])
    server = Server(("127.0.0.1", 0), Handler)
    server.log_path = log_path
    open(log_path, "a").close()
    print(server.server_address[1], flush=True)
    threading.Timer(lifetime, lambda: os._exit(0)).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
