/* Answering a SelectionRequest: one target, or each pair of a MULTIPLE; then the SelectionNotify. */
#define _GNU_SOURCE
#include "cx11_request.h"

#include <stdlib.h>
#include <string.h>

/* SendEvent always copies 32 bytes; xcb's struct is the 24-byte head of that wire event. */
typedef union cx11_wire_event {
    xcb_selection_notify_event_t notify;
    char bytes[32];
} cx11_wire_event;
_Static_assert(sizeof(xcb_selection_notify_event_t) <= 32, "SelectionNotify fits the 32-byte wire event");
_Static_assert(sizeof(cx11_wire_event) == 32, "SendEvent reads exactly 32 bytes");

/* Tell the requestor its answer is in `property` (None: refused). */
static void notify(const cx11_link *x, const xcb_selection_request_event_t *req, xcb_atom_t property) {
    cx11_wire_event ev;
    memset(&ev, 0, sizeof ev);
    ev.notify.response_type = XCB_SELECTION_NOTIFY;
    ev.notify.time = req->time;
    ev.notify.requestor = req->requestor;
    ev.notify.selection = req->selection;
    ev.notify.target = req->target;
    ev.notify.property = property;
    xcb_send_event(x->c, 0, req->requestor, XCB_EVENT_MASK_NO_EVENT, ev.bytes);
}

/* Write one target of src to (w, property), by INCR when it is too large for one request; 0 when
 * refused (or out of memory for the transfer). */
static int serve_target(const cx11_link *x, cx11_transfers *ts, cx11_source src, xcb_window_t w, xcb_atom_t target,
                        xcb_atom_t property) {
    cx11_conversion cv;
    if (!cx11_convert(x, src, target, &cv)) return 0;
    if (cv.format == 8 && cx11_transfer_needed(ts, cv.len))
        return cx11_transfer_start(ts, w, property, cv.type, src.content, cv.data, cv.len);
    cx11_transfer_cancel(ts, w, property);
    xcb_change_property(x->c, XCB_PROP_MODE_REPLACE, w, property, cv.type, cv.format,
                        (uint32_t)(cv.len / (cv.format / 8)), cv.data);
    return 1;
}

/* MULTIPLE: the property holds (target, property) pairs; refused pairs get property None.
 * 0 when the pairs cannot be read (the whole request is then refused). */
static int serve_multiple(const cx11_link *x, cx11_transfers *ts, cx11_source src, xcb_window_t w,
                          xcb_atom_t property) {
    xcb_get_property_cookie_t ck = xcb_get_property(x->c, 0, w, property, XCB_GET_PROPERTY_TYPE_ANY, 0, 0x10000);
    xcb_get_property_reply_t *reply = cx11_reply(x->c, ck.sequence, ud_now() + 1.0, NULL);
    if (reply == NULL) return 0;
    int ok = reply->format == 32 && reply->type != XCB_NONE;
    uint32_t n = (uint32_t)xcb_get_property_value_length(reply) / 4;
    xcb_atom_t *pairs = ok && n >= 2 ? malloc(n * sizeof *pairs) : NULL;
    if (pairs == NULL) {
        free(reply);
        return 0;
    }
    memcpy(pairs, xcb_get_property_value(reply), n * sizeof *pairs);
    for (uint32_t i = 0; i + 1 < n; i += 2) {
        xcb_atom_t target = pairs[i], prop = pairs[i + 1];
        if (target == x->atoms[CX11_A_MULTIPLE] || prop == XCB_NONE || !serve_target(x, ts, src, w, target, prop))
            pairs[i + 1] = XCB_NONE;
    }
    xcb_change_property(x->c, XCB_PROP_MODE_REPLACE, w, property, reply->type, 32, n, pairs);
    free(pairs);
    free(reply);
    return 1;
}

void cx11_answer_request(const cx11_link *x, cx11_transfers *ts, const xcb_selection_request_event_t *req,
                         cx11_source src) {
    /* A NULL property marks an obsolete requestor: use the target as the property name (ICCCM 2.2). */
    xcb_atom_t property = req->property != XCB_NONE ? req->property : req->target;
    int ok = 0;
    if (src.content != NULL) {
        if (req->target == x->atoms[CX11_A_MULTIPLE])
            ok = req->property != XCB_NONE && serve_multiple(x, ts, src, req->requestor, property);
        else
            ok = serve_target(x, ts, src, req->requestor, req->target, property);
    }
    notify(x, req, ok ? property : XCB_NONE);
}
