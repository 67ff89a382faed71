/* Connecting a socket under a deadline: local (abstract name, then file) or TCP (resolved under it too). */
#define _GNU_SOURCE
#include "cx11_connect.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Connect a non-blocking socket, waiting until the deadline. Returns the fd or -1 (errno set). */
static int connect_with_deadline(int family, const struct sockaddr *addr, socklen_t addr_len, double deadline) {
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    if (connect(fd, addr, addr_len) == 0) return fd;
    if (errno != EINPROGRESS && errno != EAGAIN) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    for (;;) {
        double left = deadline - ud_now();
        if (left <= 0) {
            close(fd);
            errno = ETIMEDOUT;
            return -1;
        }
        int r = poll(&pfd, 1, ud_poll_ms(left));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (r == 0) continue;
        int so_error = 0;
        socklen_t len = sizeof so_error;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0) so_error = errno;
        if (so_error != 0) {
            close(fd);
            errno = so_error;
            return -1;
        }
        return fd;
    }
}

/* Local sockets: see cx11_connect.h. */
int cx11_socket_unix(const char *path, int try_abstract, double deadline) {
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (try_abstract && len + 1 <= sizeof sun.sun_path) {
        memcpy(sun.sun_path + 1, path, len); /* sun_path[0] == 0: abstract namespace */
        int fd = connect_with_deadline(AF_UNIX, (struct sockaddr *)&sun,
                                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len), deadline);
        if (fd >= 0 || errno == ETIMEDOUT) return fd;
        memset(sun.sun_path, 0, sizeof sun.sun_path);
    }
    if (len >= sizeof sun.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(sun.sun_path, path, len);
    return connect_with_deadline(AF_UNIX, (struct sockaddr *)&sun, (socklen_t)sizeof sun, deadline);
}

/*
 * Resolve `host` under the deadline. Numeric addresses resolve at once, without a thread. Names
 * go through getaddrinfo_a, which resolves on a thread of glibc's, and gai_suspend waits for it
 * until the deadline: a DNS server that never answers (the resolver's own timeouts add up to
 * tens of seconds) cannot hold us. A lookup still running at the deadline is cancelled; if it
 * cannot be, its request block is left to it (it writes its result there when it ends), which
 * is a few hundred bytes once per failed connection.
 * Returns 0 with *list set (freeaddrinfo it), or -1 with errno ETIMEDOUT or EHOSTUNREACH.
 */
static int resolve_with_deadline(const char *host, const char *port, double deadline, struct addrinfo **list) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST;
    if (getaddrinfo(host, port, &hints, list) == 0) return 0;

    /* One block for everything the lookup reads or writes, so that it can outlive this call. */
    size_t host_len = strlen(host) + 1, port_len = strlen(port) + 1;
    struct lookup {
        struct gaicb request;
        struct addrinfo hints;
        char names[];
    } *lookup = calloc(1, sizeof *lookup + host_len + port_len);
    if (lookup == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(lookup->names, host, host_len);
    memcpy(lookup->names + host_len, port, port_len);
    lookup->hints.ai_socktype = SOCK_STREAM;
    lookup->hints.ai_flags = AI_NUMERICSERV;
    lookup->request.ar_name = lookup->names;
    lookup->request.ar_service = lookup->names + host_len;
    lookup->request.ar_request = &lookup->hints;
    struct gaicb *requests[1] = {&lookup->request};
    if (getaddrinfo_a(GAI_NOWAIT, requests, 1, NULL) != 0) {
        free(lookup);
        errno = EHOSTUNREACH;
        return -1;
    }
    for (;;) {
        int state = gai_error(&lookup->request);
        if (state != EAI_INPROGRESS) break;
        double left = deadline - ud_now();
        if (left <= 0) {
            if (gai_cancel(&lookup->request) == EAI_CANCELED) free(lookup);
            errno = ETIMEDOUT;
            return -1;
        }
        struct timespec wait = {.tv_sec = (time_t)left, .tv_nsec = (long)((left - (double)(time_t)left) * 1e9)};
        (void)gai_suspend((const struct gaicb *const *)requests, 1, &wait); /* done, timed out or EINTR: re-check */
    }
    int rc = gai_error(&lookup->request);
    *list = lookup->request.ar_result;
    free(lookup);
    if (rc != 0) {
        if (*list != NULL) freeaddrinfo(*list);
        *list = NULL;
        errno = EHOSTUNREACH;
        return -1;
    }
    return 0;
}

/* TCP: see cx11_connect.h. */
int cx11_socket_tcp(const char *host, int display, double deadline, struct sockaddr_storage *used) {
    char port[16];
    snprintf(port, sizeof port, "%d", 6000 + display);
    struct addrinfo *list = NULL;
    if (resolve_with_deadline(host, port, deadline, &list) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
        fd = connect_with_deadline(ai->ai_family, ai->ai_addr, ai->ai_addrlen, deadline);
        if (fd >= 0) {
            memcpy(used, ai->ai_addr, ai->ai_addrlen);
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            break;
        }
        if (errno == ETIMEDOUT) break;
    }
    freeaddrinfo(list);
    return fd;
}
