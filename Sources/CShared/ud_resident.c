/* The resident owner's local socket, both ends (see ud_resident.h). */
#define _GNU_SOURCE
#include "ud_disable.h"
#include "ud_resident.h"
#include "ud_shared.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int ud_abstract_address(const char *name, struct sockaddr_un *addr, socklen_t *addr_len) {
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n >= sizeof addr->sun_path - 1) return 0;
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    memcpy(addr->sun_path + 1, name, n); /* sun_path[0] stays NUL: abstract, gone with the process */
    *addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    return 1;
}

int ud_peer_credentials(int fd, struct ucred *cred) {
    socklen_t len = sizeof *cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) != 0) return -1;
    if (len != sizeof *cred) {
        errno = EPROTO;
        return -1;
    }
    return 0;
}

int ud_peer_is_us(int fd, pid_t *peer_pid) {
    struct ucred cred;
    if (ud_peer_credentials(fd, &cred) != 0) return 0;
    if (cred.uid != geteuid() || cred.pid <= 0) return 0; /* pid 0: a pid namespace we cannot see */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)cred.pid);
    struct stat theirs, ours;
    if (stat(path, &theirs) != 0 || stat("/proc/self/ns/mnt", &ours) != 0) return 0;
    if (theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino) return 0;
    if (peer_pid != NULL) *peer_pid = cred.pid;
    return 1;
}

/* Move exactly len bytes through a non-blocking fd before the deadline: 1, or 0. */
static int transfer_exact(int fd, uint8_t *at, size_t len, int writing, double deadline) {
    while (len > 0) {
        ssize_t n = writing ? send(fd, at, len, MSG_NOSIGNAL) : read(fd, at, len);
        if (n > 0) {
            at += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0) return 0; /* the peer hung up */
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return 0;
        if (ud_wait_fd(fd, writing ? POLLOUT : POLLIN, deadline) != 1) return 0;
    }
    return 1;
}

int ud_read_exact(int fd, void *buffer, size_t len, double deadline) {
    return transfer_exact(fd, buffer, len, 0, deadline);
}

int ud_write_exact(int fd, const void *buffer, size_t len, double deadline) {
    return transfer_exact(fd, (uint8_t *)buffer, len, 1, deadline);
}

/* Write all of the vector before the deadline on a non-blocking socket (one sendmsg when the
 * socket takes it all: the header and the bytes of a small copy in one system call). */
static int send_all(int fd, struct iovec *iov, int count, double deadline) {
    while (count > 0) {
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)count};
        ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return 0;
        if (n < 0) {
            if (ud_wait_fd(fd, POLLOUT, deadline) != 1) return 0;
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

int ud_resident_call(const char *name, const void *header, size_t header_len, const void *bytes, size_t len,
                     void *reply, size_t reply_len, double deadline) {
    struct sockaddr_un addr;
    socklen_t addr_len;
    if (ud_disabled(UD_MECH_RESIDENT) || !ud_abstract_address(name, &addr, &addr_len)) return 0;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return 0;
    struct iovec iov[2] = {{.iov_base = (void *)header, .iov_len = header_len},
                           {.iov_base = (void *)bytes, .iov_len = len}};
    int ok = connect(fd, (struct sockaddr *)&addr, addr_len) == 0 && ud_peer_is_us(fd, NULL) &&
             send_all(fd, iov, len > 0 ? 2 : 1, deadline) && ud_read_exact(fd, reply, reply_len, deadline);
    close(fd);
    return ok;
}

int ud_resident_listen(const char *name, int backlog, int *in_use) {
    *in_use = 0;
    struct sockaddr_un addr;
    socklen_t addr_len;
    if (ud_disabled(UD_MECH_RESIDENT) || !ud_abstract_address(name, &addr, &addr_len)) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&addr, addr_len) != 0 || listen(fd, backlog) != 0) {
        *in_use = errno == EADDRINUSE;
        close(fd);
        return -1;
    }
    return fd;
}

int ud_resident_accept(int listener) {
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return -1;
    if (ud_peer_is_us(fd, NULL)) return fd;
    close(fd);
    return -1;
}
