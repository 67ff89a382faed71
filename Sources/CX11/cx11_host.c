/*
 * The daemon's in-process selection owner (cx11_host.h): the serving core of the detached owner
 * (cx11_server.c) driven by the caller's event loop instead of a process of its own.
 */
#define _GNU_SOURCE
#include "cx11_host.h"

#include "cx11_server.h"
#include "ud_owner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long a copy waits for its first reader before returning (see serve_first_request). */
#define CX11_HOST_FIRST_REQUEST_WAIT 0.005

struct cx11_host {
    cx11_session session;   /* the connection, root, atoms; its window is sv.x.window */
    cx11_server sv;         /* owning 0 until the first copy */
    cx11_own_options terms; /* the last copy's options (no strings kept: they were the caller's) */
    char *display;          /* for the clear's read-back (NULL: $DISPLAY, $XAUTHORITY) */
    char *authority;
};

cx11_status cx11_host_open(const char *display, const char *authority, cx11_selection selection, double timeout,
                           cx11_host **out, cx11_error *err) {
    *out = NULL;
    cx11_host *h = calloc(1, sizeof *h);
    if (h == NULL) return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory");
    xcb_timestamp_t ignored;
    cx11_status st = cx11_session_open(&h->session, display, authority, ud_now() + timeout, &ignored, err);
    if (st != CX11_OK) {
        free(h);
        return st;
    }
    h->display = display != NULL ? strdup(display) : NULL;
    h->authority = authority != NULL ? strdup(authority) : NULL;
    cx11_server *sv = &h->sv;
    sv->x = (cx11_link){.c = h->session.c, .atoms = h->session.atoms, .window = h->session.window,
                        .selection = cx11_selection_atom(&h->session, selection)};
    sv->xfd = xcb_get_file_descriptor(h->session.c);
    sv->sfd = -1;
    sv->connect_timeout = timeout > 0 ? timeout : 1.0;
    h->terms.selection = selection;
    cx11_transfers_init(&sv->transfers, sv->x.c, sv->x.atoms[CX11_A_INCR]);
    cx11_listener_init(&sv->listener, &h->terms); /* never listens: copies reach us in-process */
    *out = h;
    return CX11_OK;
}

/* Forget what we served (transfers of it hold their own references until they end). */
static void drop_content(cx11_server *sv) {
    cx11_content_release(sv->held.current.content);
    cx11_content_release(sv->held.previous.content);
    sv->held = (cx11_holding){.previous_until = 0};
    sv->clear_at = 0;
    sv->leave_at = 0;
}

void cx11_host_close(cx11_host *h) {
    if (h == NULL) return;
    drop_content(&h->sv);
    for (size_t i = 0; i < h->sv.transfers.count; i++) cx11_content_release(h->sv.transfers.items[i].content);
    free(h->sv.transfers.items);
    cx11_session_close(&h->session);
    free(h->display);
    free(h->authority);
    free(h);
}

int cx11_host_fd(const cx11_host *h) { return h->sv.xfd; }

int cx11_host_owns(const cx11_host *h) { return h->sv.owning; }

/* A secret's clear destroyed our window: make another for the next copy. */
static void new_window(cx11_host *h) {
    cx11_server *sv = &h->sv;
    xcb_window_t w = xcb_generate_id(sv->x.c);
    uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
    xcb_create_window(sv->x.c, 0, w, h->session.root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY,
                      XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &mask);
    sv->x.window = h->session.window = w;
    sv->window_destroyed = 0;
    sv->pending_stamps = 0; /* the old window's stamps will never come */
}

/* A copy of len bytes as a content of ours (one reference); NULL when out of memory. */
static cx11_content *content_of(const cx11_own_options *o, const uint8_t *bytes, size_t len) {
    uint8_t *copy = malloc(len > 0 ? len : 1);
    if (copy == NULL) return NULL;
    if (len > 0) memcpy(copy, bytes, len);
    cx11_content *ct = cx11_content_received(copy, len, o->kind, o->is_secret);
    if (ct == NULL) free(copy);
    return ct;
}

/* The error for a copy we could not take the selection for. */
static cx11_status not_taken(cx11_host *h, int mine, cx11_error *err) {
    if (xcb_connection_has_error(h->sv.x.c))
        return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
    if (mine == -1)
        return cx11_fail(err, CX11_TIMED_OUT, ETIMEDOUT, "the X server did not confirm ownership in time");
    if (h->sv.owning) h->sv.owning = 0; /* a newer owner holds it: what we served is no longer ours */
    return cx11_fail(err, CX11_NOT_OWNER, 0, "SetSelectionOwner did not make us the owner");
}

/* Take the selection with our window at `time` and ask whether it is ours (see ask_owner). */
static int take_at(cx11_server *sv, xcb_timestamp_t time) {
    xcb_set_selection_owner(sv->x.c, sv->x.window, sv->x.selection, time);
    return cx11_server_ask_owner(sv);
}

/*
 * The first reader of a new copy (a clipboard manager watching XFixes, the paste the key was
 * pressed for) asks within milliseconds: answer it before returning, since the caller's own work
 * after a copy would otherwise hold it up. Bounded by `deadline`; every event meanwhile is handled.
 */
static void serve_first_request(cx11_server *sv, double deadline) {
    for (;;) {
        cx11_wait why;
        xcb_generic_event_t *ev = cx11_wait_event(sv->x.c, deadline, &why);
        if (ev == NULL) return;
        int request = (ev->response_type & 0x7f) == XCB_SELECTION_REQUEST;
        cx11_server_handle_event(sv, ev);
        free(ev);
        if (request) break;
    }
    xcb_flush(sv->x.c);
}

cx11_status cx11_host_copy(cx11_host *h, const cx11_own_options *options, const uint8_t *bytes, size_t len,
                           uint32_t event_time, cx11_error *err) {
    cx11_server *sv = &h->sv;
    cx11_content *ct = content_of(options, bytes, len);
    if (ct == NULL) return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory for the copy");
    /* A new copy ends a lifetime's leaving and a hand-off still waiting for the manager. */
    sv->leaving = 0;
    sv->handoff.pending = sv->handoff.needs_time = 0;
    if (sv->window_destroyed) new_window(h);
    if (options->is_secret) cx11_clear_check_init(&sv->check, options->clear_report);
    double deadline = ud_now() + (options->connect_timeout > 0 ? options->connect_timeout : 1.0);
    xcb_timestamp_t time = event_time;
    /* An event older than what we own now cannot re-take it (the server would ignore it). */
    if (sv->owning && (int32_t)(time - sv->held.current.acquired) <= 0) time = 0;
    int mine = time != 0 ? take_at(sv, time) : 0;
    /* An owner newer than the event (or no event): stamp it now. */
    if (mine == 0 && !xcb_connection_has_error(sv->x.c))
        mine = cx11_server_fresh_timestamp(sv, deadline, &time) ? take_at(sv, time) : -1;
    if (mine != 1) {
        cx11_content_release(ct);
        return not_taken(h, mine, err);
    }
    cx11_offer_header terms;
    cx11_offer_terms(options, len, 0, &terms);
    sv->owning = 1;
    sv->connect_timeout = options->connect_timeout > 0 ? options->connect_timeout : 1.0;
    cx11_server_serve_copy(sv, ct, time, &terms);
    h->terms = *options;
    h->terms.display = h->terms.authority = h->terms.clear_report = NULL; /* the caller's strings */
    if (options->handoff_at_once) cx11_server_ask_manager(sv);
    serve_first_request(sv, ud_now() + CX11_HOST_FIRST_REQUEST_WAIT);
    return CX11_OK;
}

/*
 * A secret's clear is over (our window gone): read the selection back in a process of its own, on
 * a connection of its own, so that the daemon's keys are not held up for the check's seconds
 * (cx11_clearcheck.h). Forked twice (the daemon keeps no zombie); the child is C only. A fork that
 * fails skips the check.
 */
static void check_clear_apart(cx11_host *h) {
    pid_t pid;
    int err_no;
    if (ud_owner_fork(UD_OWNER_FORK_TWICE, &pid, &err_no) == UD_OWNER_IN_SERVER) {
        int ignored_fd;
        (void)ud_owner_detach(NULL, 0, &ignored_fd, &err_no);
        cx11_session s;
        xcb_timestamp_t ignored_time;
        cx11_error err;
        if (cx11_session_open(&s, h->display, h->authority, ud_now() + 1.0, &ignored_time, &err) == CX11_OK) {
            cx11_link x = {.c = s.c, .atoms = s.atoms, .window = s.window, .selection = h->sv.x.selection};
            cx11_clear_check_run(&h->sv.check, &x, s.root);
        }
        _exit(0);
    }
    h->sv.check.armed = 0; /* the caller: disarmed, the child checks */
}

/* One round of the loop: the queued events, then the timers. The next timer's deadline. */
static double service_once(cx11_host *h) {
    cx11_server *sv = &h->sv;
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(sv->x.c)) != NULL) {
        cx11_server_handle_event(sv, ev);
        free(ev);
    }
    double next = cx11_server_run_timers(sv);
    if (sv->check.armed && !sv->owning) check_clear_apart(h);
    if (sv->window_destroyed) new_window(h);
    /* Lost to another owner, given up or cleared: serve nothing (running transfers end as usual). */
    if (!sv->owning && !sv->handoff.pending && sv->held.current.content != NULL) drop_content(sv);
    return next;
}

cx11_status cx11_host_service(cx11_host *h, double *next_in, cx11_error *err) {
    cx11_server *sv = &h->sv;
    for (;;) {
        double next = service_once(h);
        if (xcb_connection_has_error(sv->x.c))
            return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
        xcb_flush(sv->x.c);
        xcb_generic_event_t *ev = xcb_poll_for_queued_event(sv->x.c); /* queued while a timer waited */
        if (ev != NULL) {
            cx11_server_handle_event(sv, ev);
            free(ev);
            continue;
        }
        double left = next > 0 ? next - ud_now() : 0;
        *next_in = next > 0 ? (left > 0.001 ? left : 0.001) : 0;
        return CX11_OK;
    }
}

cx11_status cx11_host_hand_over(cx11_host *h, const cx11_own_options *options, pid_t *owner_pid, cx11_error *err) {
    cx11_server *sv = &h->sv;
    cx11_content *ct = sv->held.current.content;
    if (!sv->owning || ct == NULL) return cx11_fail(err, CX11_NO_CONTENT, 0, "nothing to hand over");
    double now = ud_now();
    cx11_own_options o = h->terms;
    o.display = options->display;
    o.authority = options->authority;
    o.connect_timeout = options->connect_timeout;
    o.single_fork = options->single_fork;
    o.reuse_owner = options->reuse_owner;
    o.new_owner = 1;
    o.handoff_at_once = 0;
    o.kind = ct->kind;
    o.is_secret = ct->is_secret;
    /* The report's path lives in the check (copied there when the secret was taken). */
    o.clear_report = ct->is_secret && sv->check.report[0] != 0 ? sv->check.report : NULL;
    /* What is left of the timers; one already due runs at once in the new owner. */
    o.clear_after = sv->clear_at > 0 ? (sv->clear_at > now ? sv->clear_at - now : 0.001) : 0;
    o.lifetime = sv->leave_at > 0 ? (sv->leave_at > now ? sv->leave_at - now : 0.001) : 0;
    return cx11_own(&o, ct->bytes, ct->len, owner_pid, err);
}
