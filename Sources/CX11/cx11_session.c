/* Errors, waiting for the X connection with deadlines, and the session every entry point starts
 * with (the clock and the error text are CShared's ud_shared.h). */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcbext.h>

cx11_status cx11_fail(cx11_error *err, cx11_status status, int errno_value, const char *fmt, ...) {
    if (err == NULL) return status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    ud_error_vset(&err->sys_errno, err->message, sizeof err->message, errno_value, fmt, ap);
    va_end(ap);
    return status;
}

/* Wait for the X connection to become readable: CX11_WAIT_OK, or why it will not be. */
static cx11_wait wait_readable(xcb_connection_t *c, double deadline) {
    if (xcb_connection_has_error(c)) return CX11_WAIT_CLOSED;
    int r = ud_wait_fd(xcb_get_file_descriptor(c), POLLIN, deadline);
    return r > 0 ? CX11_WAIT_OK : r == 0 ? CX11_WAIT_TIMED_OUT : CX11_WAIT_FAILED;
}

void *cx11_reply(xcb_connection_t *c, unsigned int sequence, double deadline, cx11_wait *why) {
    cx11_wait ignored, *outcome = why != NULL ? why : &ignored;
    xcb_flush(c);
    for (;;) {
        void *reply = NULL;
        xcb_generic_error_t *xerr = NULL;
        if (xcb_poll_for_reply(c, sequence, &reply, &xerr)) { /* reply, error, or neither */
            *outcome = reply != NULL ? CX11_WAIT_OK : xcb_connection_has_error(c) ? CX11_WAIT_CLOSED : CX11_WAIT_FAILED;
            free(xerr);
            return reply;
        }
        *outcome = wait_readable(c, deadline);
        if (*outcome != CX11_WAIT_OK) return NULL;
    }
}

xcb_generic_event_t *cx11_wait_event(xcb_connection_t *c, double deadline, cx11_wait *why) {
    xcb_flush(c);
    for (;;) {
        xcb_generic_event_t *ev = xcb_poll_for_event(c);
        if (ev != NULL) {
            *why = CX11_WAIT_OK;
            return ev;
        }
        *why = wait_readable(c, deadline);
        if (*why != CX11_WAIT_OK) return NULL;
    }
}

xcb_atom_t cx11_selection_atom(const cx11_session *s, cx11_selection selection) {
    return selection == CX11_PRIMARY ? XCB_ATOM_PRIMARY : s->atoms[CX11_A_CLIPBOARD];
}

static const char *const atom_names[CX11_A_COUNT] = {
    [CX11_A_CLIPBOARD] = "CLIPBOARD",
    [CX11_A_TARGETS] = "TARGETS",
    [CX11_A_TIMESTAMP] = "TIMESTAMP",
    [CX11_A_MULTIPLE] = "MULTIPLE",
    [CX11_A_ATOM_PAIR] = "ATOM_PAIR",
    [CX11_A_INCR] = "INCR",
    [CX11_A_UTF8_STRING] = "UTF8_STRING",
    [CX11_A_TEXT_PLAIN_UTF8] = "text/plain;charset=utf-8",
    [CX11_A_TEXT] = "TEXT",
    [CX11_A_JSON] = "application/json",
    [CX11_A_OCTET_STREAM] = "application/octet-stream",
    [CX11_A_KDE_HINT] = "x-kde-passwordManagerHint",
    [CX11_A_COPYQ_HIDDEN] = "application/x-copyq-hidden",
    [CX11_A_CLIPBOARD_MANAGER] = "CLIPBOARD_MANAGER",
    [CX11_A_SAVE_TARGETS] = "SAVE_TARGETS",
    [CX11_A_PROPERTY] = "_USERDEBUG_SELECTION",
};

/* While opening, a server that stops answering is no display at all. */
static cx11_status timeout_or_lost(cx11_wait why, const char *what, cx11_error *err) {
    if (why == CX11_WAIT_TIMED_OUT)
        return cx11_fail(err, CX11_NO_DISPLAY, ETIMEDOUT, "the X server did not answer %s in time", what);
    if (why == CX11_WAIT_CLOSED) return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
    return cx11_fail(err, CX11_FAILED, 0, "X error while %s", what);
}

/* Our root window: that of the screen the DISPLAY string names. 0 when the display has none. */
static int find_root(cx11_session *s, int screen_number) {
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(s->c));
    for (int i = 0; i < screen_number && it.rem > 0; i++) xcb_screen_next(&it);
    if (it.rem == 0) return 0;
    s->root = it.data->root;
    return 1;
}

/* The timestamp: the time of the PropertyNotify that our zero-length append caused. */
static cx11_wait wait_timestamp(cx11_session *s, double deadline, xcb_timestamp_t *timestamp) {
    for (;;) {
        cx11_wait why;
        xcb_generic_event_t *ev = cx11_wait_event(s->c, deadline, &why);
        if (ev == NULL) return why;
        int hit = 0;
        if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
            xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *)ev;
            hit = pn->window == s->window && pn->atom == XCB_ATOM_WM_NAME;
            if (hit) *timestamp = pn->time;
        }
        free(ev);
        if (hit) return CX11_WAIT_OK;
    }
}

cx11_status cx11_session_open(cx11_session *s, const char *display, const char *authority,
                              double deadline, xcb_timestamp_t *timestamp, cx11_error *err) {
    memset(s, 0, sizeof *s);
    int screen_number = 0;
    cx11_status st = cx11_connect(display, authority, deadline, &s->c, &screen_number, err);
    if (st != CX11_OK) return st;
    if (!find_root(s, screen_number)) {
        st = cx11_fail(err, CX11_NO_DISPLAY, 0, "the display has no screen %d", screen_number);
        goto fail;
    }

    /* One flight: every InternAtom, our window, and the zero-length append that yields a timestamp. */
    xcb_intern_atom_cookie_t cookies[CX11_A_COUNT];
    for (int i = 0; i < CX11_A_COUNT; i++)
        cookies[i] = xcb_intern_atom(s->c, 0, (uint16_t)strlen(atom_names[i]), atom_names[i]);
    s->window = xcb_generate_id(s->c);
    uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
    xcb_create_window(s->c, 0, s->window, s->root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY,
                      XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &mask);
    xcb_change_property(s->c, XCB_PROP_MODE_APPEND, s->window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 0, "");

    cx11_wait why = CX11_WAIT_OK;
    for (int i = 0; i < CX11_A_COUNT; i++) {
        xcb_intern_atom_reply_t *reply = cx11_reply(s->c, cookies[i].sequence, deadline, &why);
        if (reply == NULL) {
            st = timeout_or_lost(why, "InternAtom", err);
            goto fail;
        }
        s->atoms[i] = reply->atom;
        free(reply);
    }
    why = wait_timestamp(s, deadline, timestamp);
    if (why == CX11_WAIT_OK) return CX11_OK;
    st = timeout_or_lost(why, "the timestamp request", err);
fail:
    cx11_session_close(s);
    return st;
}

void cx11_session_close(cx11_session *s) {
    if (s->c != NULL) xcb_disconnect(s->c);
    s->c = NULL;
}

void cx11_free(void *buffer) { free(buffer); }
