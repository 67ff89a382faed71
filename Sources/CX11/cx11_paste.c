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

/* Append n bytes, growing by doubling; 0 when out of memory (b unchanged). */
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

/* Why a wait while reading failed, as a status with a message naming `what` was awaited. */
static cx11_status lost(cx11_wait why, const char *what, cx11_error *err) {
    if (why == CX11_WAIT_TIMED_OUT)
        return cx11_fail(err, CX11_TIMED_OUT, 0, "the selection owner did not answer %s in time", what);
    if (why == CX11_WAIT_CLOSED) return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
    return cx11_fail(err, CX11_FAILED, 0, "X error while reading the selection (%s)", what);
}

/* GetProperty with delete on our window; the reply (free it) or NULL with *why. */
static xcb_get_property_reply_t *take_property(cx11_session *s, xcb_atom_t property, double deadline, cx11_wait *why) {
    xcb_get_property_cookie_t ck = xcb_get_property(s->c, 1, s->window, property, XCB_GET_PROPERTY_TYPE_ANY, 0,
                                                    UINT32_MAX / 4);
    return cx11_reply(s->c, ck.sequence, deadline, why);
}

/* Wait for the owner's next chunk: a PropertyNotify NewValue of our property. 1, or 0 with *why. */
static int wait_new_value(cx11_session *s, xcb_atom_t property, double deadline, cx11_wait *why) {
    for (;;) {
        xcb_generic_event_t *ev = cx11_wait_event(s->c, deadline, why);
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

/* An INCR series: chunks appended to out until the empty one, each within `timeout` of the last. */
static cx11_status read_incr(cx11_session *s, xcb_atom_t property, uint32_t size_hint, double timeout,
                             buffer *out, cx11_error *err) {
    if (size_hint > 0 && size_hint < UINT32_MAX) {
        out->bytes = malloc(size_hint);
        if (out->bytes != NULL) out->cap = size_hint;
    }
    for (;;) {
        cx11_wait why;
        if (!wait_new_value(s, property, cx11_now() + timeout, &why)) return lost(why, "the next INCR chunk", err);
        xcb_get_property_reply_t *r = take_property(s, property, cx11_now() + timeout, &why);
        if (r == NULL) return lost(why, "GetProperty", err);
        int n = xcb_get_property_value_length(r);
        int ok = buffer_append(out, xcb_get_property_value(r), (size_t)n);
        free(r);
        if (!ok) return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory reading the selection");
        if (n == 0) return CX11_OK;
    }
}

/* The atom named `target`, interned under the deadline. */
static cx11_status intern_target(cx11_session *s, const char *target, double deadline, xcb_atom_t *atom,
                                 cx11_error *err) {
    xcb_intern_atom_cookie_t ck = xcb_intern_atom(s->c, 0, (uint16_t)strlen(target), target);
    cx11_wait why;
    xcb_intern_atom_reply_t *reply = cx11_reply(s->c, ck.sequence, deadline, &why);
    if (reply == NULL) return lost(why, "InternAtom", err);
    *atom = reply->atom;
    free(reply);
    return CX11_OK;
}

/* Wait for the SelectionNotify that answers our ConvertSelection of `sel`: *answered is the
 * property it names (None: refused, or nobody to ask). */
static cx11_status wait_answer(cx11_session *s, xcb_atom_t sel, double deadline, xcb_atom_t *answered,
                               cx11_error *err) {
    for (;;) {
        cx11_wait why;
        xcb_generic_event_t *ev = cx11_wait_event(s->c, deadline, &why);
        if (ev == NULL) return lost(why, "ConvertSelection", err);
        int done = 0;
        if ((ev->response_type & 0x7f) == XCB_SELECTION_NOTIFY) {
            xcb_selection_notify_event_t *sn = (xcb_selection_notify_event_t *)ev;
            done = sn->requestor == s->window && sn->selection == sel;
            if (done) *answered = sn->property;
        }
        free(ev);
        if (done) return CX11_OK;
    }
}

/* A refused conversion: refused, or nobody to ask? Callers fall back to another target only in
 * the first case. The owner was asked in the same flight as the conversion (request
 * `owner_sequence`), so they describe one moment. */
static cx11_status refusal(cx11_session *s, unsigned int owner_sequence, double deadline, const char *target,
                           cx11_error *err) {
    xcb_get_selection_owner_reply_t *owner = cx11_reply(s->c, owner_sequence, deadline, NULL);
    int nobody = owner != NULL && owner->owner == XCB_NONE;
    free(owner);
    if (nobody) return cx11_fail(err, CX11_NO_OWNER, 0, "the selection has no owner");
    return cx11_fail(err, CX11_NO_CONTENT, 0, "the selection owner refused target %.80s", target);
}

/* Read the answer from `property`: its value, or the INCR series it announces. */
static cx11_status read_answer(cx11_session *s, xcb_atom_t property, double timeout, buffer *result,
                               cx11_error *err) {
    cx11_wait why;
    xcb_get_property_reply_t *r = take_property(s, property, cx11_now() + timeout, &why);
    if (r == NULL) return lost(why, "GetProperty", err);
    cx11_status st = CX11_OK;
    if (r->type == s->atoms[CX11_A_INCR]) {
        uint32_t hint = xcb_get_property_value_length(r) >= 4 ? *(uint32_t *)xcb_get_property_value(r) : 0;
        free(r);
        return read_incr(s, property, hint, timeout, result, err);
    }
    if (r->type == XCB_NONE)
        st = cx11_fail(err, CX11_NO_CONTENT, 0, "the owner announced property but did not set it");
    else if (!buffer_append(result, xcb_get_property_value(r), (size_t)xcb_get_property_value_length(r)))
        st = cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory reading the selection");
    free(r);
    return st;
}

cx11_status cx11_paste(const char *display, const char *authority, cx11_selection selection,
                       const char *target, double timeout, double connect_timeout, int caller_owns_process,
                       uint8_t **out, size_t *out_len, cx11_error *err) {
    *out = NULL;
    *out_len = 0;
    if (target == NULL || *target == '\0') return cx11_fail(err, CX11_UNSUPPORTED, 0, "empty target name");
    double start = cx11_now(), deadline = start + timeout;
    double connected_by = connect_timeout > 0 && connect_timeout < timeout ? start + connect_timeout : deadline;
    cx11_session s;
    xcb_timestamp_t now = 0;
    int flags = caller_owns_process ? CX11_CONNECT_TIMER_SIGNAL : 0;
    cx11_status st = cx11_session_open(&s, display, authority, connected_by, flags, &now, err);
    if (st != CX11_OK) return st;
    buffer result = {0};
    xcb_atom_t target_atom = XCB_NONE, property = s.atoms[CX11_A_PROPERTY], answered = XCB_NONE;
    st = intern_target(&s, target, deadline, &target_atom, err);
    if (st != CX11_OK) goto done;
    xcb_atom_t sel = cx11_selection_atom(&s, selection);
    xcb_get_selection_owner_cookie_t oc = xcb_get_selection_owner(s.c, sel);
    xcb_convert_selection(s.c, s.window, sel, target_atom, property, now);
    st = wait_answer(&s, sel, deadline, &answered, err);
    if (st == CX11_OK && answered == XCB_NONE) st = refusal(&s, oc.sequence, deadline, target, err);
    if (st != CX11_OK) goto done;
    xcb_discard_reply(s.c, oc.sequence);
    st = read_answer(&s, answered, timeout, &result, err);
done:
    cx11_session_close(&s);
    if (st != CX11_OK) {
        free(result.bytes);
        return st;
    }
    *out = result.bytes;
    *out_len = result.len;
    return CX11_OK;
}
