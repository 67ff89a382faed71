#!/usr/bin/python3
"""A websocket through an HTTP proxy, for the proxy tests (ProxyTests): a one-connection
websocket echo server on 127.0.0.1 and a client that reaches it through the proxy.

    ws_check.py PROXY_PORT

The client sends a text frame "hello" and expects it back; prints "echoed hello" and exits 0, or
says what went wrong and exits 1. Every socket has a 20 s timeout.
"""
import base64
import hashlib
import os
import socket
import struct
import sys
import threading

MAGIC = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(1)
        if not chunk:
            raise SystemExit("connection closed during the handshake")
        data += chunk
    return data.decode("latin-1")


def read_frame(sock):
    def exactly(count):
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            if not chunk:
                raise SystemExit("connection closed in a frame")
            data += chunk
        return data

    first, second = exactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", exactly(2))[0]
    mask = exactly(4) if second & 0x80 else None
    payload = exactly(length)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return first & 0x0F, payload


def frame(payload, masked):
    header = bytes([0x81, (0x80 if masked else 0) | len(payload)])
    if not masked:
        return header + payload
    mask = os.urandom(4)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def serve(listener):
    conn, _ = listener.accept()
    conn.settimeout(20)
    head = read_head(conn)
    key = next(line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.lower().startswith("sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1((key + MAGIC).encode()).digest()).decode()
    conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
    _, payload = read_frame(conn)
    conn.sendall(frame(payload, masked=False))
    conn.close()


def main():
    proxy_port = int(sys.argv[1])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(20)
    port = listener.getsockname()[1]
    threading.Thread(target=serve, args=(listener,), daemon=True).start()
    client = socket.create_connection(("127.0.0.1", proxy_port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    client.sendall((f"GET http://127.0.0.1:{port}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = read_head(client)
    if " 101 " not in head.split("\r\n")[0]:
        print("no 101: " + head.split("\r\n")[0])
        return 1
    client.sendall(frame(b"hello", masked=True))
    opcode, payload = read_frame(client)
    if opcode != 1 or payload != b"hello":
        print(f"unexpected frame {opcode} {payload!r}")
        return 1
    print("echoed hello")
    return 0


if __name__ == "__main__":
    sys.exit(main())
