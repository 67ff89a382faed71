#!/usr/bin/python3
"""A small HTTPS server for the proxy tests (ProxyTests): Python's ssl with the certificate and key
the test made with openssl.

    tls_server.py CERT KEY [--lifetime SECONDS]

Prints the port it listens on (127.0.0.1) as its first line, then serves:
    POST /v1/login   200 {"user": {"id": "usr_<username>"}, "token": "tok-proxy-canary-5d1e"}
    GET /big?bytes=N 200 with N bytes of "x" (a response over the recording cap)
    GET /stall       sends the headers and a few bytes, then never finishes
    GET /latin1      a header whose value is not UTF-8 (Latin-1 "café")
    GET /control     a header whose value holds a control character (0x01)
    anything else    200 {"path": PATH}
It exits on its own after --lifetime seconds (default 120), so a crashed test leaves nothing.
"""
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TOKEN = "tok-proxy-canary-5d1e"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, body, content_type="application/json"):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length)
        if urlsplit(self.path).path == "/v1/login":
            name = json.loads(data or b"{}").get("username", "anon")
            body = json.dumps({"user": {"id": f"usr_{name}", "name": name.title()}, "token": TOKEN})
            return self.answer(body.encode())
        self.answer(json.dumps({"path": self.path}).encode())

    def do_GET(self):
        parts = urlsplit(self.path)
        if parts.path == "/big":
            size = int(parse_qs(parts.query).get("bytes", ["0"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b"x" * (1 << 20)
            while size > 0:
                self.wfile.write(chunk[:size])
                size -= len(chunk)
            return
        if parts.path in ("/latin1", "/control"):
            self.send_response(200)
            # http.server writes headers in Latin-1, as given
            self.send_header("X-Place", "caf\u00e9" if parts.path == "/latin1" else "a\x01b")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
            return
        if parts.path == "/stall":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"partial")
            self.wfile.flush()
            time.sleep(3600)
            return
        self.answer(json.dumps({"path": self.path}).encode())


def main():
    cert, key = sys.argv[1], sys.argv[2]
    lifetime = float(sys.argv[sys.argv.index("--lifetime") + 1]) if "--lifetime" in sys.argv else 120
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    threading.Timer(lifetime, lambda: __import__("os")._exit(0)).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
