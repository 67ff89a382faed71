#!/usr/bin/python3
"""The proxy's figures (issue 27): the addon's added latency per proxied request, and how many
flows per second it records.

    Scripts/proxy_bench.py [--binary PATH] [--requests N] [--flows N]

Starts the test's HTTP echo server (Tests/Support/echo_server.py), a plain `mitmdump` and
`userdebug proxy --hosts '^127\\.0\\.0\\.1$'` (the addon) in a throwaway USERDEBUG_HOME, each on a
free port, then:
  latency    N requests (default 200) one after another over one keep-alive connection through
             each proxy, alternating, after 20 warm-up requests; prints the median of each and the
             ratio (the addon's records happen on its worker thread, after the response is sent)
  throughput --flows requests (default 1000) from 4 client threads through `userdebug proxy`;
             prints the flows recorded per second, from the first request to the moment
             `response list` counts all of them (bounded by how fast mitmdump proxies)
  recorder   --flows JSON lines, each a flow as the addon writes it (a 1 KiB response body),
             piped to the addon's recorder `userdebug response record --stream -` at once:
             the recording path's own rate
Prints the load average at the start. Kills everything it started.
"""
import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, deadline=30):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port} after {deadline} s")


def start(argv, env, log):
    return subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def request_times(proxy_port, target, count):
    connection = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=30)
    times = []
    for index in range(count):
        started = time.perf_counter()
        connection.request("GET", f"{target}/bench/{index}")
        connection.getresponse().read()
        times.append(time.perf_counter() - started)
    connection.close()
    return times


def recorded(binary, env):
    out = subprocess.run([binary, "response", "list", "--limit", "0", "--all-sessions"], env=env,
                         capture_output=True).stdout
    return out.count(b"\n")


def recorder(options, env, target):
    body = {"base64": "eyJvayI6IHRydWV9" * 64}
    lines = []
    for index in range(options.flows):
        doc = {"request": {"method": "GET", "url": f"{target}/stream/{index}",
                           "headers": [{"name": "Accept", "value": "application/json"}]},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
                            "body": body},
               "tags": ["proxy"], "startedAt": "2026-12-03T17:00:00.000Z", "durationMs": 1.5}
        lines.append(json.dumps(doc))
    data = ("\n".join(lines) + "\n").encode()
    started = time.perf_counter()
    subprocess.run([options.binary, "response", "record", "--stream", "-"], input=data, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    print(f"recorder: {options.flows} flows recorded by response record --stream in {elapsed:.2f} s: "
          f"{options.flows / elapsed:.0f} flows/s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/userdebug"))
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--flows", type=int, default=1000)
    options = parser.parse_args()
    print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]))
    home = tempfile.mkdtemp(prefix="userdebug-proxy-bench-")
    env = dict(os.environ, USERDEBUG_HOME=home, HOME=home, LANG="C.UTF-8", PYTHONUNBUFFERED="1")
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env.pop(name, None)
    log = open(os.path.join(home, "bench.log"), "wb")
    processes = []
    try:
        echo = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "Tests/Support/echo_server.py"),
                                 os.path.join(home, "echo.log"), "--lifetime", "600"],
                                stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        processes.append(echo)
        target = f"http://127.0.0.1:{int(echo.stdout.readline())}"
        session = '{"name": "bench", "user": {"identifier": "usr_1"}, "baseURL": "%s"}' % target
        subprocess.run([options.binary, "session", "import", "-"], input=session.encode(), env=env, check=True,
                       stdout=subprocess.DEVNULL)
        plain_port, addon_port = free_port(), free_port()
        confdir = os.path.join(home, "confdir")
        processes.append(start(["mitmdump", "-q", "--listen-host", "127.0.0.1", "--listen-port", str(plain_port),
                                "--set", f"confdir={confdir}"], env, log))
        processes.append(start([options.binary, "proxy", "--listen", f"127.0.0.1:{addon_port}",
                                "--confdir", confdir], env, log))
        wait_for_port(plain_port)
        wait_for_port(addon_port)
        request_times(plain_port, target, 20)
        request_times(addon_port, target, 20)
        plain, addon = [], []
        for _ in range(options.requests // 20):
            plain += request_times(plain_port, target, 20)
            addon += request_times(addon_port, target, 20)
        while recorded(options.binary, env) < 20 + len(addon):
            time.sleep(0.2)
        plain_median = statistics.median(plain) * 1000
        addon_median = statistics.median(addon) * 1000
        print(f"latency: mitmdump {plain_median:.2f} ms, userdebug proxy {addon_median:.2f} ms "
              f"(median of {len(plain)} each; +{(addon_median / plain_median - 1) * 100:.1f}%)")
        before = recorded(options.binary, env)
        started = time.perf_counter()
        per_thread = options.flows // 4
        threads = [threading.Thread(target=request_times, args=(addon_port, target, per_thread)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        sent = time.perf_counter() - started
        while recorded(options.binary, env) < before + per_thread * 4:
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        print(f"throughput: {per_thread * 4} flows sent in {sent:.2f} s, all recorded after {elapsed:.2f} s: "
              f"{per_thread * 4 / elapsed:.0f} flows/s recorded")
        recorder(options, env, target)
    finally:
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        subprocess.run(["rm", "-rf", home])


if __name__ == "__main__":
    sys.exit(main())
