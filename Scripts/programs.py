#!/usr/bin/python3
"""Which programs the test command starts, and whether a fresh machine would have each of them.

A test that starts a program installed here by hand passes here and fails on a fresh Debian
machine (x11-xserver-utils' xrdb, xset and xhost did exactly that). This script closes the gap:

  programs.py watch --log FILE [--root PID] [--ready FILE]
      Records every file executed in this mount namespace (fanotify FAN_OPEN_EXEC on each of
      its mounts, so absolute paths, PATH look-ups, interpreters of scripts and programs started
      by other programs all count), one line per distinct path with the command that started it
      first. Run it inside a mount namespace of the run's own (test.sh does: `unshare --mount`),
      so what other people run on the machine meanwhile is not seen. With --root, it watches
      whole file systems instead and keeps what descends from PID (and what ended too soon to
      tell). Runs until SIGTERM or SIGINT; writes --ready once it watches.
  programs.py check --log FILE [--log FILE ...] [--without PACKAGE ...]
      Maps each recorded path to its Debian package and fails (exit 1, naming the program, its
      package and who started it) unless that package is one Scripts/deps.sh --test installs,
      one apt pulls in for those (Depends and Pre-Depends, recursively), or one Debian's
      required and essential packages bring. Files of the repository, of the Swift toolchain and
      of temporary directories are the project's own. --without removes a package from the
      allowed set: `--without x11-xserver-utils` shows how the check reports a missing set entry.
  programs.py allowed [--without PACKAGE ...]
      Prints the allowed packages, one a line.

Exit status: 0 all programs allowed (or watching ended normally), 1 a program no set installs,
2 the watch could not start (fanotify needs root: CAP_SYS_ADMIN), 64 usage.
"""
import argparse
import ctypes
import os
import signal
import struct
import subprocess
import sys

from reaper import parent_of  # the parent pid from /proc, or None when gone (or a zombie)

FAN_CLOEXEC = 0x1
FAN_CLASS_NOTIF = 0x0
FAN_UNLIMITED_QUEUE = 0x10
FAN_Q_OVERFLOW = 0x4000
FAN_MARK_ADD = 0x1
FAN_MARK_MOUNT = 0x10
FAN_MARK_FILESYSTEM = 0x100
FAN_OPEN_EXEC = 0x1000
AT_FDCWD = -100
EVENT = struct.Struct("=IBBHQii")  # struct fanotify_event_metadata
VIRTUAL = {"proc", "sysfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs", "tracefs", "securityfs",
           "pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "binfmt_misc", "autofs", "devtmpfs"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Stopped(Exception):
    """SIGTERM or SIGINT: the watch ends (the read it interrupts is not retried)."""


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            text = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(gone)"
    # one log line per program: a script given with -c may hold newlines and tabs
    return " ".join(text.split())[:300] or "?"


def below(pid, root):
    """True when `pid` descends from `root`, False when it does not, None when it is already gone
    (a short-lived program: counted, since on a quiet machine it is the run's own)."""
    seen = 0
    while pid not in (0, 1) and seen < 200:
        if pid == root:
            return True
        parent = parent_of(pid)
        if parent is None:
            return None
        pid, seen = parent, seen + 1
    return False


def mount_points(one_per_device):
    """The mounts a program can be executed from (not proc, sys and the like); with
    `one_per_device`, one mount point per file system."""
    points, devices = [], set()
    with open("/proc/self/mountinfo") as info:
        for line in info:
            fields = line.split()
            separator = fields.index("-")
            device, point, fstype = fields[2], fields[4], fields[separator + 1]
            if fstype in VIRTUAL or (one_per_device and device in devices):
                continue
            devices.add(device)
            # mountinfo escapes space, tab, newline and backslash as octal
            points.append(point.encode().decode("unicode_escape"))
    return points


def watch(options):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]
    fd = libc.fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_UNLIMITED_QUEUE, os.O_RDONLY | os.O_LARGEFILE | os.O_CLOEXEC)
    if fd < 0:
        print(f"programs.py: fanotify_init: {os.strerror(ctypes.get_errno())} (the check needs root)", file=sys.stderr)
        return 2
    marked = []
    whole = options.root is not None
    flags = FAN_MARK_ADD | (FAN_MARK_FILESYSTEM if whole else FAN_MARK_MOUNT)
    for point in mount_points(one_per_device=whole):
        if point not in marked and libc.fanotify_mark(fd, flags, FAN_OPEN_EXEC, AT_FDCWD, point.encode()) == 0:
            marked.append(point)
    if "/" not in marked:
        print(f"programs.py: cannot watch / with fanotify: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 2
    def leave(*_):
        raise Stopped

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, leave)
    seen = set()
    with open(options.log, "a", buffering=1) as log:
        if options.ready:
            with open(options.ready, "w") as ready:
                ready.write(" ".join(marked) + "\n")
        while True:
            try:
                data = os.read(fd, 65536)
            except Stopped:
                return 0
            offset = 0
            while offset + EVENT.size <= len(data):
                length, _, _, _, mask, event_fd, pid = EVENT.unpack_from(data, offset)
                offset += length
                if mask & FAN_Q_OVERFLOW:
                    log.write("(overflow)\tthe kernel dropped exec events: the check is incomplete\n")
                if event_fd < 0:
                    continue
                try:
                    path = os.readlink(f"/proc/self/fd/{event_fd}")
                finally:
                    os.close(event_fd)
                if path in seen:
                    continue
                if whole and below(pid, options.root) is False:
                    continue
                seen.add(path)
                parent = parent_of(pid)
                starter = command_line(parent) if parent else "(gone)"
                log.write(f"{path}\t{starter}\n")


def installed_packages():
    """{name: (essential, priority, depends, provides)} for every installed package."""
    fields = "${Package}\\t${Essential}\\t${Priority}\\t${Pre-Depends}, ${Depends}\\t${Provides}\\t${db:Status-Abbrev}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f=" + fields], capture_output=True, text=True, check=True).stdout
    packages = {}
    for line in out.splitlines():
        name, essential, priority, depends, provides, status = line.split("\t")
        if status.startswith("ii"):
            packages[name] = (essential == "yes", priority, depends, provides)
    return packages


def names(relation):
    """The package names of a Depends field: each alternative of each clause."""
    for clause in relation.split(","):
        yield [alternative.split("(")[0].split(":")[0].strip() for alternative in clause.split("|")
               if alternative.split("(")[0].strip()]


def allowed_packages(without):
    sets = subprocess.run([os.path.join(ROOT, "Scripts/deps.sh"), "--list", "--test"], capture_output=True,
                          text=True, check=True).stdout.split()
    packages = installed_packages()
    providers = {}
    for name, (_, _, _, provides) in packages.items():
        for clause in names(provides):
            for virtual in clause:
                providers.setdefault(virtual, []).append(name)
    roots = [name for name, (essential, priority, _, _) in packages.items() if essential or priority == "required"]
    roots += sets
    allowed, todo = set(), [name for name in roots if name not in without]
    while todo:
        name = todo.pop()
        if name in allowed or name in without:
            continue
        allowed.add(name)
        if name not in packages:
            continue
        for clause in names(packages[name][2]):
            # apt installs the first alternative that is installable; where one of them is
            # installed here, that is the one a fresh machine has too (they are listed first)
            installed = [alternative for alternative in clause if alternative in packages]
            virtual = [provider for alternative in clause for provider in providers.get(alternative, [])]
            todo.extend(installed[:1] or virtual[:1])
    return allowed


def package_index():
    """{path: package} from dpkg's file lists, with /bin, /sbin and /lib read through the
    merged-/usr links as the kernel reports them."""
    merged = {top: os.path.realpath(top) for top in ("/bin", "/sbin", "/lib", "/lib64") if os.path.islink(top)}
    index = {}
    info = "/var/lib/dpkg/info"
    for entry in os.listdir(info):
        if not entry.endswith(".list"):
            continue
        package = entry[:-5].split(":")[0]
        with open(os.path.join(info, entry), errors="replace") as files:
            for path in files:
                path = path.rstrip("\n")
                index.setdefault(path, package)
                for top, real in merged.items():
                    if path.startswith(top + "/"):
                        index.setdefault(real + path[len(top):], package)
    return index


def own_roots():
    """Directories whose files are the project's own or the toolchain's, not a package's."""
    roots = [ROOT, "/tmp", "/var/tmp", "/dev/shm"]
    if os.environ.get("TMPDIR"):
        roots.append(os.path.realpath(os.environ["TMPDIR"]))
    swift = subprocess.run(["sh", "-c", "command -v swift"], capture_output=True, text=True).stdout.strip()
    if swift:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(swift))))
    return [os.path.realpath(root) for root in roots]


def check(options):
    recorded = {}
    for log in options.log:
        with open(log, errors="replace") as lines:
            for line in lines:
                path, _, starter = line.rstrip("\n").partition("\t")
                recorded.setdefault(path, starter)
    if not recorded:
        print("programs.py: the log records no program at all: the watch did not run", file=sys.stderr)
        return 1
    allowed = allowed_packages(set(options.without))
    index = package_index()
    roots = own_roots()
    problems, used = [], set()
    for path, starter in sorted(recorded.items()):
        if path == "(overflow)":
            problems.append(f"the watch lost events: {starter}")
            continue
        if any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots):
            continue
        package = index.get(path)
        if package is None:
            problems.append(f"{path}: belongs to no Debian package (started by: {starter})")
        elif package not in allowed:
            problems.append(f"{path}: from {package}, which Scripts/deps.sh --test does not install "
                            f"(started by: {starter})")
        else:
            used.add(package)
    if problems:
        print(f"programs.py: {len(problems)} program(s) the tests start would be missing on a fresh machine:",
              file=sys.stderr)
        for problem in problems:
            print(f"programs.py:   {problem}", file=sys.stderr)
        print("programs.py: add each package to a set in Scripts/deps.sh, or stop starting the program",
              file=sys.stderr)
        return 1
    print(f"programs.py: {len(recorded)} executed files; those from packages come from {len(used)} packages, "
          "each installed by Scripts/deps.sh --test or required by Debian", file=sys.stderr)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    watching = commands.add_parser("watch")
    watching.add_argument("--log", required=True)
    watching.add_argument("--root", type=int)
    watching.add_argument("--ready")
    checking = commands.add_parser("check")
    checking.add_argument("--log", action="append", required=True)
    checking.add_argument("--without", action="append", default=[])
    listing = commands.add_parser("allowed")
    listing.add_argument("--without", action="append", default=[])
    try:
        options = parser.parse_args()
    except SystemExit as exit:
        sys.exit(64 if exit.code else 0)
    if options.command == "watch":
        sys.exit(watch(options))
    if options.command == "check":
        sys.exit(check(options))
    print("\n".join(sorted(allowed_packages(set(options.without)))))


if __name__ == "__main__":
    main()
