#!/usr/bin/env python3
"""Wayland copies by time-until-readable (issue 26, item 4). A benchmark: it asserts nothing.

    readable_bench.py USERDEBUG ROUNDS [--reader listen|poll] [--settle SECONDS] [--unchanged]

Runs against the compositor named by WAYLAND_DISPLAY / XDG_RUNTIME_DIR (which must offer
zwlr_data_control_manager_v1), with USERDEBUG_HOME holding a current session.

`wl-copy` returns once it has forked its serving child, before that child has set the selection;
`userdebug copy-id` returns after the compositor confirmed its source. Their command times do not
compare what a user feels, so each round sets a value no reader has seen and measures, from the
moment the copy command is started, when a reader first gets that value:

  wl-copy VALUE                                   (the value as its argument)
  userdebug copy-id --to clipboard -q             (after `userdebug session set --id VALUE`, untimed)
  userdebug copy -q                               (VALUE on standard input, a pipe from this script)
  userdebug copy-id --to clipboard -q             (--unchanged: a home of its own whose store nothing
                                                   changes during the run, so its session copy is fresh;
                                                   the same text in a new source each round; listen only,
                                                   as a poll cannot tell it from the old)

Every round runs each once, the starting contestant rotating, with --settle seconds (0.05)
between copies. Readers:

  listen  (default) a data-control client in this process (written here from the protocol's
          wire format, standard library only): on each `selection` event it asks for the text at
          once (`receive` with a pipe) and reads it to the end. "event" is when the selection
          event arrived, "readable" when the value was read whole.
  poll    `wl-paste -n` in a tight loop in a thread; "readable" is the end of the first poll that
          printed the value. It is late by up to one poll, so the median poll time is printed as
          the granularity.

Prints per contestant the medians (p10, p90) of the command time, the event and readable times,
the ratios copy-id / wl-copy and copy / wl-copy, and the load average before and after.
"""
import argparse
import os
import select
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

TEXT_TYPES = ("text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "STRING", "TEXT")


def now_ms():
    return time.monotonic_ns() / 1e6


class Wire:
    """A Wayland client connection: messages are (object id, size << 16 | opcode, arguments)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 2  # 1 is wl_display

    def new_id(self):
        self.next_id += 1
        return self.next_id - 1

    @staticmethod
    def string(text):
        raw = text.encode() + b"\0"
        return struct.pack("=I", len(raw)) + raw + b"\0" * (-len(raw) % 4)

    def send(self, object_id, opcode, payload=b"", fds=()):
        message = struct.pack("=II", object_id, (8 + len(payload)) << 16 | opcode) + payload
        if fds:
            socket.send_fds(self.sock, [message], list(fds))
        else:
            self.sock.sendall(message)

    def events(self):
        """Yields (object id, opcode, payload) as they arrive, blocking."""
        while True:
            while len(self.buffer) >= 8:
                object_id, word = struct.unpack_from("=II", self.buffer)
                size = word >> 16
                if len(self.buffer) < size:
                    break
                payload, self.buffer = self.buffer[8:size], self.buffer[size:]
                yield object_id, word & 0xFFFF, payload
            data, fds, _, _ = socket.recv_fds(self.sock, 65536, 4)
            for fd in fds:
                os.close(fd)
            if not data:
                raise EOFError("the compositor closed the connection")
            self.buffer += data


def read_string(payload, pos):
    (n,) = struct.unpack_from("=I", payload, pos)
    text = payload[pos + 4 : pos + 4 + n - 1].decode(errors="replace") if n else None
    return text, pos + 4 + ((n + 3) & ~3)


class Listener(threading.Thread):
    """Binds wl_seat and zwlr_data_control_manager_v1, reads every new CLIPBOARD selection."""

    def __init__(self, path, log):
        super().__init__(daemon=True)
        self.wire = Wire(path)
        self.log = log  # Seen: (event ms, readable ms, text)
        self.ready = threading.Event()
        self.error = None

    def run(self):
        try:
            self.serve()
        except Exception as error:  # reported by the main thread
            self.error = error
            self.ready.set()
            self.log.wake()

    def serve(self):
        w = self.wire
        registry, sync = w.new_id(), w.new_id()
        w.send(1, 1, struct.pack("=I", registry))  # wl_display.get_registry
        w.send(1, 0, struct.pack("=I", sync))  # wl_display.sync
        globals_ = {}
        events = w.events()
        for object_id, opcode, payload in events:
            if object_id == registry and opcode == 0:
                (name,) = struct.unpack_from("=I", payload)
                interface, pos = read_string(payload, 4)
                (version,) = struct.unpack_from("=I", payload, pos)
                globals_.setdefault(interface, (name, version))
            elif object_id == sync:
                break
            elif object_id == 1 and opcode == 0:
                raise RuntimeError(f"wl_display.error {payload!r}")
        for needed in ("wl_seat", "zwlr_data_control_manager_v1"):
            if needed not in globals_:
                raise RuntimeError(f"the compositor offers no {needed}")
        bound = {}
        for interface in ("wl_seat", "zwlr_data_control_manager_v1"):
            bound[interface] = w.new_id()
            name, _ = globals_[interface]
            # wl_registry.bind(name, new_id: interface, version 1, id)
            w.send(registry, 0, struct.pack("=I", name) + w.string(interface) + struct.pack("=II", 1, bound[interface]))
        device = w.new_id()
        # zwlr_data_control_manager_v1.get_data_device(new_id, seat)
        w.send(bound["zwlr_data_control_manager_v1"], 1, struct.pack("=II", device, bound["wl_seat"]))
        # The selection the device announces before this sync's done was there before the
        # benchmark (KWin sends none when the clipboard is empty).
        started = w.new_id()
        w.send(1, 0, struct.pack("=I", started))
        mimes = {}  # offer id -> offered types
        current = None
        first = True
        for object_id, opcode, payload in events:
            if object_id == 1 and opcode == 0:
                raise RuntimeError(f"wl_display.error {payload!r}")
            if object_id == started:
                first = False
                self.ready.set()
            if object_id == device and opcode == 0:  # data_offer(new_id)
                mimes[struct.unpack_from("=I", payload)[0]] = []
            elif object_id in mimes and opcode == 0:  # offer(mime_type)
                mimes[object_id].append(read_string(payload, 0)[0])
            elif object_id == device and opcode == 1:  # selection(offer or null)
                event_ms = now_ms()
                (offer,) = struct.unpack_from("=I", payload)
                if current is not None:
                    w.send(current, 1)  # zwlr_data_control_offer_v1.destroy
                    mimes.pop(current, None)
                current = offer or None
                text = self.receive(offer, mimes.get(offer, [])) if offer else None
                first_read = text
                # An empty read of a fresh offer is retried (a new `receive` on the same offer)
                # for up to a second: the value then counts as readable when a retry got it,
                # and the empty first read is counted apart.
                retry_until = time.monotonic() + 1
                while offer and text == "" and time.monotonic() < retry_until:
                    time.sleep(0.001)
                    text = self.receive(offer, mimes.get(offer, []))
                if not first:
                    self.log.add(event_ms, now_ms(), text, first_read)
            elif object_id == device and opcode == 2:  # finished
                raise RuntimeError("the data-control device was finished")

    def receive(self, offer, types):
        kind = next((t for t in TEXT_TYPES if t in types), None)
        if kind is None:
            return None
        r, wfd = os.pipe()
        try:
            # zwlr_data_control_offer_v1.receive(mime_type, fd)
            self.wire.send(offer, 0, Wire.string(kind), fds=(wfd,))
        finally:
            os.close(wfd)
        chunks = []
        deadline = time.monotonic() + 5
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    break
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(r)
        return b"".join(chunks).decode(errors="replace")


class Poller(threading.Thread):
    """`wl-paste -n` again and again; each poll's (start ms, end ms, text)."""

    def __init__(self, log):
        super().__init__(daemon=True)
        self.log = log
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.error = None
        self.durations = []

    def run(self):
        while not self.stop.is_set():
            start = now_ms()
            done = subprocess.run(["wl-paste", "-n"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            end = now_ms()
            self.durations.append(end - start)
            text = done.stdout.decode(errors="replace") if done.returncode == 0 else None
            self.log.add(start, end, text, text)
            self.ready.set()


class Seen:
    """What the reader got, in order, and a way to wait for a given text."""

    def __init__(self):
        self.entries = []
        self.cond = threading.Condition()

    def add(self, event_ms, readable_ms, text, first_read=None):
        with self.cond:
            self.entries.append((event_ms, readable_ms, text, first_read))
            self.cond.notify_all()

    def wake(self):
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, text, since, timeout, reader):
        """The first entry at index >= since whose text is `text`, or None by the deadline."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for entry in self.entries[since:]:
                    if entry[2] == text:
                        return entry
                left = deadline - time.monotonic()
                if left <= 0 or reader.error:
                    return None
                self.cond.wait(left)


def quantiles(values):
    if len(values) < 2:
        return (values[0], values[0]) if values else (float("nan"), float("nan"))
    q = statistics.quantiles(values, n=10)
    return q[0], q[-1]


def row(values):
    if not values:
        return "      -"
    p10, p90 = quantiles(values)
    return f"{statistics.median(values):7.2f} ({p10:6.2f}–{p90:6.2f})"


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("userdebug")
    parser.add_argument("rounds", type=int)
    parser.add_argument("--reader", choices=("listen", "poll"), default="listen")
    parser.add_argument("--settle", type=float, default=0.05)
    parser.add_argument("--unchanged", action="store_true", help="also copy-id with the session unchanged")
    args = parser.parse_args()
    ud = args.userdebug
    runtime, display = os.environ["XDG_RUNTIME_DIR"], os.environ["WAYLAND_DISPLAY"]
    path = display if display.startswith("/") else os.path.join(runtime, display)

    seen = Seen()
    reader = Listener(path, seen) if args.reader == "listen" else Poller(seen)
    reader.start()
    if not reader.ready.wait(10) or reader.error:
        sys.exit(f"readable_bench: the reader did not start: {reader.error}")

    stamp = f"{os.getpid()}-{int(time.time())}"

    def wl_copy(value):
        return ["wl-copy", value], None, None

    def copy_id(value):
        prepare = [ud, "session", "set", "--id", value]
        return [ud, "copy-id", "--to", "clipboard", "-q"], None, prepare

    def copy(value):
        return [ud, "copy", "-q"], value.encode(), None

    # copy-id with the store left alone: a home of its own that nothing writes during the run,
    # so its session copy beside the store is fresh (as for a hotkey pressed a while after the
    # last change). Every round puts up a new source with the same text; the listener reads each
    # new selection, so its read of that text after the command's start counts. (With the
    # shared home, `session set` of the copy-id contestant changed the store a moment before.)
    settled = {}
    if args.unchanged:
        home = tempfile.mkdtemp(prefix="readable-bench-settled-")
        settled = dict(os.environ, USERDEBUG_HOME=home)
        sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config", "sample-session.json")
        for step in (["session", "import", sample], ["session", "set", "--id", f"rb-{stamp}-settled"]):
            subprocess.run([ud, *step], env=settled, check=True, stdout=subprocess.DEVNULL)
        time.sleep(0.3)  # past the session copy's settle time; the next read writes the copy
        for _ in range(2):
            subprocess.run([ud, "copy-id", "--to", "stdout"], env=settled, check=True, stdout=subprocess.DEVNULL)
    settled_id = f"rb-{stamp}-settled"

    def copy_id_unchanged(value):
        return [ud, "copy-id", "--to", "clipboard", "-q"], None, None

    contestants = [("wl-copy VALUE", wl_copy), ("userdebug copy-id", copy_id), ("userdebug copy < pipe", copy)]
    if args.unchanged and args.reader == "listen":
        contestants.append(("userdebug copy-id, session unchanged", copy_id_unchanged))
    results = {name: {"command": [], "event": [], "readable": [], "first": []} for name, _ in contestants}
    missed = {name: 0 for name, _ in contestants}
    empty_first = {name: 0 for name, _ in contestants}
    print(f"reader: {args.reader}; {args.rounds} rounds, contestants rotating; settle {args.settle} s; "
          f"load average before: {load()}", flush=True)
    for round_ in range(args.rounds):
        order = contestants[round_ % len(contestants) :] + contestants[: round_ % len(contestants)]
        for name, make in order:
            value = f"rb-{stamp}-{round_}-{name.split()[0 if name.startswith('wl') else 1]}"
            if make is copy_id_unchanged:
                value = settled_id
            argv, stdin, prepare = make(value)
            if prepare:
                subprocess.run(prepare, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            since = len(seen.entries)
            start = now_ms()
            env = settled if make is copy_id_unchanged else None
            if stdin is None:
                status = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env).returncode
            else:
                status = subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, env=env).returncode
            end = now_ms()
            entry = seen.wait_for(value, since, 6, reader)
            if status != 0 or entry is None:
                missed[name] += 1
                print(f"round {round_}: {name}: exit {status}, "
                      f"{'value never read' if entry is None else 'read'}; the reader got "
                      f"{[e[2] for e in seen.entries[since:]]!r}", file=sys.stderr, flush=True)
            else:
                results[name]["command"].append(end - start)
                results[name]["event"].append(entry[0] - start)
                results[name]["readable"].append(entry[1] - start)
                empty_first[name] += entry[3] == ""
                if entry[3] == value:
                    results[name]["first"].append(entry[1] - start)
            time.sleep(args.settle)
    if settled:
        shutil.rmtree(settled["USERDEBUG_HOME"], ignore_errors=True)
    if reader.error:
        print(f"readable_bench: the reader failed: {reader.error}", file=sys.stderr)
    if isinstance(reader, Poller):
        reader.stop.set()

    event_label = "selection event" if args.reader == "listen" else "that poll started"
    print()
    print(f"| contestant | command returns (ms) | {event_label} (ms) | readable (ms) | readable, first read had it (ms) "
          "| first read empty | over 1 s | missed |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _ in contestants:
        r = results[name]
        print(f"| `{name}` | {row(r['command'])} | {row(r['event'])} | {row(r['readable'])} | {row(r['first'])} | {empty_first[name]} "
              f"| {sum(ms > 1000 for ms in r['readable'])} | {missed[name]} |")
    print("(medians, p10–p90 in parentheses, from the copy command's start; 'first read empty': the")
    print("reader's first `receive` of the new offer got end-of-file with no bytes, then a retry got the value)")
    if isinstance(reader, Poller) and reader.durations:
        print(f"poll granularity: a `wl-paste -n` takes median {statistics.median(reader.durations):.2f} ms "
              f"({len(reader.durations)} polls); 'readable' is late by up to one poll")
    base = results["wl-copy VALUE"]
    for name, _ in contestants[1:]:
        r = results[name]
        if r["readable"] and base["readable"]:
            print(f"{name} ÷ wl-copy: readable {statistics.median(r['readable']) / statistics.median(base['readable']):.2f}×, "
                  f"command {statistics.median(r['command']) / statistics.median(base['command']):.2f}×")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
