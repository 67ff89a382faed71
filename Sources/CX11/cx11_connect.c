/*
 * Connecting with a deadline.
 *
 * Neither Xlib nor xcb has a connect timeout. The socket part is easy (non-blocking connect,
 * poll). The setup handshake is the hard part: xcb_connect_to_fd writes the setup request and
 * then blocks in poll(-1) until the server answers, so a server that accepts and never answers
 * blocks it forever. We bound it with a watchdog thread: it waits on a condition variable until
 * the deadline and, if the handshake has not finished by then, shuts the socket down (through
 * its own dup of the descriptor, so it can never touch a descriptor number that xcb closed and
 * someone reused). xcb's read then sees end-of-file and fails. The thread is joined before we
 * return, so the caller is single-threaded again before it forks. A forked helper would cost a
 * fork of the whole caller and pass the connection through a pipe it cannot carry.
 *
 * A caller that owns its process (the command-line tool, which exits right after copying) may
 * ask for a timer signal instead (CX11_CONNECT_TIMER_SIGNAL): a thread costs it about 0.14 ms on
 * a two-core VM (creating it, waking the other CPU, joining it), a quarter of the whole X part
 * of its copy. A POSIX timer on CLOCK_MONOTONIC delivers a real-time signal to this very thread
 * at the deadline, carrying a dup of the socket in its value; the handler only shuts that socket
 * down (shutdown is async-signal-safe), xcb's poll is interrupted or wakes to end-of-file, and the
 * setup fails. The signal's disposition and this thread's mask are changed only for the
 * duration of the handshake and then restored, which is process-global state for that moment:
 * hence opt-in, never for a library caller that may use the signal itself.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <X11/Xauth.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
        double left = deadline - cx11_now();
        if (left <= 0) {
            close(fd);
            errno = ETIMEDOUT;
            return -1;
        }
        int r = poll(&pfd, 1, cx11_poll_ms(left));
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

/* Local sockets: the abstract name first (what the server listens on in Linux namespaces), then the file. */
static int connect_unix(const char *path, int try_abstract, double deadline) {
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
        double left = deadline - cx11_now();
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

/*
 * TCP: resolve (under the deadline) and connect to the first address that answers. Fills the
 * address used, for the authority lookup.
 */
static int connect_tcp(const char *host, int display, double deadline, struct sockaddr_storage *used) {
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

/* Xauthority family codes (X11/Xauth.h defines FamilyLocal and FamilyWild; these come from X.h). */
enum { CX11_FAMILY_INTERNET = 0, CX11_FAMILY_INTERNET6 = 6 };

/*
 * Find the MIT-MAGIC-COOKIE-1 entry for (family, address, display number) in the authority
 * file, as Xlib and xcb do: exact family and address, or FamilyWild; display number equal or
 * empty. Returns a malloc'd Xauth (XauDisposeAuth it) or NULL when there is none.
 */
static Xauth *find_cookie(const char *authority, unsigned short family, const char *address,
                          unsigned short address_len, int display) {
    const char *file = authority != NULL ? authority : XauFileName();
    if (file == NULL) return NULL;
    FILE *f = fopen(file, "rbe");
    if (f == NULL) return NULL;
    char number[16];
    int number_len = snprintf(number, sizeof number, "%d", display);
    static const char cookie_name[] = "MIT-MAGIC-COOKIE-1";
    Xauth *found = NULL;
    for (Xauth *entry; found == NULL && (entry = XauReadAuth(f)) != NULL;) {
        int family_ok = entry->family == FamilyWild ||
                        (entry->family == family && entry->address_length == address_len &&
                         memcmp(entry->address, address, address_len) == 0);
        int number_ok = entry->number_length == 0 ||
                        (entry->number_length == number_len && memcmp(entry->number, number, (size_t)number_len) == 0);
        int name_ok = entry->name_length == sizeof cookie_name - 1 &&
                      memcmp(entry->name, cookie_name, sizeof cookie_name - 1) == 0;
        if (family_ok && number_ok && name_ok) found = entry;
        else XauDisposeAuth(entry);
    }
    fclose(f);
    return found;
}

/* The authority lookup key: local sockets and loopback TCP use FamilyLocal with our host name. */
static Xauth *cookie_for(const char *authority, const cx11_display_addr *addr, const struct sockaddr_storage *tcp) {
    if (addr->transport == CX11_TRANSPORT_TCP) {
        if (tcp->ss_family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)tcp;
            if ((ntohl(in->sin_addr.s_addr) >> 24) != 127)
                return find_cookie(authority, CX11_FAMILY_INTERNET, (const char *)&in->sin_addr, 4, addr->display);
        } else if (tcp->ss_family == AF_INET6) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)tcp;
            if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
                return find_cookie(authority, CX11_FAMILY_INTERNET6, (const char *)&in6->sin6_addr, 16, addr->display);
        }
    }
    char host[256];
    if (gethostname(host, sizeof host) != 0) return NULL;
    host[sizeof host - 1] = '\0';
    return find_cookie(authority, FamilyLocal, host, (unsigned short)strlen(host), addr->display);
}

/* The watchdog: shuts `fd` down unless `done` is set before `deadline`. */
typedef struct watchdog {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    int fired;
    int fd;
    double deadline;
} watchdog;

static void *watchdog_main(void *arg) {
    watchdog *w = arg;
    pthread_mutex_lock(&w->mutex);
    while (!w->done) {
        double left = w->deadline - cx11_now();
        if (left <= 0) {
            w->fired = 1;
            shutdown(w->fd, SHUT_RDWR);
            break;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long long ns = until.tv_nsec + (long long)(left * 1e9);
        until.tv_sec += (time_t)(ns / 1000000000LL);
        until.tv_nsec = (long)(ns % 1000000000LL);
        pthread_cond_timedwait(&w->cond, &w->mutex, &until);
    }
    pthread_mutex_unlock(&w->mutex);
    return NULL;
}

/* The result of a setup handshake: the connection, or why not (`timed_out`: our bound cut it). */
static cx11_status setup_outcome(xcb_connection_t *c, int timed_out, const char *display, xcb_connection_t **out,
                                 cx11_error *err) {
    int conn_error = xcb_connection_has_error(c);
    if (timed_out) {
        xcb_disconnect(c);
        return cx11_fail(err, CX11_NO_DISPLAY, ETIMEDOUT, "display %.64s accepted the connection but did not answer in time", display);
    }
    if (conn_error != 0) {
        xcb_disconnect(c);
        return cx11_fail(err, CX11_NO_DISPLAY, 0,
                         "display %.64s refused the connection setup (xcb error %d; authorization?)", display, conn_error);
    }
    *out = c;
    return CX11_OK;
}

/* Run the X setup on fd (consumed) under the deadline. */
static cx11_status setup_with_deadline(int fd, xcb_auth_info_t *auth, double deadline, const char *display,
                                       xcb_connection_t **out, cx11_error *err) {
    watchdog w = {.done = 0, .fired = 0, .deadline = deadline};
    w.fd = dup(fd);
    if (w.fd < 0) {
        int saved = errno;
        close(fd);
        return cx11_fail(err, CX11_FAILED, saved, "dup: %s", strerror(saved));
    }
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w.cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&w.mutex, NULL);
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, watchdog_main, &w);
    if (rc != 0) {
        close(w.fd);
        close(fd);
        pthread_cond_destroy(&w.cond);
        pthread_mutex_destroy(&w.mutex);
        return cx11_fail(err, CX11_FAILED, rc, "pthread_create: %s", strerror(rc));
    }
    xcb_connection_t *c = xcb_connect_to_fd(fd, auth);
    pthread_mutex_lock(&w.mutex);
    w.done = 1;
    pthread_cond_signal(&w.cond);
    pthread_mutex_unlock(&w.mutex);
    pthread_join(thread, NULL);
    close(w.fd);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.mutex);

    return setup_outcome(c, w.fired, display, out, err);
}

/* The timer signal's handler: shut down the socket whose dup the timer carries. */
static void shut_socket_down(int sig, siginfo_t *info, void *context) {
    (void)sig;
    (void)context;
    shutdown(info->si_value.sival_int, SHUT_RDWR);
}

/* Run the X setup on fd (consumed), bounded by a timer signal to this thread at the deadline. */
static cx11_status setup_with_timer_signal(int fd, xcb_auth_info_t *auth, double deadline, const char *display,
                                           xcb_connection_t **out, cx11_error *err) {
    const int sig = SIGRTMIN + 3;
    int watched = dup(fd);
    if (watched < 0) return setup_with_deadline(fd, auth, deadline, display, out, err);
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = sig;
    event.sigev_value.sival_int = watched;
    event._sigev_un._tid = gettid();
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
        close(watched);
        return setup_with_deadline(fd, auth, deadline, display, out, err); /* no timer: a thread, then */
    }
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = shut_socket_down;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, &previous);
    sigset_t unblock, mask;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, &mask);

    /* A deadline already past still arms the timer: it fires at once. */
    double at = deadline > 1e-6 ? deadline : 1e-6;
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    when.it_value.tv_sec = (time_t)at;
    when.it_value.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
    xcb_connection_t *c = NULL;
    if (timer_settime(timer, TIMER_ABSTIME, &when, NULL) == 0) c = xcb_connect_to_fd(fd, auth);
    timer_delete(timer); /* the signal is unblocked until here, so none is left pending */
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    sigaction(sig, &previous, NULL);
    close(watched);
    if (c == NULL) return setup_with_deadline(fd, auth, deadline, display, out, err);
    return setup_outcome(c, xcb_connection_has_error(c) && cx11_now() >= deadline, display, out, err);
}

cx11_status cx11_connect(const char *display, const char *authority, double deadline, int flags,
                         xcb_connection_t **out, int *screen, cx11_error *err) {
    if (display == NULL || *display == '\0') display = getenv("DISPLAY");
    cx11_display_addr addr;
    cx11_status st = cx11_parse_display(display, &addr, err);
    if (st != CX11_OK) return st;

    struct sockaddr_storage tcp;
    memset(&tcp, 0, sizeof tcp);
    int fd;
    switch (addr.transport) {
    case CX11_TRANSPORT_UNIX: fd = connect_unix(addr.path, 1, deadline); break;
    case CX11_TRANSPORT_PATH: fd = connect_unix(addr.path, 0, deadline); break;
    default: fd = connect_tcp(addr.host, addr.display, deadline, &tcp); break;
    }
    if (fd < 0) {
        int saved = errno;
        if (saved == ETIMEDOUT && addr.transport == CX11_TRANSPORT_TCP)
            return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: looking up or connecting to the host timed out", display);
        if (saved == ETIMEDOUT)
            return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: connect timed out", display);
        if (saved == EHOSTUNREACH && addr.transport == CX11_TRANSPORT_TCP)
            return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: cannot resolve or reach the host", display);
        return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: %s", display, strerror(saved));
    }

    Xauth *cookie = cookie_for(authority, &addr, &tcp);
    xcb_auth_info_t auth = {0};
    if (cookie != NULL) {
        auth.name = cookie->name;
        auth.namelen = cookie->name_length;
        auth.data = cookie->data;
        auth.datalen = cookie->data_length;
    }
    if (flags & CX11_CONNECT_TIMER_SIGNAL)
        st = setup_with_timer_signal(fd, cookie != NULL ? &auth : NULL, deadline, display, out, err);
    else
        st = setup_with_deadline(fd, cookie != NULL ? &auth : NULL, deadline, display, out, err);
    if (cookie != NULL) XauDisposeAuth(cookie);
    if (st == CX11_OK) *screen = addr.screen;
    return st;
}

cx11_status cx11_probe(const char *display, const char *authority, double timeout, cx11_error *err) {
    xcb_connection_t *c = NULL;
    int screen = 0;
    cx11_status st = cx11_connect(display, authority, cx11_now() + timeout, 0, &c, &screen, err);
    if (st == CX11_OK) xcb_disconnect(c);
    return st;
}
