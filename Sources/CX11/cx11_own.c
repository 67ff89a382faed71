/*
 * Taking a selection: own it, confirm it, then leave a detached process serving it.
 *
 * The caller keeps only what it needs to report success. Two forks: the first child starts a
 * new session and forks the server, reports the server's pid over a pipe and exits at once, so
 * the caller reaps it right away and the server is reparented (to init or a subreaper) rather
 * than left as the caller's zombie.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Drop the caller's handle on a connection that a child now serves. xcb_disconnect shuts the
 * socket down (which would cut the child off too), so first point its descriptor at /dev/null:
 * the shutdown then fails harmlessly and only our descriptor is closed.
 */
static void release_shared_connection(xcb_connection_t *c) {
    int fd = xcb_get_file_descriptor(c);
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, fd);
        close(null_fd);
        xcb_disconnect(c);
    } else {
        close(fd); /* cannot neutralise it: leak the xcb structure rather than cut the child off */
    }
}

/* Give the selection back (only if it is still ours: `acquired` is our own timestamp). */
static void give_back(cx11_session *s, xcb_atom_t selection, xcb_timestamp_t acquired) {
    xcb_set_selection_owner(s->c, XCB_NONE, selection, acquired);
    xcb_flush(s->c);
}

cx11_status cx11_own(const cx11_own_options *options, const uint8_t *bytes, size_t len,
                     pid_t *owner_pid, cx11_error *err) {
    double deadline = cx11_now() + options->connect_timeout;
    /* A serving process of ours takes the content over a local socket: no connection setup, no
     * fork. It gets half the connect budget, so falling back still fits in the rest. */
    if (options->reuse_owner && !options->new_owner &&
        cx11_resident_offer(options, bytes, len, cx11_now() + options->connect_timeout / 2, owner_pid))
        return CX11_OK;
    cx11_session s;
    xcb_timestamp_t acquired = 0;
    /* A caller that exits soon owns its process: it may bound the connect with a timer signal,
     * which costs far less than the watchdog thread (cx11_connect.c). */
    int flags = options->single_fork ? CX11_CONNECT_TIMER_SIGNAL : 0;
    cx11_status st = cx11_session_open(&s, options->display, options->authority, deadline, flags, &acquired, err);
    if (st != CX11_OK) return st;

    xcb_atom_t selection = cx11_selection_atom(&s, options->selection);
    xcb_set_selection_owner(s.c, s.window, selection, acquired);
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(s.c, selection);
    xcb_generic_error_t *xerr = NULL;
    int timed_out = 0;
    xcb_get_selection_owner_reply_t *reply = cx11_wait_reply(s.c, ck.sequence, deadline, &xerr, &timed_out);
    free(xerr);
    if (reply == NULL || reply->owner != s.window) {
        free(reply);
        if (timed_out) st = cx11_fail(err, CX11_TIMED_OUT, 0, "the X server did not confirm ownership in time");
        else if (xcb_connection_has_error(s.c)) st = cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
        else st = cx11_fail(err, CX11_NOT_OWNER, 0, "SetSelectionOwner did not make us the owner");
        cx11_session_close(&s);
        return st;
    }
    free(reply);

    if (options->single_fork) {
        /* The child runs in the caller's process group until its setsid(); a terminal closing in
         * that moment (script(1) ending, a terminal window closed right after a copy) sends the
         * group SIGHUP. Ignore it before the fork so the child is never born killable by it; the
         * caller is about to exit, so its own disposition no longer matters. */
        signal(SIGHUP, SIG_IGN);
        pid_t server = fork();
        if (server < 0) {
            int saved = errno;
            give_back(&s, selection, acquired);
            cx11_session_close(&s);
            return cx11_fail(err, CX11_FAILED, saved, "fork: %s", strerror(saved));
        }
        if (server == 0) {
            /* C only from here. */
            setsid();
            cx11_serve_config config = {
                .session = s, .selection = selection, .acquired = acquired,
                .bytes = bytes, .len = len, .options = options,
            };
            cx11_serve(&config);
        }
        release_shared_connection(s.c);
        *owner_pid = server;
        return CX11_OK;
    }

    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        int saved = errno;
        give_back(&s, selection, acquired);
        cx11_session_close(&s);
        return cx11_fail(err, CX11_FAILED, saved, "pipe: %s", strerror(saved));
    }
    pid_t first = fork();
    if (first < 0) {
        int saved = errno;
        close(report[0]);
        close(report[1]);
        give_back(&s, selection, acquired);
        cx11_session_close(&s);
        return cx11_fail(err, CX11_FAILED, saved, "fork: %s", strerror(saved));
    }
    if (first == 0) {
        /* First child: C only from here. */
        close(report[0]);
        setsid();
        pid_t server = fork();
        if (server == 0) {
            close(report[1]);
            cx11_serve_config config = {
                .session = s, .selection = selection, .acquired = acquired,
                .bytes = bytes, .len = len, .options = options,
            };
            cx11_serve(&config);
        }
        /* server < 0 is reported as pid -1 with errno. */
        int32_t message[2] = {(int32_t)server, server < 0 ? errno : 0};
        ssize_t ignored = write(report[1], message, sizeof message);
        (void)ignored;
        _exit(0);
    }

    close(report[1]);
    int32_t message[2] = {-1, 0};
    size_t got = 0;
    while (got < sizeof message) {
        ssize_t n = read(report[0], (char *)message + got, sizeof message - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(report[0]);
    while (waitpid(first, NULL, 0) < 0 && errno == EINTR) {}

    if (got != sizeof message || message[0] <= 0) {
        int saved = got == sizeof message ? message[1] : EPIPE;
        give_back(&s, selection, acquired);
        cx11_session_close(&s);
        return cx11_fail(err, CX11_FAILED, saved, "fork of the selection server failed: %s", strerror(saved));
    }
    release_shared_connection(s.c);
    *owner_pid = (pid_t)message[0];
    return CX11_OK;
}
