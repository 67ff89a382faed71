/* The clipboard-manager hand-off: SAVE_TARGETS to the owner of CLIPBOARD_MANAGER (ICCCM/freedesktop). */
#define _GNU_SOURCE
#include "cx11_handoff.h"

#include "cx11_request.h"

#include <stdlib.h>

/* Does a clipboard manager own CLIPBOARD_MANAGER? (A round trip, bounded by `deadline`.) */
static int manager_present(const cx11_link *x, double deadline) {
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(x->c, x->atoms[CX11_A_CLIPBOARD_MANAGER]);
    xcb_get_selection_owner_reply_t *r = cx11_reply(x->c, ck.sequence, deadline, NULL);
    int manager = r != NULL && r->owner != XCB_NONE;
    free(r);
    return manager;
}

int cx11_handoff_ask(cx11_handoff *h, const cx11_link *x, cx11_content *ct, double deadline) {
    if (!cx11_can_hand_off(x, ct) || !manager_present(x, deadline)) return 0;
    xcb_atom_t targets[8];
    size_t n = cx11_data_targets(x, ct, targets);
    /* ICCCM wants a real timestamp on ConvertSelection, and writing the parameter property
     * yields one: its PropertyNotify carries the server time, and SAVE_TARGETS goes out then
     * (cx11_handoff_property). The hand-off deadline covers that wait too. */
    xcb_change_property(x->c, XCB_PROP_MODE_REPLACE, x->window, x->atoms[CX11_A_PROPERTY], XCB_ATOM_ATOM, 32,
                        (uint32_t)n, targets);
    h->pending = 1;
    h->needs_time = 1;
    h->deadline = ud_now() + h->timeout;
    return 1;
}

int cx11_handoff_property(cx11_handoff *h, const cx11_link *x, const xcb_property_notify_event_t *pn) {
    if (!h->needs_time || pn->window != x->window || pn->atom != x->atoms[CX11_A_PROPERTY] ||
        pn->state != XCB_PROPERTY_NEW_VALUE)
        return 0;
    /* The SAVE_TARGETS request, stamped with the time of the parameter property's change. */
    h->needs_time = 0;
    xcb_convert_selection(x->c, x->window, x->atoms[CX11_A_CLIPBOARD_MANAGER], x->atoms[CX11_A_SAVE_TARGETS],
                          x->atoms[CX11_A_PROPERTY], pn->time);
    return 1;
}

int cx11_handoff_answered(cx11_handoff *h, const cx11_link *x, const xcb_selection_notify_event_t *sn, int *saved) {
    if (!h->pending || h->needs_time || sn->requestor != x->window ||
        sn->selection != x->atoms[CX11_A_CLIPBOARD_MANAGER] || sn->target != x->atoms[CX11_A_SAVE_TARGETS])
        return 0;
    h->pending = 0;
    *saved = sn->property != XCB_NONE;
    return 1;
}

int cx11_handoff_expired(cx11_handoff *h, double now, double *next) {
    *next = 0;
    if (!h->pending) return 0;
    if (now >= h->deadline) {
        h->pending = 0;
        h->needs_time = 0;
        return 1;
    }
    *next = h->deadline;
    return 0;
}
