/*
 * The selection server's loop: the detached process that answers SelectionRequests until it
 * leaves. C only, single-threaded, ends with _exit. One poll over the X connection, a signalfd
 * (so SIGTERM needs no handler and no global) and the resident owner's socket. It owns the
 * connection, the poll, the timers, and whether we still own the selection and are leaving; the
 * other concerns are in the files cx11_serve.h lists.
 */
#define _GNU_SOURCE
#include "cx11_serve.h"

#include "cx11_content.h"
#include "cx11_handoff.h"
#include "cx11_listener.h"
#include "cx11_request.h"
#include "cx11_transfer.h"
#include "ud_owner.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The payload scan's slice while idle: well under a millisecond of work. */
enum { CX11_SCAN_SLICE = 1 << 21 };

typedef struct cx11_server {
    cx11_link x;
    int xfd, sfd;           /* the X connection's socket; the signalfd (-1: none) */
    int owning;             /* we still own the selection */
    int leaving;            /* SIGTERM or lifetime: leave once hand-off and transfers end */
    double leave_by;        /* while starting to leave: no round trip waits past this */
    int silent;             /* the server did not answer a round trip by leave_by */
    double connect_timeout; /* the copy's bound on an X server that does not answer */
    double clear_at;        /* secrets: 0 when never */
    double leave_at;        /* lifetime: 0 when never */
    unsigned pending_stamps;/* zero-length appends whose PropertyNotify has not arrived yet */
    cx11_content first;     /* the payload the process was forked with */
    cx11_holding held;
    cx11_transfers transfers;
    cx11_handoff handoff;
    cx11_listener listener;
} cx11_server;

/* How long a round trip may wait: 1 s, and while starting to leave no later than leave_by, so
 * that an owner told to leave while its X server is stopped (SIGSTOP, a hung server) leaves
 * within the connect timeout instead of waiting 1 s for each of its last requests. */
static double reply_deadline(const cx11_server *sv) {
    double bound = cx11_now() + 1.0;
    return sv->leave_by > 0 && sv->leave_by < bound ? sv->leave_by : bound;
}

/* Is our window the owner, as the server sees it? 1 yes, 0 no (or the connection died), -1 no
 * answer in time (reply_deadline). */
static int ask_owner(cx11_server *sv) {
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(sv->x.c, sv->x.selection);
    cx11_wait why;
    xcb_get_selection_owner_reply_t *r = cx11_reply(sv->x.c, ck.sequence, reply_deadline(sv), &why);
    int mine = r != NULL ? r->owner == sv->x.window : why == CX11_WAIT_TIMED_OUT ? -1 : 0;
    free(r);
    if (mine == -1 && sv->leave_by > 0) sv->silent = 1;
    return mine;
}

/* Give the selection up. With our own timestamp it cannot undo a newer owner's claim. */
static void give_up(cx11_server *sv) {
    if (sv->owning && ask_owner(sv) == 1)
        xcb_set_selection_owner(sv->x.c, XCB_NONE, sv->x.selection, sv->held.current.acquired);
    sv->owning = 0;
}

/* A secret's clear: while we own it, destroy our window rather than set the owner to None. Both
 * empty the selection, but GPaste (43, Debian 12) takes an explicit None owner for an emptied
 * clipboard and puts its last item (the secret) back, whereas it leaves a destroyed owner's
 * selection empty. The process leaves right after, so the window is not needed again. */
static void clear_secret(cx11_server *sv) {
    if (sv->owning && ask_owner(sv) == 1) xcb_destroy_window(sv->x.c, sv->x.window);
    sv->owning = 0;
}

/* Ask the clipboard manager to save what we own (see cx11_handoff_ask); whether it was asked. */
static int ask_manager(cx11_server *sv) {
    return sv->owning && cx11_handoff_ask(&sv->handoff, &sv->x, sv->held.current.content, reply_deadline(sv));
}

/* SIGTERM or lifetime: ask a clipboard manager to save the content (bounded), then give up. */
static void start_leaving(cx11_server *sv) {
    if (sv->leaving) return;
    sv->leaving = 1;
    if (sv->handoff.pending) return; /* a hand-off at once is under way: its end gives up now */
    sv->leave_by = cx11_now() + sv->connect_timeout;
    if (!ask_manager(sv)) give_up(sv);
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
static void handle_event(cx11_server *sv, xcb_generic_event_t *ev) {
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
        if (clear->selection == sv->x.selection && clear->owner == sv->x.window && sv->owning && ask_owner(sv) != 1)
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
static int fresh_timestamp(cx11_server *sv, double deadline, xcb_timestamp_t *out) {
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
        handle_event(sv, ev);
        free(ev);
    }
}

/* Serve ct (its reference passes to us), taken at `time`, with the timers of its copy (`terms`):
 * the first content at the start, then each adopted offer. */
static void serve_copy(cx11_server *sv, cx11_content *ct, xcb_timestamp_t time, const cx11_offer_header *terms) {
    double now = cx11_now();
    cx11_holding_take(&sv->held, ct, time, now);
    sv->clear_at = ct->is_secret && terms->clear_after > 0 ? now + terms->clear_after : 0;
    sv->leave_at = terms->lifetime > 0 ? now + terms->lifetime : 0;
    if (terms->transfer_timeout > 0) sv->transfers.timeout = terms->transfer_timeout;
    sv->handoff.timeout = terms->handoff_timeout;
}

/* May we take the selection again for a copy? Only while we own it, stay, and hand nothing off. */
static int may_retake(const cx11_server *sv) { return sv->owning && !sv->leaving && !sv->handoff.pending; }

/*
 * A copy hands us its content (cx11_resident_offer): take the selection again with a fresh
 * timestamp, confirm it, then serve the new content (transfers of the old one run to their end)
 * with the new copy's timers. The reply says whether it worked; the copy owns the selection
 * itself otherwise. Refused when we are no longer the owner (also if we learn it meanwhile), and
 * never taken for a copy that stopped waiting: it then owns the selection itself, and taking it
 * later could overwrite what another program copied since.
 */
static void serve_offer(cx11_server *sv) {
    cx11_offer offer;
    if (!cx11_offer_receive(&sv->listener, &offer)) return;
    cx11_status status = CX11_NOT_OWNER;
    xcb_timestamp_t time = 0;
    if (may_retake(sv) && fresh_timestamp(sv, offer.deadline, &time) && may_retake(sv) && cx11_offer_waits(&offer)) {
        xcb_set_selection_owner(sv->x.c, sv->x.window, sv->x.selection, time);
        /* The answer decides what we serve, so it gets its own bound even if the copy gave up. */
        int mine = ask_owner(sv);
        if (mine == 1) {
            serve_copy(sv, cx11_offer_adopt(&offer), time, &offer.terms);
            status = CX11_OK;
        } else if (mine == 0) {
            sv->owning = 0; /* a newer owner, or the server is gone */
        }
        /* No answer in time: what we own is unknown; keep serving, the copy owns it itself. */
    }
    xcb_flush(sv->x.c);
    cx11_offer_answer(&offer, status, time);
}

/* The earlier of two deadlines, 0 meaning none. */
static double earliest(double a, double b) { return a > 0 && (b == 0 || a < b) ? a : b; }

/* Timers; returns the next deadline (0 when none). */
static double run_timers(cx11_server *sv) {
    double now = cx11_now();
    double next = cx11_transfers_expire(&sv->transfers, now);
    if (sv->clear_at > 0 && now >= sv->clear_at) {
        sv->clear_at = 0;
        clear_secret(sv);
    }
    if (sv->leave_at > 0 && now >= sv->leave_at) {
        sv->leave_at = 0;
        start_leaving(sv);
    }
    double handoff_at = 0;
    if (cx11_handoff_expired(&sv->handoff, now, &handoff_at)) finish_handoff(sv, 0);
    next = earliest(next, cx11_listener_retry(&sv->listener, now));
    next = earliest(next, cx11_holding_expire(&sv->held, now));
    next = earliest(next, sv->clear_at);
    next = earliest(next, sv->leave_at);
    return earliest(next, handoff_at);
}

/* Leave once nothing is left to do: no selection, no hand-off, no transfer; or at once when
 * leaving and the server stopped answering (no transfer can go on then). */
static void leave_when_done(cx11_server *sv) {
    if (sv->silent) _exit(0);
    if (sv->owning || sv->handoff.pending || sv->transfers.count > 0) return;
    /* One round trip before leaving: the server must have taken our last requests (the
     * empty chunk that ends a transfer) before our socket closes. Closing with events
     * still unread in our receive queue resets the connection, and the X server then
     * dropped what we had just written: the reader waited for that end forever. */
    xcb_get_input_focus_cookie_t ck = xcb_get_input_focus(sv->x.c);
    free(cx11_reply(sv->x.c, ck.sequence, reply_deadline(sv), NULL));
    _exit(0);
}

/* Wait for the connection, a signal or a copy until `next` (0: no timer), or scan the payload
 * a slice when idle; then handle what woke us. */
static void poll_once(cx11_server *sv, double next) {
    /* Scan the payload only while no transfer runs: on a 128 MiB paste the scan would take a
     * CPU from the requestor and the X server, which do most of the work. */
    cx11_content *current = sv->held.current.content;
    int scan_idle = !current->scanned && sv->transfers.count == 0;
    int timeout = next > 0 ? cx11_poll_ms(next - cx11_now()) : -1;
    if (scan_idle) timeout = 0;
    /* poll skips the negative fds: no signalfd, not listening. */
    struct pollfd pfd[3] = {{.fd = sv->xfd, .events = POLLIN},
                            {.fd = sv->sfd, .events = POLLIN},
                            {.fd = sv->listener.fd, .events = POLLIN}};
    int r = poll(pfd, 3, timeout);
    if (r == 0 && scan_idle) (void)cx11_scan_text_step(current, CX11_SCAN_SLICE);
    if (r < 0 && errno != EINTR) _exit(1);
    if (r > 0 && sv->sfd >= 0 && (pfd[1].revents & POLLIN)) {
        struct signalfd_siginfo info;
        while (read(sv->sfd, &info, sizeof info) == (ssize_t)sizeof info) {}
        start_leaving(sv);
    }
    if (r > 0 && sv->listener.fd >= 0 && (pfd[2].revents & POLLIN)) serve_offer(sv);
    if (r > 0 && (pfd[0].revents & (POLLHUP | POLLERR)) && !(pfd[0].revents & POLLIN)) _exit(0);
}

/* Set up the server from what the caller forked it with, detached and serving the payload. */
static void start(cx11_server *sv, const cx11_serve_config *config) {
    const cx11_own_options *o = config->options;
    *sv = (cx11_server){
        .x = {.c = config->session.c, .atoms = config->session.atoms, .window = config->session.window,
              .selection = config->selection},
        .xfd = xcb_get_file_descriptor(config->session.c),
        .owning = 1,
        .connect_timeout = o->connect_timeout > 0 ? o->connect_timeout : 1.0,
        .first = {.refs = 1, .bytes = config->bytes, .len = config->len, .kind = o->kind,
                  .is_secret = o->is_secret != 0},
    };
    cx11_transfers_init(&sv->transfers, sv->x.c, sv->x.atoms[CX11_A_INCR]);
    cx11_listener_init(&sv->listener, o);
    int ignored_errno;
    (void)ud_owner_detach(&sv->xfd, 1, &sv->sfd, &ignored_errno); /* no signalfd: poll skips it */
    cx11_offer_header terms;
    cx11_offer_terms(o, config->len, 0, &terms);
    sv->transfers.timeout = o->transfer_timeout;
    serve_copy(sv, &sv->first, config->acquired, &terms);
    if (o->handoff_at_once) ask_manager(sv); /* its target list needs the payload scan: done at once */
    else if (o->reuse_owner) cx11_listener_start(&sv->listener, cx11_now());
}

void cx11_serve(const cx11_serve_config *config) {
    cx11_server sv;
    start(&sv, config);
    for (;;) {
        xcb_generic_event_t *ev;
        while ((ev = xcb_poll_for_event(sv.x.c)) != NULL) {
            handle_event(&sv, ev);
            free(ev);
        }
        if (xcb_connection_has_error(sv.x.c)) _exit(0); /* the X server is gone */
        double next = run_timers(&sv);
        /* Leaving or no longer the owner: the next copy must own the selection itself. */
        if (cx11_listener_active(&sv.listener) && !may_retake(&sv)) cx11_listener_stop(&sv.listener);
        leave_when_done(&sv);
        xcb_flush(sv.x.c);
        if ((ev = xcb_poll_for_queued_event(sv.x.c)) != NULL) { /* queued while a timer waited for a reply */
            handle_event(&sv, ev);
            free(ev);
            continue;
        }
        poll_once(&sv, next);
    }
}
