/*
 * Taking a selection: own it, confirm it, then leave a detached process serving it.
 *
 * The caller keeps only what it needs to report success. The fork follows the detached-owner
 * rules of COwnerProcess (ud_owner.h): once for a caller about to exit, else twice so that the
 * server is reparented rather than left as the caller's zombie.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include "ud_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

/* Take the selection with our window at `acquired` and confirm it with the server before the
 * deadline: CX11_OK, CX11_TIMED_OUT, CX11_NO_DISPLAY (the server went away) or CX11_NOT_OWNER. */
static cx11_status take_selection(cx11_session *s, xcb_atom_t selection, xcb_timestamp_t acquired, double deadline,
                                  cx11_error *err) {
    xcb_set_selection_owner(s->c, s->window, selection, acquired);
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(s->c, selection);
    cx11_wait why;
    xcb_get_selection_owner_reply_t *reply = cx11_reply(s->c, ck.sequence, deadline, &why);
    int mine = reply != NULL && reply->owner == s->window;
    free(reply);
    if (mine) return CX11_OK;
    if (why == CX11_WAIT_TIMED_OUT)
        return cx11_fail(err, CX11_TIMED_OUT, 0, "the X server did not confirm ownership in time");
    if (xcb_connection_has_error(s->c)) return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
    return cx11_fail(err, CX11_NOT_OWNER, 0, "SetSelectionOwner did not make us the owner");
}

/* The error for a fork that left no serving process. */
static cx11_status fork_failure(ud_owner_status st, int saved, cx11_error *err) {
    const char *what = st == UD_OWNER_PIPE_FAILED          ? "pipe"
                       : st == UD_OWNER_SERVER_FORK_FAILED ? "fork of the selection server failed"
                                                           : "fork";
    return cx11_fail(err, CX11_FAILED, saved, "%s: %s", what, ud_strerror(saved).text);
}

cx11_status cx11_own(const cx11_own_options *options, const uint8_t *bytes, size_t len,
                     pid_t *owner_pid, cx11_error *err) {
    double deadline = ud_now() + options->connect_timeout;
    /* A serving process of ours takes the content over a local socket: no connection setup, no
     * fork. It gets half the connect budget, so falling back still fits in the rest. */
    if (options->reuse_owner && !options->new_owner &&
        cx11_resident_offer(options, bytes, len, ud_now() + options->connect_timeout / 2, owner_pid))
        return CX11_OK;
    cx11_session s;
    xcb_timestamp_t acquired = 0;
    cx11_status st = cx11_session_open(&s, options->display, options->authority, deadline, &acquired, err);
    if (st != CX11_OK) return st;
    xcb_atom_t selection = cx11_selection_atom(&s, options->selection);
    st = take_selection(&s, selection, acquired, deadline, err);
    if (st != CX11_OK) goto close;

    int saved = 0;
    pid_t server = -1;
    ud_owner_status forked = ud_owner_fork(options->single_fork ? UD_OWNER_FORK_ONCE : UD_OWNER_FORK_TWICE,
                                           &server, &saved);
    if (forked == UD_OWNER_IN_SERVER) {
        /* C only from here. */
        cx11_serve_config config = {
            .session = s, .selection = selection, .acquired = acquired,
            .bytes = bytes, .len = len, .options = options,
        };
        cx11_serve(&config);
    }
    if (forked != UD_OWNER_OK) {
        st = fork_failure(forked, saved, err);
        /* Give the selection back (only if it is still ours: `acquired` is our own timestamp). */
        xcb_set_selection_owner(s.c, XCB_NONE, selection, acquired);
        xcb_flush(s.c);
        goto close;
    }
    release_shared_connection(s.c);
    *owner_pid = server;
    return CX11_OK;
close:
    cx11_session_close(&s);
    return st;
}
