/*
 * The resident owner's socket: its name, the checks both sides make, and the copy's side.
 *
 * A copy that finds a serving process of ours for the same selection on the same compositor
 * hands it the payload instead of connecting and forking; the serving process makes a new data
 * source the selection, confirms it as cwl_own does, and answers. Abstract socket names carry no
 * permissions, so both sides check the other runs as our euid (SO_PEERCRED) in our mount
 * namespace: a payload (maybe a secret) never goes to another user's process, and another user
 * never changes our content. The name carries the compositor socket's identity (dev:ino) and our
 * executable's, so another compositor or another build is never fed. Anything unexpected makes
 * the copy own as usual. The serving side is cwl_listener.c.
 */
#define _GNU_SOURCE
#include "cwl_resident.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

int cwl_resident_name(const char *display, const char *runtime_dir, cwl_selection selection, char *out,
                      size_t cap) {
    if (display == NULL || *display == '\0') display = getenv("WAYLAND_DISPLAY");
    if (runtime_dir == NULL || *runtime_dir == '\0') runtime_dir = getenv("XDG_RUNTIME_DIR");
    if (display == NULL || *display == '\0') return -1;
    char path[PATH_MAX];
    int n = display[0] == '/' ? snprintf(path, sizeof path, "%s", display)
                              : snprintf(path, sizeof path, "%s/%s", runtime_dir != NULL ? runtime_dir : "", display);
    struct stat sock, exe;
    if (n < 0 || (size_t)n >= sizeof path || stat(path, &sock) != 0 || stat("/proc/self/exe", &exe) != 0) return -1;
    n = snprintf(out, cap, "userdebug-wl-owner-%d/%u/%s/%lx:%lx/%lx:%lx", CWL_RESIDENT_VERSION, (unsigned)geteuid(),
                 selection == CWL_PRIMARY ? "PRIMARY" : "CLIPBOARD", (unsigned long)sock.st_dev,
                 (unsigned long)sock.st_ino, (unsigned long)exe.st_dev, (unsigned long)exe.st_ino);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int same_link(const char *a, const char *b) {
    char la[128], lb[128];
    ssize_t na = readlink(a, la, sizeof la), nb = readlink(b, lb, sizeof lb);
    return na > 0 && na == nb && memcmp(la, lb, (size_t)na) == 0;
}

int cwl_resident_peer_ok(int fd, pid_t *peer_pid) {
    struct ucred cred;
    if (cwl_peer_credentials(fd, &cred) != 0 || cred.uid != geteuid()) return 0;
    char theirs[64];
    snprintf(theirs, sizeof theirs, "/proc/%d/ns/mnt", (int)cred.pid);
    if (!same_link("/proc/self/ns/mnt", theirs)) return 0;
    if (peer_pid != NULL) *peer_pid = cred.pid;
    return 1;
}

int cwl_resident_io(int fd, void *buffer, size_t len, int writing) {
    uint8_t *at = buffer;
    while (len > 0) {
        ssize_t n = writing ? send(fd, at, len, MSG_NOSIGNAL) : recv(fd, at, len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        at += n;
        len -= (size_t)n;
    }
    return 0;
}

static int connect_resident(const cwl_own_options *o, double timeout) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (cwl_resident_name(o->display, o->runtime_dir, o->selection, addr.sun_path + 1, sizeof addr.sun_path - 1) != 0)
        return -1;
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(addr.sun_path + 1));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct timeval tv = {.tv_sec = (time_t)timeout, .tv_usec = (suseconds_t)((timeout - (double)(time_t)timeout) * 1e6)};
    if (connect(fd, (struct sockaddr *)&addr, size) != 0 || !cwl_resident_peer_ok(fd, NULL) ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

cwl_status cwl_resident_hand(const cwl_own_options *o, const uint8_t *bytes, size_t len, pid_t *owner_pid) {
    if (len > CWL_RESIDENT_MAX_BYTES) return CWL_FAILED;
    int fd = connect_resident(o, o->connect_timeout / 2);
    if (fd < 0) return CWL_FAILED;
    cwl_hand_header h = {.magic = CWL_RESIDENT_MAGIC, .kind = (uint32_t)o->kind, .offer_text = (uint32_t)o->offer_text,
                         .is_secret = (uint32_t)o->is_secret, .transfer_timeout = o->transfer_timeout,
                         .clear_after = o->clear_after, .lifetime = o->lifetime, .len = len};
    cwl_hand_reply reply = {.status = CWL_FAILED};
    int ok = cwl_resident_io(fd, &h, sizeof h, 1) == 0 && (len == 0 || cwl_resident_io(fd, (void *)bytes, len, 1) == 0) &&
             cwl_resident_io(fd, &reply, sizeof reply, 0) == 0;
    close(fd);
    if (!ok || reply.status != CWL_OK || reply.pid <= 0) return CWL_FAILED;
    *owner_pid = reply.pid;
    return CWL_OK;
}
