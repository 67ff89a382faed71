/*
 * The X setup handshake with a deadline.
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
 */
#define _GNU_SOURCE
#include "cx11_connect.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The watchdog: shuts `fd` down unless `done` is set before `deadline`. */
typedef struct watchdog {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    int fired;
    int fd;
    double deadline;
} watchdog;

/* The watchdog thread: waits for `done` until the deadline, then shuts the socket down. */
static void *watchdog_main(void *arg) {
    watchdog *w = arg;
    pthread_mutex_lock(&w->mutex);
    while (!w->done) {
        double left = w->deadline - ud_now();
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

cx11_status cx11_setup(int fd, xcb_auth_info_t *auth, double deadline, const char *display, xcb_connection_t **out,
                       cx11_error *err) {
    watchdog w = {.done = 0, .fired = 0, .deadline = deadline};
    w.fd = dup(fd);
    if (w.fd < 0) {
        int saved = errno;
        close(fd);
        return cx11_fail(err, CX11_FAILED, saved, "dup: %s", ud_strerror(saved).text);
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
        return cx11_fail(err, CX11_FAILED, rc, "pthread_create: %s", ud_strerror(rc).text);
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
