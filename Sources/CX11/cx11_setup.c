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
#include "cx11_connect.h"
#include "ud_disable.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
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

/* Run the X setup on fd (consumed) under the deadline. */
static cx11_status setup_with_deadline(int fd, xcb_auth_info_t *auth, double deadline, const char *display,
                                       xcb_connection_t **out, cx11_error *err) {
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
    return setup_outcome(c, xcb_connection_has_error(c) && ud_now() >= deadline, display, out, err);
}

cx11_status cx11_setup(int fd, xcb_auth_info_t *auth, double deadline, int flags, const char *display,
                       xcb_connection_t **out, cx11_error *err) {
    if ((flags & CX11_CONNECT_TIMER_SIGNAL) && !ud_disabled(UD_MECH_TIMER_CONNECT))
        return setup_with_timer_signal(fd, auth, deadline, display, out, err);
    return setup_with_deadline(fd, auth, deadline, display, out, err);
}
