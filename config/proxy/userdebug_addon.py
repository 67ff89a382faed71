"""userdebug's mitmproxy addon: records every completed flow to a host that `userdebug_hosts`
matches into userdebug's store, through one `userdebug response record --stream -` fed a JSON
line per flow (the same checks as a response recorded by hand: control characters in headers, the URL, the document's size; the
config's login rules, so the session follows the app's login the moment the response completes).

`userdebug proxy` runs mitmdump with it; to run mitmproxy or mitmweb yourself:
    mitmweb -s "$(userdebug proxy --addon)" --set userdebug_hosts='^api\\.example\\.com$'

Options (--set NAME=VALUE):
    userdebug_binary     the userdebug program (default: userdebug on PATH)
    userdebug_hosts      a Python regular expression; a flow is recorded when re.search finds it
                         in the request's host (default: empty, every host)
    userdebug_session    record into this session (default: the current one, or the login's)
    userdebug_max_bytes  a flow whose two bodies are larger together is not recorded (32 MiB)

Flows are recorded one at a time, in the order they complete, by one worker thread, so the proxy
never waits for the store; a flow that cannot be recorded is skipped with one line on stderr and
the proxy keeps serving. Bodies are recorded as they came over the wire (Content-Encoding kept).
"""
import base64
import datetime
import json
import queue
import re
import subprocess
import sys
import threading

from mitmproxy import ctx, exceptions

PENDING_LIMIT = 1000  # flows waiting to be recorded; beyond it a flow is skipped with a line


def log(message):
    """One line on stderr: mitmproxy's own log is not safe from the worker thread."""
    sys.stderr.write("userdebug: " + message.replace("\n", " ") + "\n")
    sys.stderr.flush()


def where(flow):
    """METHOD host/path, without the query (it may hold secrets), for log lines."""
    request = flow.request
    return f"{request.method} {request.pretty_host}{request.path.split('?', 1)[0]}"


class Skip(Exception):
    """The flow is not recorded; the message says why."""


def text_headers(headers, side):
    """[{"name", "value"}] from mitmproxy's raw header fields, each name and value UTF-8."""
    result = []
    for name, value in headers.fields:
        try:
            result.append({"name": name.decode("utf-8"), "value": value.decode("utf-8")})
        except UnicodeDecodeError:
            raise Skip(f"a {side} header is not UTF-8 ({name[:40]!r})")
    return result


def body(raw):
    """The body as the JSON document takes it: absent, or base64 of the bytes as they came."""
    return {"base64": base64.b64encode(raw).decode("ascii")} if raw else None


def iso(timestamp):
    moment = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def document(flow, limit):
    """The `response record` JSON document of a completed flow, or Skip."""
    request, response = flow.request, flow.response
    if request.stream or response.stream or request.raw_content is None or response.raw_content is None:
        raise Skip(f"a body over the size cap ({limit} bytes) was streamed through, not held")
    size = len(request.raw_content) + len(response.raw_content)
    if size > limit:
        raise Skip(f"the bodies ({size} bytes) are over the size cap ({limit} bytes)")
    req = {"method": request.method, "url": request.url, "headers": text_headers(request.headers, "request")}
    res = {"status": response.status_code, "headers": text_headers(response.headers, "response")}
    if body(request.raw_content):
        req["body"] = body(request.raw_content)
    if body(response.raw_content):
        res["body"] = body(response.raw_content)
    result = {"request": req, "response": res, "tags": ["proxy"]}
    if request.timestamp_start:
        result["startedAt"] = iso(request.timestamp_start)
        if response.timestamp_end:
            result["durationMs"] = round((response.timestamp_end - request.timestamp_start) * 1000, 3)
    return result


class UserDebugRecorder:
    def __init__(self):
        self.pending = queue.Queue()
        self.worker = None
        self.hosts = None

    def load(self, loader):
        loader.add_option("userdebug_binary", str, "userdebug", "The userdebug program that records flows.")
        loader.add_option("userdebug_hosts", str, "", "Record hosts this regular expression finds (empty: all).")
        loader.add_option("userdebug_session", str, "", "Record into this session (empty: the current one).")
        loader.add_option("userdebug_max_bytes", int, 32 * 1024 * 1024, "Skip flows whose bodies are larger.")

    def configure(self, updated):
        if "userdebug_hosts" in updated:
            try:
                self.hosts = re.compile(ctx.options.userdebug_hosts) if ctx.options.userdebug_hosts else None
            except re.error as error:
                raise exceptions.OptionsError(f"userdebug_hosts: not a regular expression: {error}")
        if self.worker is None:
            self.worker = threading.Thread(target=self.record_all, name="userdebug-recorder", daemon=True)
            self.worker.start()

    def response(self, flow):
        if self.hosts is not None and not self.hosts.search(flow.request.host):
            return
        try:
            item = (where(flow), document(flow, ctx.options.userdebug_max_bytes))
        except Skip as why:
            log(f"not recorded: {where(flow)}: {why}")
            return
        if self.pending.qsize() >= PENDING_LIMIT:
            log(f"not recorded: {where(flow)}: {PENDING_LIMIT} flows are already waiting to be recorded")
            return
        self.pending.put(item)

    def done(self):
        """mitmdump stops: what is waiting is still recorded (SIGTERM waits for it)."""
        if self.worker is not None:
            self.pending.put(None)
            self.worker.join(timeout=30)

    def recorder(self):
        """`userdebug response record --stream -`, one for the whole run: one JSON line per flow.
        Its own session, so that a Ctrl-C meant for mitmdump does not cut it short: it ends when
        its input closes, after what it was given (and when mitmdump dies, as the pipe closes)."""
        command = [ctx.options.userdebug_binary, "response", "record", "--stream", "-"]
        if ctx.options.userdebug_session:
            command += ["--session", ctx.options.userdebug_session]
        return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)

    def record_all(self):
        child = None
        while True:
            item = self.pending.get()
            if item is None:
                break
            label, doc = item
            line = json.dumps(doc).encode("ascii") + b"\n"
            for attempt in (1, 2):
                try:
                    if child is None or child.poll() is not None:
                        child = self.recorder()
                    child.stdin.write(line)
                    child.stdin.flush()
                    break
                except OSError as error:
                    child = None
                    if attempt == 2:
                        log(f"not recorded: {label}: cannot run {ctx.options.userdebug_binary}: {error}")
        if child is not None:
            try:
                child.stdin.close()
                child.wait(timeout=30)
            except (OSError, subprocess.SubprocessError):
                child.kill()


addons = [UserDebugRecorder()]
