/* Reading a selection: ConvertSelection, then one property or an INCR series of them. */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A growing byte buffer. */
typedef struct buffer {
    uint8_t *bytes;
    size_t len, cap;
} buffer;

static int buffer_append(buffer *b, const void *data, size_t n) {
    if (n == 0) return 1;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        uint8_t *grown = realloc(b->bytes, cap);
        if (grown == NULL) return 0;
        b->bytes = grown;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, data, n);
    b->len += n;
    return 1;
}

static cx11_status lost(cx11_session *s, int timed_out, const char *what, cx11_error *err) {
    if (timed_out) return cx11_fail(err, CX11_TIMED_OUT, 0, "the selection owner did not answer %s in time", what);
    if (xcb_connection_has_error(s->c)) return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
    return cx11_fail(err, CX11_FAILED, 0, "X error while reading the selection (%s)", what);
}

/* GetProperty with delete on our window; the reply (free it) or NULL. */
static xcb_get_property_reply_t *take_property(cx11_session *s, xcb_atom_t property, double deadline, int *timed_out) {
    xcb_get_property_cookie_t ck = xcb_get_property(s->c, 1, s->window, property, XCB_GET_PROPERTY_TYPE_ANY, 0,
                                                    UINT32_MAX / 4);
    xcb_generic_error_t *xerr = NULL;
    xcb_get_property_reply_t *r = cx11_wait_reply(s->c, ck.sequence, deadline, &xerr, timed_out);
    free(xerr);
    return r;
}

/* Wait for the owner's next chunk: a PropertyNotify NewValue of our property. */
static int wait_new_value(cx11_session *s, xcb_atom_t property, double deadline, int *timed_out) {
    for (;;) {
        xcb_generic_event_t *ev = cx11_wait_event(s->c, deadline, timed_out);
        if (ev == NULL) return 0;
        int hit = 0;
        if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
            xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *)ev;
            hit = pn->window == s->window && pn->atom == property && pn->state == XCB_PROPERTY_NEW_VALUE;
        }
        free(ev);
        if (hit) return 1;
    }
}

static cx11_status read_incr(cx11_session *s, xcb_atom_t property, uint32_t size_hint, double timeout,
                             buffer *out, cx11_error *err) {
    if (size_hint > 0 && size_hint < UINT32_MAX) {
        out->bytes = malloc(size_hint);
        if (out->bytes != NULL) out->cap = size_hint;
    }
    for (;;) {
        int timed_out = 0;
        if (!wait_new_value(s, property, cx11_now() + timeout, &timed_out))
            return lost(s, timed_out, "the next INCR chunk", err);
        xcb_get_property_reply_t *r = take_property(s, property, cx11_now() + timeout, &timed_out);
        if (r == NULL) return lost(s, timed_out, "GetProperty", err);
        int n = xcb_get_property_value_length(r);
        int ok = buffer_append(out, xcb_get_property_value(r), (size_t)n);
        free(r);
        if (!ok) return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory reading the selection");
        if (n == 0) return CX11_OK;
    }
}

cx11_status cx11_paste(const char *display, const char *authority, cx11_selection selection,
                       const char *target, double timeout, int caller_owns_process, uint8_t **out,
                       size_t *out_len, cx11_error *err) {
    *out = NULL;
    *out_len = 0;
    if (target == NULL || *target == '\0') return cx11_fail(err, CX11_UNSUPPORTED, 0, "empty target name");
    double deadline = cx11_now() + timeout;
    cx11_session s;
    xcb_timestamp_t now = 0;
    int flags = caller_owns_process ? CX11_CONNECT_TIMER_SIGNAL : 0;
    cx11_status st = cx11_session_open(&s, display, authority, deadline, flags, &now, err);
    if (st != CX11_OK) return st;

    xcb_intern_atom_cookie_t ck = xcb_intern_atom(s.c, 0, (uint16_t)strlen(target), target);
    xcb_generic_error_t *xerr = NULL;
    int timed_out = 0;
    xcb_intern_atom_reply_t *atom = cx11_wait_reply(s.c, ck.sequence, deadline, &xerr, &timed_out);
    free(xerr);
    if (atom == NULL) {
        st = lost(&s, timed_out, "InternAtom", err);
        cx11_session_close(&s);
        return st;
    }
    xcb_atom_t target_atom = atom->atom, property = s.atoms[CX11_A_PROPERTY];
    free(atom);
    xcb_atom_t sel = cx11_selection_atom(&s, selection);
    xcb_get_selection_owner_cookie_t oc = xcb_get_selection_owner(s.c, sel);
    xcb_convert_selection(s.c, s.window, sel, target_atom, property, now);

    xcb_atom_t answered = XCB_NONE;
    for (;;) {
        xcb_generic_event_t *ev = cx11_wait_event(s.c, deadline, &timed_out);
        if (ev == NULL) {
            st = lost(&s, timed_out, "ConvertSelection", err);
            cx11_session_close(&s);
            return st;
        }
        int done = 0;
        if ((ev->response_type & 0x7f) == XCB_SELECTION_NOTIFY) {
            xcb_selection_notify_event_t *sn = (xcb_selection_notify_event_t *)ev;
            if (sn->requestor == s.window && sn->selection == sel) {
                answered = sn->property;
                done = 1;
            }
        }
        free(ev);
        if (done) break;
    }
    if (answered == XCB_NONE) {
        /* Refused, or nobody to ask? Callers fall back to another target only in the first case.
         * The owner was asked in the same flight as the conversion, so they describe one moment. */
        xcb_get_selection_owner_reply_t *owner = cx11_wait_reply(s.c, oc.sequence, deadline, &xerr, &timed_out);
        free(xerr);
        int nobody = owner != NULL && owner->owner == XCB_NONE;
        free(owner);
        cx11_session_close(&s);
        if (nobody) return cx11_fail(err, CX11_NO_OWNER, 0, "the selection has no owner");
        return cx11_fail(err, CX11_NO_CONTENT, 0, "the selection owner refused target %.80s", target);
    }
    xcb_discard_reply(s.c, oc.sequence);

    xcb_get_property_reply_t *r = take_property(&s, answered, cx11_now() + timeout, &timed_out);
    if (r == NULL) {
        st = lost(&s, timed_out, "GetProperty", err);
        cx11_session_close(&s);
        return st;
    }
    buffer result = {0};
    if (r->type == s.atoms[CX11_A_INCR]) {
        uint32_t hint = xcb_get_property_value_length(r) >= 4 ? *(uint32_t *)xcb_get_property_value(r) : 0;
        free(r);
        st = read_incr(&s, answered, hint, timeout, &result, err);
    } else if (r->type == XCB_NONE) {
        free(r);
        st = cx11_fail(err, CX11_NO_CONTENT, 0, "the owner announced property but did not set it");
    } else {
        if (!buffer_append(&result, xcb_get_property_value(r), (size_t)xcb_get_property_value_length(r)))
            st = cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory reading the selection");
        free(r);
    }
    cx11_session_close(&s);
    if (st != CX11_OK) {
        free(result.bytes);
        return st;
    }
    *out = result.bytes;
    *out_len = result.len;
    return CX11_OK;
}
