/* Reading a selection: ConvertSelection, then one property or an INCR series of them. */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the bytes read go: a growing buffer, or a descriptor that takes them as they come
 * (fd >= 0), converted from Latin-1 to UTF-8 on the way when latin1 is set. `received` counts
 * the bytes the owner sent, for the deadline of the whole read (`start`, `total`). */
typedef struct sink {
    int fd;
    int latin1;
    size_t written;
    uint8_t *bytes;
    size_t len, cap;
    size_t received;
    double start, total;
} sink;

/* Write all n bytes to fd, retrying short writes and EINTR: CX11_OK or CX11_FAILED. */
static cx11_status write_out(sink *k, const uint8_t *data, size_t n, cx11_error *err) {
    while (n > 0) {
        ssize_t w = write(k->fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            int saved = errno;
            return cx11_fail(err, CX11_FAILED, saved, "writing the content out: %s", ud_strerror(saved).text);
        }
        data += w;
        n -= (size_t)w;
        k->written += (size_t)w;
    }
    return CX11_OK;
}

/* Latin-1 to UTF-8, a slice at a time through a buffer on the stack. */
static cx11_status write_latin1(sink *k, const uint8_t *data, size_t n, cx11_error *err) {
    uint8_t out[8192];
    while (n > 0) {
        size_t used = 0, i = 0;
        for (; i < n && used + 2 <= sizeof out; i++) {
            if (data[i] < 0x80) {
                out[used++] = data[i];
            } else {
                out[used++] = (uint8_t)(0xC0 | (data[i] >> 6));
                out[used++] = (uint8_t)(0x80 | (data[i] & 0x3F));
            }
        }
        cx11_status st = write_out(k, out, used, err);
        if (st != CX11_OK) return st;
        data += i;
        n -= i;
    }
    return CX11_OK;
}

/* Take n bytes: written out, or appended (growing by doubling). */
static cx11_status sink_put(sink *k, const void *data, size_t n, cx11_error *err) {
    if (n == 0) return CX11_OK;
    k->received += n;
    if (k->fd >= 0) return k->latin1 ? write_latin1(k, data, n, err) : write_out(k, data, n, err);
    if (k->len + n > k->cap) {
        size_t cap = k->cap ? k->cap : 4096;
        while (cap < k->len + n) cap *= 2;
        uint8_t *grown = realloc(k->bytes, cap);
        if (grown == NULL) return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory reading the selection");
        k->bytes = grown;
        k->cap = cap;
    }
    memcpy(k->bytes + k->len, data, n);
    k->len += n;
    return CX11_OK;
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

/* When the whole read must be over: `total` seconds after it started, and one second more for
 * each UD_PASTE_RATE bytes received. */
static double overall_deadline(const sink *k) {
    return k->start + k->total + (double)k->received / UD_PASTE_RATE;
}

/* The next wait of an INCR series: `timeout` from now, or the overall deadline when sooner
 * (*overall then set). */
static double next_deadline(const sink *k, double timeout, int *overall) {
    double step = ud_now() + timeout, whole = overall_deadline(k);
    *overall = whole <= step;
    return *overall ? whole : step;
}

/* A wait that failed in an INCR series: past the overall deadline, the owner was too slow. */
static cx11_status lost_incr(cx11_wait why, int overall, const sink *k, const char *what, cx11_error *err) {
    if (why != CX11_WAIT_TIMED_OUT || !overall) return lost(why, what, err);
    return cx11_fail(err, CX11_TOO_SLOW, ETIMEDOUT,
                     "the selection owner sent %zu bytes in %.0f s, too slowly: a paste may take %.0f s "
                     "and 1 s more per 256 KiB received",
                     k->received, ud_now() - k->start, k->total);
}

/* An INCR series: chunks to out until the empty one, each within `timeout` of the last, all
 * within the overall deadline. */
static cx11_status read_incr(cx11_session *s, xcb_atom_t property, uint32_t size_hint, double timeout,
                             sink *out, cx11_error *err) {
    if (out->fd < 0 && size_hint > 0 && size_hint < UINT32_MAX) {
        out->bytes = malloc(size_hint);
        if (out->bytes != NULL) out->cap = size_hint;
    }
    for (;;) {
        cx11_wait why;
        int overall = 0;
        if (!wait_new_value(s, property, next_deadline(out, timeout, &overall), &why))
            return lost_incr(why, overall, out, "the next INCR chunk", err);
        xcb_get_property_reply_t *r = take_property(s, property, next_deadline(out, timeout, &overall), &why);
        if (r == NULL) return lost_incr(why, overall, out, "GetProperty", err);
        int n = xcb_get_property_value_length(r);
        cx11_status st = sink_put(out, xcb_get_property_value(r), (size_t)n, err);
        free(r);
        if (st != CX11_OK) return st;
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
static cx11_status read_answer(cx11_session *s, xcb_atom_t property, double timeout, sink *result,
                               cx11_error *err) {
    cx11_wait why;
    xcb_get_property_reply_t *r = take_property(s, property, ud_now() + timeout, &why);
    if (r == NULL) return lost(why, "GetProperty", err);
    cx11_status st = CX11_OK;
    if (r->type == s->atoms[CX11_A_INCR]) {
        uint32_t hint = xcb_get_property_value_length(r) >= 4 ? *(uint32_t *)xcb_get_property_value(r) : 0;
        free(r);
        return read_incr(s, property, hint, timeout, result, err);
    }
    if (r->type == XCB_NONE)
        st = cx11_fail(err, CX11_NO_CONTENT, 0, "the owner announced property but did not set it");
    else
        st = sink_put(result, xcb_get_property_value(r), (size_t)xcb_get_property_value_length(r), err);
    free(r);
    return st;
}

/* Read `selection` as `target` into k (see cx11_paste). */
static cx11_status paste_into(const char *display, const char *authority, cx11_selection selection,
                              const char *target, const cx11_paste_times *times, sink *k,
                              cx11_error *err) {
    if (target == NULL || *target == '\0') return cx11_fail(err, CX11_UNSUPPORTED, 0, "empty target name");
    double timeout = times->timeout, connect_timeout = times->connect_timeout;
    double start = ud_now(), deadline = start + timeout;
    k->start = start;
    k->total = times->total > timeout ? times->total : timeout;
    double connected_by = connect_timeout > 0 && connect_timeout < timeout ? start + connect_timeout : deadline;
    cx11_session s;
    xcb_timestamp_t now = 0;
    cx11_status st = cx11_session_open(&s, display, authority, connected_by, &now, err);
    if (st != CX11_OK) return st;
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
    st = read_answer(&s, answered, timeout, k, err);
done:
    cx11_session_close(&s);
    return st;
}

cx11_status cx11_paste(const char *display, const char *authority, cx11_selection selection,
                       const char *target, const cx11_paste_times *times, uint8_t **out,
                       size_t *out_len, cx11_error *err) {
    *out = NULL;
    *out_len = 0;
    sink k = {.fd = -1};
    cx11_status st = paste_into(display, authority, selection, target, times, &k, err);
    if (st != CX11_OK) {
        free(k.bytes);
        return st;
    }
    *out = k.bytes;
    *out_len = k.len;
    return CX11_OK;
}

cx11_status cx11_paste_to_fd(const char *display, const char *authority, cx11_selection selection,
                             const char *target, const cx11_paste_times *times, int out_fd,
                             int latin1_to_utf8, size_t *written, cx11_error *err) {
    *written = 0;
    if (out_fd < 0) return cx11_fail(err, CX11_UNSUPPORTED, EBADF, "no descriptor to write the content to");
    sink k = {.fd = out_fd, .latin1 = latin1_to_utf8 != 0};
    cx11_status st = paste_into(display, authority, selection, target, times, &k, err);
    *written = k.written;
    return st;
}
