/*
 * The selection server's loop: the detached process that answers SelectionRequests until it
 * leaves. C only, single-threaded, ends with _exit. One poll over the X connection, a signalfd
 * (so SIGTERM needs no handler and no global) and the resident owner's socket. It owns the
 * connection, its poll and its listener, and leaving; what it does with the selection's events and
 * timers is the serving core (cx11_server.c, shared with the daemon's in-process host); the other
 * concerns are in the files cx11_serve.h lists.
 */
#define _GNU_SOURCE
#include "cx11_serve.h"

#include "cx11_server.h"
#include "ud_owner.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The payload scan's slice while idle: well under a millisecond of work. */
enum { CX11_SCAN_SLICE = 1 << 21 };

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
    if (cx11_server_may_retake(sv) && cx11_server_fresh_timestamp(sv, offer.deadline, &time) &&
        cx11_server_may_retake(sv) && cx11_offer_waits(&offer)) {
        xcb_set_selection_owner(sv->x.c, sv->x.window, sv->x.selection, time);
        /* The answer decides what we serve, so it gets its own bound even if the copy gave up. */
        int mine = cx11_server_ask_owner(sv);
        if (mine == 1) {
            cx11_server_serve_copy(sv, cx11_offer_adopt(&offer), time, &offer.terms);
            status = CX11_OK;
        } else if (mine == 0) {
            sv->owning = 0; /* a newer owner, or the server is gone */
        }
        /* No answer in time: what we own is unknown; keep serving, the copy owns it itself. */
    }
    xcb_flush(sv->x.c);
    cx11_offer_answer(&offer, status, time);
}

/*
 * A secret's selection taken over before its clear, by a keeper that copies every selection at
 * once and serves it in our place (clipman does so on Wayland; cwl_serve.c does the same there):
 * leaving then would leave the token on the clipboard for good. So the owner stays, serving
 * nothing, until the clear's time; if the selection then still shows the token without the
 * secret's markers it clears as its own clear does and reads back; anything else (someone's new
 * copy) is left alone. Only with a report file, and never while leaving (SIGTERM, lifetime).
 */
static int watching(const cx11_server *sv) {
    return !sv->owning && !sv->leaving && sv->clear_at > 0 && sv->check.report[0] != 0 &&
           sv->held.current.content != NULL && sv->held.current.content->is_secret;
}

/* At the clear's time while watching: clear the token a keeper holds in our place. */
static void clear_if_taken_over(cx11_server *sv, xcb_window_t root) {
    if (!watching(sv) || ud_now() < sv->clear_at) return;
    sv->clear_at = 0;
    if (cx11_clear_check_token_shown(&sv->check, &sv->x, root, sv->held.current.content))
        cx11_server_clear_taken_over(sv);
}

/* Leave once nothing is left to do: no selection, no hand-off, no transfer, no clear to watch
 * for; or at once when leaving and the server stopped answering (no transfer can go on then). */
static void leave_when_done(cx11_server *sv, xcb_window_t root) {
    if (sv->silent) _exit(0);
    if (sv->owning || sv->handoff.pending || sv->transfers.count > 0 || watching(sv)) return;
    cx11_clear_check_run(&sv->check, &sv->x, root); /* after a secret's clear: is the token gone? */
    /* One round trip before leaving: the server must have taken our last requests (the
     * empty chunk that ends a transfer) before our socket closes. Closing with events
     * still unread in our receive queue resets the connection, and the X server then
     * dropped what we had just written: the reader waited for that end forever. */
    xcb_get_input_focus_cookie_t ck = xcb_get_input_focus(sv->x.c);
    free(cx11_reply(sv->x.c, ck.sequence, cx11_server_reply_deadline(sv), NULL));
    _exit(0);
}

/* Wait for the connection, a signal or a copy until `next` (0: no timer), or scan the payload
 * a slice when idle; then handle what woke us. */
static void poll_once(cx11_server *sv, double next) {
    /* Scan the payload only while no transfer runs: on a 128 MiB paste the scan would take a
     * CPU from the requestor and the X server, which do most of the work. */
    cx11_content *current = sv->held.current.content;
    int scan_idle = !current->scanned && sv->transfers.count == 0;
    int timeout = next > 0 ? ud_poll_ms(next - ud_now()) : -1;
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
        cx11_server_start_leaving(sv);
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
    cx11_clear_check_init(&sv->check, o->clear_report);
    int ignored_errno;
    (void)ud_owner_detach(&sv->xfd, 1, &sv->sfd, &ignored_errno); /* no signalfd: poll skips it */
    cx11_offer_header terms;
    cx11_offer_terms(o, config->len, 0, &terms);
    sv->transfers.timeout = o->transfer_timeout;
    cx11_server_serve_copy(sv, &sv->first, config->acquired, &terms);
    if (o->handoff_at_once) cx11_server_ask_manager(sv); /* its target list needs the scan: done at once */
    else if (o->reuse_owner) cx11_listener_start(&sv->listener, ud_now());
}

void cx11_serve(const cx11_serve_config *config) {
    cx11_server sv;
    start(&sv, config);
    for (;;) {
        xcb_generic_event_t *ev;
        while ((ev = xcb_poll_for_event(sv.x.c)) != NULL) {
            cx11_server_handle_event(&sv, ev);
            free(ev);
        }
        if (xcb_connection_has_error(sv.x.c)) _exit(0); /* the X server is gone */
        clear_if_taken_over(&sv, config->session.root);
        double next = cx11_server_run_timers(&sv);
        /* Leaving or no longer the owner: the next copy must own the selection itself. */
        if (cx11_listener_active(&sv.listener) && !cx11_server_may_retake(&sv)) cx11_listener_stop(&sv.listener);
        leave_when_done(&sv, config->session.root);
        xcb_flush(sv.x.c);
        if ((ev = xcb_poll_for_queued_event(sv.x.c)) != NULL) { /* queued while a timer waited for a reply */
            cx11_server_handle_event(&sv, ev);
            free(ev);
            continue;
        }
        poll_once(&sv, next);
    }
}
