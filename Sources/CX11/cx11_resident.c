/*
 * The resident owner: a serving process that takes the next copy's content over a local socket.
 *
 * A copy that finds a process of ours already serving the same selection on the same display
 * hands it the payload instead of connecting to X and forking: the serving process takes the
 * selection again with a fresh server timestamp, confirms it, and answers. Both sides check the
 * other's uid (SO_PEERCRED), since abstract socket names carry no permissions: a payload (maybe a
 * secret) never goes to another user's process, and another user can never change our content.
 * Anything unexpected on the client side (no listener, another uid, a refusal, a deadline) makes
 * the caller fall back to connecting and forking as usual; nothing is lost by trying.
 *
 * Here: the socket's name, the checks both sides make, and the copy's side. The serving side
 * (listening, receiving and answering an offer) is cx11_listener.c.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

/* The device and inode of the file at path, "%lx:%lx"-ready; 0 when it cannot be stat'ed. */
static int file_identity(const char *path, unsigned long *dev, unsigned long *ino) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    *dev = (unsigned long)st.st_dev;
    *ino = (unsigned long)st.st_ino;
    return 1;
}

cx11_status cx11_resident_name(const char *display, cx11_selection selection, const char *executable_path,
                               char *out, size_t cap, cx11_error *err) {
    if (display == NULL || *display == '\0') display = getenv("DISPLAY");
    cx11_display_addr parsed;
    cx11_status st = cx11_parse_display(display, &parsed, err);
    if (st != CX11_OK) return st;
    const char *sel = selection == CX11_PRIMARY ? "PRIMARY" : "CLIPBOARD";
    unsigned uid = (unsigned)geteuid();
    /* A local server is also named by its socket file's identity: abstract names are shared by
     * everyone in the network namespace, and two containers that share it may each run a server
     * with the same display number (only one of them holding the abstract X socket). */
    unsigned long dev = 0, ino = 0, exe_dev, exe_ino;
    if (parsed.transport != CX11_TRANSPORT_TCP) (void)file_identity(parsed.path, &dev, &ino);
    /* And by our executable file: an owner forked by another build (an upgrade installed while
     * it serves) speaks another protocol, and a copy must not keep feeding the old code. */
    const char *exe = executable_path != NULL ? executable_path : "/proc/self/exe";
    if (!file_identity(exe, &exe_dev, &exe_ino))
        return cx11_fail(err, CX11_FAILED, errno, "stat %.160s: %s", exe, cx11_strerror(errno).text);
    int n;
    switch (parsed.transport) {
    case CX11_TRANSPORT_TCP:
        n = snprintf(out, cap, "userdebug-owner-%d/%u/%s/tcp/%s/%d/%lx:%lx", CX11_RESIDENT_VERSION, uid, sel,
                     parsed.host, parsed.display, exe_dev, exe_ino);
        break;
    case CX11_TRANSPORT_PATH:
        n = snprintf(out, cap, "userdebug-owner-%d/%u/%s/path/%s/%lx:%lx/%lx:%lx", CX11_RESIDENT_VERSION, uid,
                     sel, parsed.path, dev, ino, exe_dev, exe_ino);
        break;
    default:
        n = snprintf(out, cap, "userdebug-owner-%d/%u/%s/unix/%d/%lx:%lx/%lx:%lx", CX11_RESIDENT_VERSION, uid, sel,
                     parsed.display, dev, ino, exe_dev, exe_ino);
        break;
    }
    size_t abstract_room = sizeof((struct sockaddr_un *)0)->sun_path - 1;
    if (n < 0 || (size_t)n >= cap || (size_t)n >= abstract_room)
        return cx11_fail(err, CX11_UNSUPPORTED, 0, "the resident owner's socket name does not fit");
    return CX11_OK;
}

int cx11_resident_address(const char *display, cx11_selection selection, struct sockaddr_un *addr,
                          socklen_t *addr_len) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    /* sun_path[0] stays NUL: an abstract name, gone with the process, no file to clean up. */
    if (cx11_resident_name(display, selection, NULL, addr->sun_path + 1, sizeof addr->sun_path - 1, NULL) != CX11_OK)
        return 0; /* no display, or a name that does not fit: no resident owner */
    *addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(addr->sun_path + 1));
    return 1;
}

int cx11_peer_is_us(int fd) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) return 0;
    if (cred.uid != geteuid() || cred.pid <= 0) return 0; /* pid 0: a pid namespace we cannot see */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)cred.pid);
    struct stat theirs, ours;
    if (stat(path, &theirs) != 0 || stat("/proc/self/ns/mnt", &ours) != 0) return 0;
    return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

/* Write all of the vector before the deadline on a non-blocking socket. */
static int send_all(int fd, struct iovec *iov, int count, double deadline) {
    while (count > 0) {
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)count};
        ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) return 0;
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            double left = deadline - cx11_now();
            if (left <= 0) return 0;
            if (poll(&pfd, 1, cx11_poll_ms(left)) < 0 && errno != EINTR) return 0;
            continue;
        }
        size_t done = (size_t)n;
        while (count > 0 && done >= iov->iov_len) {
            done -= iov->iov_len;
            iov++;
            count--;
        }
        if (count > 0) {
            iov->iov_base = (char *)iov->iov_base + done;
            iov->iov_len -= done;
        }
    }
    return 1;
}

int cx11_read_exact(int fd, void *buffer, size_t len, double deadline) {
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buffer + got, len - got);
        if (n > 0) {
            got += (size_t)n;
            continue;
        }
        if (n == 0) return 0;
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return 0;
        if (cx11_wait_fd(fd, deadline) != 1) return 0;
    }
    return 1;
}

void cx11_offer_terms(const cx11_own_options *options, size_t len, double deadline, cx11_offer_header *h) {
    *h = (cx11_offer_header){
        .magic = CX11_OFFER_MAGIC,
        .kind = (uint32_t)options->kind,
        .is_secret = options->is_secret ? 1u : 0u,
        .deadline = deadline,
        .clear_after = options->clear_after,
        .lifetime = options->lifetime,
        .transfer_timeout = options->transfer_timeout,
        .handoff_timeout = options->handoff_timeout,
        .len = (uint64_t)len,
    };
}

int cx11_resident_offer(const cx11_own_options *options, const uint8_t *bytes, size_t len, double deadline,
                        pid_t *owner_pid) {
    if (len > CX11_RESIDENT_MAX_BYTES || options->handoff_at_once) return 0;
    struct sockaddr_un addr;
    socklen_t addr_len;
    if (!cx11_resident_address(options->display, options->selection, &addr, &addr_len)) return 0;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return 0;
    /* Non-blocking: a full backlog is EAGAIN, not a wait. Nothing listening is ECONNREFUSED. */
    int ok = connect(fd, (struct sockaddr *)&addr, addr_len) == 0 && cx11_peer_is_us(fd);
    cx11_offer_header header;
    cx11_offer_terms(options, len, deadline, &header);
    struct iovec iov[2] = {{.iov_base = &header, .iov_len = sizeof header},
                           {.iov_base = (void *)bytes, .iov_len = len}};
    ok = ok && send_all(fd, iov, len > 0 ? 2 : 1, deadline);
    cx11_offer_reply reply = {0};
    ok = ok && cx11_read_exact(fd, &reply, sizeof reply, deadline);
    close(fd);
    if (!ok || reply.magic != CX11_OFFER_MAGIC || reply.status != CX11_OK || reply.pid <= 0) return 0;
    *owner_pid = (pid_t)reply.pid;
    return 1;
}
