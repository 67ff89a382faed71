/*
 * The serving core (cx11_server.h): what a selection owner does with the events and timers of the
 * selection it holds, for the detached owner process and the daemon's in-process host alike.
 */
#define _GNU_SOURCE
#include "cx11_server.h"

#include "cx11_request.h"

#include <stdlib.h>

/* A secret's clear: how long the empty content stays ours for a clipboard keeper to read it. */
#define CX11_CLEAR_KEEPER_WAIT 1.0

/* How long a round trip may wait: 1 s, and while starting to leave no later than leave_by, so
 * that an owner told to leave while its X server is stopped (SIGSTOP, a hung server) leaves
 * within the connect timeout instead of waiting 1 s for each of its last requests. */
double cx11_server_reply_deadline(const cx11_server *sv) {
    double bound = ud_now() + 1.0;
    return sv->leave_by > 0 && sv->leave_by < bound ? sv->leave_by : bound;
}

/* Is our window the owner, as the server sees it? 1 yes, 0 no (or the connection died), -1 no
 * answer in time (cx11_server_reply_deadline). */
int cx11_server_ask_owner(cx11_server *sv) {
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(sv->x.c, sv->x.selection);
    cx11_wait why;
    xcb_get_selection_owner_reply_t *r = cx11_reply(sv->x.c, ck.sequence, cx11_server_reply_deadline(sv), &why);
    int mine = r != NULL ? r->owner == sv->x.window : why == CX11_WAIT_TIMED_OUT ? -1 : 0;
    free(r);
    if (mine == -1 && sv->leave_by > 0) sv->silent = 1;
    return mine;
}

/* Give the selection up. With our own timestamp it cannot undo a newer owner's claim. */
static void give_up(cx11_server *sv) {
    if (sv->owning && cx11_server_ask_owner(sv) == 1)
        xcb_set_selection_owner(sv->x.c, XCB_NONE, sv->x.selection, sv->held.current.acquired);
    sv->owning = 0;
}

/* The end of a secret's clear: while we own it, destroy our window rather than set the owner to
 * None. Both empty the selection, but GPaste (43, Debian 12) takes an explicit None owner for an
 * emptied clipboard and puts its last item (the secret) back, whereas it leaves a destroyed
 * owner's selection empty. The detached owner leaves right after; the daemon's host makes a new
 * window. */
static void destroy_owner(cx11_server *sv) {
    sv->emptied_until = 0;
    if (sv->owning && cx11_server_ask_owner(sv) == 1) {
        xcb_destroy_window(sv->x.c, sv->x.window);
        sv->window_destroyed = 1;
    }
    sv->owning = 0;
}

/* Take the selection with empty content, served until CX11_CLEAR_KEEPER_WAIT passes or a reader
 * fetched it; 1 when taken. `owned`: we own it now, and must still once the timestamp came (the
 * events handled while waiting for it may have ended that). */
static int take_empty(cx11_server *sv, int owned) {
    xcb_timestamp_t time = 0;
    cx11_content *empty = NULL;
    if (!cx11_server_fresh_timestamp(sv, cx11_server_reply_deadline(sv), &time) || (owned && !sv->owning) ||
        (empty = cx11_content_received(NULL, 0, sv->held.current.content->kind, 0)) == NULL)
        return 0;
    xcb_set_selection_owner(sv->x.c, sv->x.window, sv->x.selection, time);
    if (cx11_server_ask_owner(sv) != 1) {
        cx11_content_release(empty);
        return 0;
    }
    sv->owning = 1;
    cx11_holding_take(&sv->held, empty, time, ud_now());
    cx11_content_release(sv->held.previous.content);
    sv->held.previous = (cx11_source){.content = NULL, .acquired = 0};
    sv->emptied_read = 0;
    sv->emptied_until = ud_now() + CX11_CLEAR_KEEPER_WAIT;
    xcb_flush(sv->x.c);
    return 1;
}

/*
 * A secret's clear, while we still own it. Leaving alone is not enough where a clipboard keeper
 * copied the secret when we took the selection and puts it back once we are gone (mutter 43's
 * clipboard manager; weston's XWayland bridge keeps offering it to Wayland clients): first take
 * the selection again with empty content, so that what such a keeper reads and keeps last is
 * nothing, then leave (destroy_owner) once a reader has fetched it or CX11_CLEAR_KEEPER_WAIT has
 * passed. The secret is no longer served from the re-take on, not even to a request stamped
 * before it.
 */
static void clear_secret(cx11_server *sv) {
    if (sv->owning) cx11_clear_check_arm(&sv->check, sv->held.current.content);
    if (sv->owning && cx11_server_ask_owner(sv) == 1 && take_empty(sv, 1)) return;
    destroy_owner(sv);
}

void cx11_server_clear_taken_over(cx11_server *sv) {
    cx11_clear_check_arm(&sv->check, sv->held.current.content);
    (void)take_empty(sv, 0); /* not taken: the read-back finds the token still there and names who */
}

/* Ask the clipboard manager to save what we own (see cx11_handoff_ask); whether it was asked. */
int cx11_server_ask_manager(cx11_server *sv) {
    return sv->owning &&
           cx11_handoff_ask(&sv->handoff, &sv->x, sv->held.current.content, cx11_server_reply_deadline(sv));
}

/* SIGTERM or lifetime: ask a clipboard manager to save the content (bounded), then give up. */
void cx11_server_start_leaving(cx11_server *sv) {
    if (sv->leaving) return;
    sv->leaving = 1;
    if (sv->handoff.pending) return; /* a hand-off at once is under way: its end gives up now */
    sv->leave_by = ud_now() + sv->connect_timeout;
    if (!cx11_server_ask_manager(sv)) give_up(sv);
    sv->leave_by = 0; /* the server answered in time (else silent): later round trips as usual */
}

/*
 * The manager answered (`saved`: its SelectionNotify names our property) or the bound passed
 * (`saved` 0). Leaving, we give up either way. A hand-off at once gives up only when the content
 * was saved (the manager serves it from then on) and otherwise keeps serving, as if never asked.
 */
static void finish_handoff(cx11_server *sv, int saved) {
    if (sv->leaving || saved) give_up(sv); /* a manager that took the selection already: a no-op */
}

/* Answer a SelectionRequest from the content it was asked of: none unless it is for what we own
 * now, current or previous by its timestamp. */
static void handle_request(cx11_server *sv, const xcb_selection_request_event_t *req) {
    cx11_source src = {.content = NULL, .acquired = 0};
    if (sv->owning && req->selection == sv->x.selection && req->owner == sv->x.window)
        src = cx11_holding_answering(&sv->held, req->time);
    /* A clear's empty content read (not just its targets): the keeper has it, we may leave. */
    if (sv->emptied_until > 0 && src.content != NULL && src.content->len == 0 &&
        req->target != sv->x.atoms[CX11_A_TARGETS])
        sv->emptied_read = 1;
    cx11_answer_request(&sv->x, &sv->transfers, req, src);
}

/* A PropertyNotify: a timestamp we gave up waiting for, the hand-off's time, or a requestor
 * asking for the next chunk. */
static void handle_property(cx11_server *sv, const xcb_property_notify_event_t *pn) {
    if (pn->window == sv->x.window && pn->atom == XCB_ATOM_WM_NAME) {
        /* The timestamp of a re-take that gave up waiting for it (fresh_timestamp). */
        if (sv->pending_stamps > 0) sv->pending_stamps--;
        return;
    }
    if (cx11_handoff_property(&sv->handoff, &sv->x, pn)) return;
    if (pn->state == XCB_PROPERTY_DELETE) cx11_transfer_continue(&sv->transfers, pn->window, pn->atom);
}

/* Dispatch one event (or an error from one of our unchecked requests). */
void cx11_server_handle_event(cx11_server *sv, xcb_generic_event_t *ev) {
    int saved = 0;
    switch (ev->response_type & 0x7f) {
    case 0: { /* an error from one of our unchecked requests: a requestor window that died */
        xcb_generic_error_t *e = (xcb_generic_error_t *)ev;
        if (e->error_code == XCB_WINDOW) cx11_transfers_drop_window(&sv->transfers, e->resource_id);
        break;
    }
    case XCB_SELECTION_REQUEST:
        handle_request(sv, (xcb_selection_request_event_t *)ev);
        break;
    case XCB_SELECTION_CLEAR: {
        xcb_selection_clear_event_t *clear = (xcb_selection_clear_event_t *)ev;
        /* A resident owner may have taken the selection back after this was sent (the clear
         * then sits in our queue behind our own SetSelectionOwner): ask the server. */
        if (clear->selection == sv->x.selection && clear->owner == sv->x.window && sv->owning &&
            cx11_server_ask_owner(sv) != 1)
            sv->owning = 0;
        break;
    }
    case XCB_PROPERTY_NOTIFY:
        handle_property(sv, (xcb_property_notify_event_t *)ev);
        break;
    case XCB_DESTROY_NOTIFY:
        cx11_transfers_drop_window(&sv->transfers, ((xcb_destroy_notify_event_t *)ev)->window);
        break;
    case XCB_SELECTION_NOTIFY:
        if (cx11_handoff_answered(&sv->handoff, &sv->x, (xcb_selection_notify_event_t *)ev, &saved))
            finish_handoff(sv, saved);
        break;
    default:
        break;
    }
}

/*
 * A server timestamp now: append nothing to a property of our window and take the time of its
 * PropertyNotify. Events that arrive meanwhile are handled as usual (a handler may wait up to
 * 1 s for a reply of its own, so the deadline can be overrun by that much). An earlier call
 * that gave up leaves its notification pending: it is skipped (pending_stamps).
 */
int cx11_server_fresh_timestamp(cx11_server *sv, double deadline, xcb_timestamp_t *out) {
    xcb_change_property(sv->x.c, XCB_PROP_MODE_APPEND, sv->x.window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 0, "");
    sv->pending_stamps++;
    for (;;) {
        cx11_wait why;
        xcb_generic_event_t *ev = cx11_wait_event(sv->x.c, deadline, &why);
        if (ev == NULL) return 0;
        if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
            xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *)ev;
            if (pn->window == sv->x.window && pn->atom == XCB_ATOM_WM_NAME) {
                int ours = --sv->pending_stamps == 0;
                if (ours) *out = pn->time;
                free(ev);
                if (ours) return 1;
                continue;
            }
        }
        cx11_server_handle_event(sv, ev);
        free(ev);
    }
}

/* Serve ct (its reference passes to us), taken at `time`, with the timers of its copy (`terms`):
 * the first content at the start, then each adopted offer. */
void cx11_server_serve_copy(cx11_server *sv, cx11_content *ct, xcb_timestamp_t time, const cx11_offer_header *terms) {
    double now = ud_now();
    cx11_holding_take(&sv->held, ct, time, now);
    sv->clear_at = ct->is_secret && terms->clear_after > 0 ? now + terms->clear_after : 0;
    sv->emptied_until = 0; /* a new copy ends a clear's empty content */
    sv->check.armed = 0;   /* and its read-back: the token is no longer ours to look for */
    sv->leave_at = terms->lifetime > 0 ? now + terms->lifetime : 0;
    if (terms->transfer_timeout > 0) sv->transfers.timeout = terms->transfer_timeout;
    sv->handoff.timeout = terms->handoff_timeout;
}

/* May we take the selection again for a copy? Only while we own it, stay, and hand nothing off. */
int cx11_server_may_retake(const cx11_server *sv) { return sv->owning && !sv->leaving && !sv->handoff.pending; }

double cx11_earliest(double a, double b) { return a > 0 && (b == 0 || a < b) ? a : b; }

/* Timers; returns the next deadline (0 when none). */
double cx11_server_run_timers(cx11_server *sv) {
    double now = ud_now();
    double next = cx11_transfers_expire(&sv->transfers, now);
    if (sv->clear_at > 0 && now >= sv->clear_at) {
        sv->clear_at = 0;
        clear_secret(sv);
    }
    if (sv->emptied_until > 0 && (now >= sv->emptied_until || (sv->emptied_read && sv->transfers.count == 0)))
        destroy_owner(sv);
    if (sv->leave_at > 0 && now >= sv->leave_at) {
        sv->leave_at = 0;
        cx11_server_start_leaving(sv);
    }
    double handoff_at = 0;
    if (cx11_handoff_expired(&sv->handoff, now, &handoff_at)) finish_handoff(sv, 0);
    next = cx11_earliest(next, cx11_listener_retry(&sv->listener, now));
    next = cx11_earliest(next, cx11_holding_expire(&sv->held, now));
    next = cx11_earliest(next, sv->clear_at);
    next = cx11_earliest(next, sv->emptied_until);
    next = cx11_earliest(next, sv->leave_at);
    return cx11_earliest(next, handoff_at);
}

