#!/usr/bin/env python3
"""How long `userdebug menu --dmenu` keeps its launcher waiting when a backend section is slow.

    Scripts/bench/launcher_first_lines.py [--binary PATH] [--runs 20] [--slow-seconds 4]

A local HTTP server answers /fast at once and /slow after --slow-seconds; the config has one
backend section on each. The launcher is a /bin/sh stand-in that notes the wall-clock time when
its first line arrives and when its stdin reaches end of file (dmenu-style launchers draw only
then), and chooses nothing. Each run's times are measured from just before userdebug is
started. Prints the median and the spread of both, and the load average before and after (the
machine may be shared: say so beside the figure).
"""
import argparse
import http.server
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def serve(slow_seconds: float) -> int:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/slow":
                time.sleep(slow_seconds)
            body = json.dumps({"id": "usr_1", "path": self.path}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/userdebug"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--slow-seconds", type=float, default=4.0)
    args = parser.parse_args()

    port = serve(args.slow_seconds)
    home = tempfile.mkdtemp(prefix="userdebug-launcher-bench-")
    env = {"USERDEBUG_HOME": home, "HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    session = {"name": "bench", "user": {"identifier": "usr_1", "name": "Ada"}, "token": "tok-bench",
               "baseURL": "http://127.0.0.1:%d" % port}
    subprocess.run([args.binary, "session", "import", "-"], input=json.dumps(session).encode(), env=env,
                   check=True, stdout=subprocess.DEVNULL)
    os.makedirs(os.path.join(home, "config"), exist_ok=True)
    with open(os.path.join(home, "config/config.json"), "w") as config:
        json.dump({"backend": {"timeoutSeconds": args.slow_seconds + 2, "sections": [
            {"name": "fast", "title": "Fast", "path": "/fast"},
            {"name": "slow", "title": "Slow", "path": "/slow"}]}}, config)
    times = os.path.join(home, "times")
    launcher = os.path.join(home, "launcher.sh")
    with open(launcher, "w") as script:
        script.write("#!/bin/sh\nIFS= read -r first\nt1=$(date +%s%N)\ncat > /dev/null\nt2=$(date +%s%N)\n"
                     "echo \"$t1 $t2 $first\" > '" + times + "'\n")
    os.chmod(launcher, 0o755)

    load_before = open("/proc/loadavg").read().split()[:3]
    first, eof, total, lines = [], [], [], set()
    for _ in range(args.runs):
        if os.path.exists(times):
            os.remove(times)
        start = time.time()
        subprocess.run([args.binary, "menu", "--dmenu", "--launcher", launcher], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total.append(time.time() - start)
        t1, t2, line = open(times).read().rstrip("\n").split(" ", 2)
        first.append(int(t1) / 1e9 - start)
        eof.append(int(t2) / 1e9 - start)
        lines.add(line)
    load_after = open("/proc/loadavg").read().split()[:3]

    def ms(values):
        return "median %.1f ms (min %.1f, max %.1f)" % (
            statistics.median(values) * 1000, min(values) * 1000, max(values) * 1000)

    print("binary:", args.binary)
    print("runs: %d, slow section: %.1f s" % (args.runs, args.slow_seconds))
    print("first line at the launcher:", ms(first))
    print("launcher's stdin closed:   ", ms(eof))
    print("menu --dmenu exited:       ", ms(total))
    print("load average before: %s, after: %s" % (" ".join(load_before), " ".join(load_after)))
    subprocess.run(["rm", "-rf", home])


if __name__ == "__main__":
    main()
