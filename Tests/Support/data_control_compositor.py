#!/usr/bin/python3
"""A minimal Wayland compositor that offers only what data-control clients need.

    data_control_compositor.py SOCKET --log LOGFILE [--ext] [--wlr] [--wlr-version N] [--late-sends]
                               [--trickle SECONDS] [--eager-reads]

No Debian 12 compositor offers ext_data_control_manager_v1 (sway 1.7 offers only
zwlr_data_control_manager_v1), so the tests run clients against this one. Written from the
protocol specifications (wayland.xml, ext-data-control-v1.xml version 1,
wlr-data-control-unstable-v1.xml version 2); standard library only.

SOCKET is the path it listens on (relative: under $XDG_RUNTIME_DIR). It is bound under a
temporary name and renamed into place once listening, so a test that sees the path can connect.
Globals: one wl_seat (version 7: capabilities 0 and the name "seat0" as a real compositor
sends them), and the data-control managers chosen by --ext and --wlr (either, both or none).

LOGFILE gets one line per event a test may check:
    client PID NAME                     a client connected (pid from SO_PEERCRED, name from /proc/PID/comm)
    bind INTERFACE vVERSION by NAME PID  a client bound a global
    error INTERFACE CODE TEXT by NAME PID
                                        a client made a protocol error: it gets wl_display.error and is closed
    probe LABEL SOURCE STATUS LENGTH HEX
                                        --late-sends, on SIGUSR1: what the reader of a `send` to SOURCE
                                        got (STATUS eof, or timeout after 5 s; HEX - when empty)

--late-sends plays a compositor that sends events to a data source before it reads the client's
destroy of it: the delete_id of a destroyed source is held back until SIGUSR1, which sends
`send` (text/plain;charset=utf-8, a pipe of its own) first to the oldest source that was ever the
CLIPBOARD selection (LABEL replaced; destroyed by now if its owner replaced it), then to the
current one (LABEL current), reads each pipe and logs it, then sends the held delete_ids.
--trickle plays a selection owner that sends its content too slowly: a reader's `receive` is not
forwarded to the source; the compositor writes `{` into the reader's pipe every 0.3 s for SECONDS,
then closes it (a reader without an overall deadline waits all that time, then gets the bytes).

--eager-reads plays a clipboard manager that reads each new CLIPBOARD selection at once: right
after the reply to the next wl_display.sync of the client that set it (the round trip by which a
client confirms its copy), in the same flush, it sends `send` (text/plain;charset=utf-8) to the
new source, so the request reaches the client in the same socket read as that reply. A thread
reads the pipe and logs `eager SOURCE STATUS LENGTH HEX` (STATUS eof, or timeout after 5 s).

Exits on SIGTERM (or SIGINT), closing every client and removing its socket.
"""
import argparse
import os
import select
import selectors
import signal
import socket
import struct
import sys
import threading
import time

SERVER_ID_MIN = 0xFF000000
DISPLAY_ERROR_INVALID_OBJECT, DISPLAY_ERROR_INVALID_METHOD = 0, 1
SEAT_VERSION = 7
EXT, WLR = "ext_data_control", "zwlr_data_control"
CLIPBOARD, PRIMARY = "selection", "primary"


class ProtocolError(Exception):
    """A client broke the protocol: wl_display.error(object, code, message), then the end."""

    def __init__(self, object_id, code, message):
        super().__init__(message)
        self.object_id, self.code, self.message = object_id, code, message


class Args:
    """A request's arguments, read in order as its signature says."""

    def __init__(self, client, object_id, payload):
        self.client, self.object_id, self.payload, self.pos = client, object_id, payload, 0

    def uint(self):
        if self.pos + 4 > len(self.payload):
            raise ProtocolError(self.object_id, DISPLAY_ERROR_INVALID_METHOD, "message too short")
        (word,) = struct.unpack_from("=I", self.payload, self.pos)
        self.pos += 4
        return word

    def string(self):
        n = self.uint()
        if n == 0:
            return None
        room = (n + 3) & ~3
        if self.pos + room > len(self.payload) or self.payload[self.pos + n - 1] != 0:
            raise ProtocolError(self.object_id, DISPLAY_ERROR_INVALID_METHOD, "malformed string")
        text = bytes(self.payload[self.pos : self.pos + n - 1]).decode("utf-8", "replace")
        self.pos += room
        return text

    def fd(self):
        if not self.client.in_fds:
            raise ProtocolError(self.object_id, DISPLAY_ERROR_INVALID_METHOD, "no file descriptor sent")
        return self.client.in_fds.pop(0)


def encode(object_id, opcode, *args):
    """One event: each argument an int (uint/object/new_id word) or a str (string)."""
    body = b""
    for arg in args:
        if isinstance(arg, str):
            raw = arg.encode() + b"\0"
            body += struct.pack("=I", len(raw)) + raw + b"\0" * (-len(raw) % 4)
        else:
            body += struct.pack("=I", arg)
    return struct.pack("=II", object_id, (8 + len(body)) << 16 | opcode) + body


class Obj:
    """A protocol object of one client: its interface (with the family for data-control)."""

    def __init__(self, kind, version=1, family=None):
        self.kind, self.version, self.family = kind, version, family
        self.mimes, self.used, self.source = [], False, None  # sources: types; offers: their source


class Client:
    def __init__(self, sock):
        self.sock, self.objects, self.inbuf, self.in_fds = sock, {1: Obj("display")}, bytearray(), []
        self.out, self.out_fds, self.next_server_id, self.closed = bytearray(), [], SERVER_ID_MIN, False
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        self.pid = struct.unpack("3i", creds)[0]
        try:
            with open(f"/proc/{self.pid}/comm") as comm:
                self.name = comm.read().strip() or "?"
        except OSError:
            self.name = "?"

    def send(self, object_id, opcode, *args, fd=None):
        if self.closed:
            if fd is not None:
                os.close(fd)
            return
        self.out += encode(object_id, opcode, *args)
        if fd is not None:
            self.out_fds.append(fd)  # travels with the first byte still queued: never after its message

    def flush(self):
        while self.out and not self.closed:
            try:
                n = socket.send_fds(self.sock, [bytes(self.out)], self.out_fds) if self.out_fds else self.sock.send(self.out)
            except BlockingIOError:
                return
            except OSError:
                self.closed = True
                return
            for fd in self.out_fds:
                os.close(fd)
            self.out_fds = []
            del self.out[:n]

    def new_server_id(self):
        self.next_server_id += 1
        return self.next_server_id - 1


class Compositor:
    def __init__(self, options):
        self.log_file = open(options.log, "a", buffering=1)
        self.globals = {1: ("wl_seat", SEAT_VERSION)}
        if options.ext:
            self.globals[2] = (EXT + "_manager_v1", 1)
        if options.wlr:
            self.globals[3] = (WLR + "_manager_v1", options.wlr_version)
        self.clients, self.selection = [], {CLIPBOARD: None, PRIMARY: None}  # (client, source id)
        self.selector = selectors.DefaultSelector()
        self.late_sends, self.held, self.history, self.probe_wanted = options.late_sends, [], [], False
        self.trickle = options.trickle
        self.eager_reads, self.eager_pending = options.eager_reads, {}  # client -> source set last

    def log(self, line):
        self.log_file.write(line + "\n")

    # -- dispatch --------------------------------------------------------------------------

    def request(self, client, object_id, opcode, args):
        obj = client.objects.get(object_id)
        if obj is None:
            raise ProtocolError(1, DISPLAY_ERROR_INVALID_OBJECT, f"invalid object {object_id}")
        handler = getattr(self, f"on_{obj.kind}", None)
        if handler is None or not handler(client, object_id, obj, opcode, args):
            raise ProtocolError(object_id, DISPLAY_ERROR_INVALID_METHOD, f"invalid method {opcode} on {obj.kind}")

    def new_object(self, client, new_id, obj):
        if new_id in client.objects or new_id == 0 or new_id >= SERVER_ID_MIN:
            raise ProtocolError(1, DISPLAY_ERROR_INVALID_OBJECT, f"invalid new id {new_id}")
        client.objects[new_id] = obj

    def destroy(self, client, object_id):
        gone = client.objects.pop(object_id, None)
        if self.late_sends and gone is not None and gone.kind == "source":
            self.held.append((client, object_id))  # as if its destroy were not read yet
        elif object_id < SERVER_ID_MIN:
            client.send(1, 1, object_id)  # wl_display.delete_id

    def on_display(self, client, _oid, _obj, opcode, args):
        new_id = args.uint()
        if opcode == 0:  # sync: the callback is done at once, then gone
            self.new_object(client, new_id, Obj("callback"))
            client.send(new_id, 0, 0)
            self.destroy(client, new_id)
            source = self.eager_pending.pop(client, None)
            if source is not None and source in client.objects:
                self.eager_read(client, source)
        elif opcode == 1:  # get_registry
            self.new_object(client, new_id, Obj("registry"))
            for name, (interface, version) in sorted(self.globals.items()):
                client.send(new_id, 0, name, interface, version)
        return opcode in (0, 1)

    def on_registry(self, client, _oid, _obj, opcode, args):
        if opcode != 0:
            return False
        name, interface, version, new_id = args.uint(), args.string(), args.uint(), args.uint()
        known = self.globals.get(name)
        if known is None or known[0] != interface or not 1 <= version <= known[1]:
            raise ProtocolError(1, DISPLAY_ERROR_INVALID_OBJECT, f"invalid global {interface} ({name}) v{version}")
        self.log(f"bind {interface} v{version} by {client.name} {client.pid}")
        if interface == "wl_seat":
            self.new_object(client, new_id, Obj("seat", version))
            client.send(new_id, 0, 0)  # capabilities: no pointer, keyboard or touch
            if version >= 2:
                client.send(new_id, 1, "seat0")
        else:
            self.new_object(client, new_id, Obj("manager", version, interface.rsplit("_manager_v1", 1)[0]))
        return True

    def on_seat(self, client, oid, obj, opcode, _args):
        if opcode == 3 and obj.version >= 5:  # release
            self.destroy(client, oid)
            return True
        return False  # no capabilities: no pointer, keyboard or touch to get

    def on_manager(self, client, oid, obj, opcode, args):
        if opcode == 0:  # create_data_source
            self.new_object(client, args.uint(), Obj("source", obj.version, obj.family))
        elif opcode == 1:  # get_data_device
            new_id, seat = args.uint(), args.uint()
            if client.objects.get(seat, Obj("")).kind != "seat":
                raise ProtocolError(oid, DISPLAY_ERROR_INVALID_OBJECT, f"object {seat} is not a wl_seat")
            self.new_object(client, new_id, Obj("device", obj.version, obj.family))
            self.announce(client, new_id, CLIPBOARD)
            if self.has_primary(client.objects[new_id]):
                self.announce(client, new_id, PRIMARY)
        elif opcode == 2:  # destroy
            self.destroy(client, oid)
        return opcode in (0, 1, 2)

    def has_primary(self, device):
        return device.family == EXT or device.version >= 2

    def on_device(self, client, oid, obj, opcode, args):
        if opcode == 1:  # destroy
            self.destroy(client, oid)
            return True
        if opcode not in (0, 2) or (opcode == 2 and not self.has_primary(obj)):
            return False
        source_id = args.uint()
        if source_id != 0:
            source = client.objects.get(source_id)
            if source is None or source.kind != "source" or source.family != obj.family:
                raise ProtocolError(oid, DISPLAY_ERROR_INVALID_OBJECT, f"object {source_id} is not a data source")
            if source.used:
                raise ProtocolError(oid, 1, "source given to set_selection was used before")  # used_source
            source.used = True
        self.set_selection(PRIMARY if opcode == 2 else CLIPBOARD, (client, source_id) if source_id else None)
        if self.eager_reads and opcode == 0 and source_id:
            self.eager_pending[client] = source_id
        return True

    def on_source(self, client, oid, obj, opcode, args):
        if opcode == 0:  # offer
            mime = args.string()
            if obj.used:
                raise ProtocolError(oid, 1, "offer after the source was used")  # invalid_offer
            obj.mimes.append(mime or "")
        elif opcode == 1:  # destroy
            self.drop_source(client, oid)
            self.destroy(client, oid)
        return opcode in (0, 1)

    def on_offer(self, client, oid, obj, opcode, args):
        if opcode == 0:  # receive(mime, fd): forwarded to the source as send(mime, fd)
            mime, fd = args.string(), args.fd()
            owner = obj.source
            if self.trickle is not None:
                threading.Thread(target=trickle_into, args=(fd, self.trickle), daemon=True).start()
            elif owner is not None and owner[1] in owner[0].objects and not owner[0].closed:
                owner[0].send(owner[1], 0, mime or "", fd=fd)
            else:
                os.close(fd)  # the source is gone: the reader sees end of file at once
        elif opcode == 1:  # destroy
            self.destroy(client, oid)
        return opcode in (0, 1)

    # -- selections ------------------------------------------------------------------------

    def set_selection(self, which, owner):
        old = self.selection[which]
        self.selection[which] = owner
        if which == CLIPBOARD and owner is not None:
            self.history.append(owner)
        if old is not None and old != owner and old[1] in old[0].objects:
            old[0].send(old[1], 1)  # cancelled
        for client in self.clients:
            for device_id, device in list(client.objects.items()):
                if device.kind == "device" and (which == CLIPBOARD or self.has_primary(device)):
                    self.announce(client, device_id, which)

    def announce(self, client, device_id, which):
        """device.data_offer + offer.offer for each type, then device.selection/primary_selection."""
        owner = self.selection[which]
        offer_id = 0
        if owner is not None:
            offer_id = client.new_server_id()
            device = client.objects[device_id]
            offer = Obj("offer", device.version, device.family)
            offer.source = owner
            client.objects[offer_id] = offer
            client.send(device_id, 0, offer_id)
            for mime in owner[0].objects[owner[1]].mimes:
                client.send(offer_id, 0, mime)
        client.send(device_id, 3 if which == PRIMARY else 1, offer_id)

    def drop_source(self, client, source_id):
        for which, owner in self.selection.items():
            if owner == (client, source_id):
                self.set_selection(which, None)

    def eager_read(self, client, source):
        """--eager-reads: `send` to the source just set, queued behind the sync's reply."""
        read_end, write_end = os.pipe()
        client.send(source, 0, "text/plain;charset=utf-8", fd=write_end)

        def read_and_log():
            data, status = read_to_end(read_end, 5)
            self.log(f"eager {source} {status} {len(data)} {data.hex() or '-'}")

        threading.Thread(target=read_and_log, daemon=True).start()

    def probe(self):
        """--late-sends, on SIGUSR1: `send` to the oldest CLIPBOARD source, then to the current one."""
        readers = []
        for label, owner in (("replaced", self.history[0] if self.history else None),
                             ("current", self.selection[CLIPBOARD])):
            if owner is None:
                self.log(f"probe {label} none")
                continue
            read_end, write_end = os.pipe()
            owner[0].send(owner[1], 0, "text/plain;charset=utf-8", fd=write_end)
            readers.append((label, owner[1], read_end))
        for client in list(self.clients):
            client.flush()
        for label, source, read_end in readers:
            data, status = read_to_end(read_end, 5)
            self.log(f"probe {label} {source} {status} {len(data)} {data.hex() or '-'}")
        for client, source in self.held:
            client.send(1, 1, source)  # wl_display.delete_id, at last
        self.held = []

    # -- connections -----------------------------------------------------------------------

    def accept(self, listener):
        try:
            sock, _ = listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        client = Client(sock)
        self.clients.append(client)
        self.selector.register(sock, selectors.EVENT_READ, client)
        self.log(f"client {client.pid} {client.name}")

    def readable(self, client):
        try:
            data, fds, _flags, _addr = socket.recv_fds(client.sock, 65536, 64)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        client.in_fds += fds
        if not data:
            self.disconnect(client)
            return
        client.inbuf += data
        try:
            self.dispatch(client)
        except ProtocolError as error:
            kind = client.objects.get(error.object_id, Obj("unknown")).kind
            self.log(f"error {kind} {error.code} {error.message} by {client.name} {client.pid}")
            client.send(1, 0, error.object_id, error.code, error.message)
            client.sock.setblocking(True)
            client.sock.settimeout(1)
            client.flush()
            self.disconnect(client)

    def dispatch(self, client):
        while len(client.inbuf) >= 8:
            object_id, word = struct.unpack_from("=II", client.inbuf)
            size = word >> 16
            if size < 8 or size % 4:
                raise ProtocolError(1, DISPLAY_ERROR_INVALID_METHOD, f"bad message size {size}")
            if len(client.inbuf) < size:
                return
            payload = bytes(client.inbuf[8:size])
            del client.inbuf[:size]
            self.request(client, object_id, word & 0xFFFF, Args(client, object_id, payload))

    def disconnect(self, client):
        if client in self.clients:
            self.clients.remove(client)
            self.selector.unregister(client.sock)
        client.closed = True
        for fd in client.in_fds + client.out_fds:
            os.close(fd)
        client.in_fds, client.out_fds = [], []
        client.sock.close()
        for which, owner in self.selection.items():
            if owner is not None and owner[0] is client:
                self.set_selection(which, None)

    def run(self, path):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for stale in (path, path + ".new"):
            if os.path.exists(stale):
                os.unlink(stale)
        listener.bind(path + ".new")
        listener.listen(64)
        os.rename(path + ".new", path)  # the path appears only once connecting works
        listener.setblocking(False)
        self.selector.register(listener, selectors.EVENT_READ, None)
        wakeup_read, wakeup_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wakeup_write)  # a signal wakes the loop at once
        self.selector.register(wakeup_read, selectors.EVENT_READ, "wakeup")
        try:
            while True:
                for client in list(self.clients):
                    client.flush()  # what the last requests queued, for any client
                    events = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.out else 0)
                    self.selector.modify(client.sock, events, client)
                for key, mask in self.selector.select(timeout=1):
                    if key.data == "wakeup":
                        os.read(key.fd, 64)
                        if self.probe_wanted:
                            self.probe_wanted = False
                            self.probe()
                    elif key.data is None:
                        self.accept(listener)
                    elif mask & selectors.EVENT_READ:
                        self.readable(key.data)
        finally:
            for client in list(self.clients):
                self.disconnect(client)
            os.unlink(path)
            self.log("exit")


def read_to_end(fd, seconds):
    """The bytes a pipe gives until its end (status eof) or for `seconds` (status timeout); closes it."""
    data, deadline = b"", time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return data, "timeout"
            chunk = os.read(fd, 65536)
            if not chunk:
                return data, "eof"
            data += chunk
    finally:
        os.close(fd)


def trickle_into(fd, seconds):
    """--trickle: one `{` into the reader's pipe every 0.3 s for `seconds`, then the end."""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            os.write(fd, b"{")
            time.sleep(0.3)
    except OSError:
        pass  # the reader gave up and closed its end
    finally:
        os.close(fd)


def main():
    parser = argparse.ArgumentParser(description="a minimal data-control Wayland compositor for tests")
    parser.add_argument("socket")
    parser.add_argument("--log", required=True)
    parser.add_argument("--ext", action="store_true", help="offer ext_data_control_manager_v1 version 1")
    parser.add_argument("--wlr", action="store_true", help="offer zwlr_data_control_manager_v1")
    parser.add_argument("--wlr-version", type=int, default=2)
    parser.add_argument("--late-sends", action="store_true", help="hold sources' delete_id; SIGUSR1 probes (see above)")
    parser.add_argument("--eager-reads", action="store_true", help="read each new selection at once (see above)")
    parser.add_argument("--trickle", type=float, help="answer every receive with a byte per 0.3 s for this long")
    options = parser.parse_args()
    path = options.socket
    if not path.startswith("/"):
        path = os.path.join(os.environ["XDG_RUNTIME_DIR"], path)

    def stop(_signum, _frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    compositor = Compositor(options)

    def want_probe(_signum, _frame):
        compositor.probe_wanted = True

    signal.signal(signal.SIGUSR1, want_probe if options.late_sends else signal.SIG_IGN)
    compositor.run(path)


if __name__ == "__main__":
    sys.exit(main())
