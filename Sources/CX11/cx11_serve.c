/*
 * The selection server: the detached process that answers SelectionRequests until it leaves.
 * C only, single-threaded, ends with _exit. One poll over the X connection and a signalfd (so
 * SIGTERM needs no handler and no global).
 */
#define _GNU_SOURCE
#include "cx11_serve.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* SendEvent always copies 32 bytes; xcb's struct is the 24-byte head of that wire event. */
typedef union cx11_wire_event {
    xcb_selection_notify_event_t notify;
    char bytes[32];
} cx11_wire_event;
_Static_assert(sizeof(xcb_selection_notify_event_t) <= 32, "SelectionNotify fits the 32-byte wire event");
_Static_assert(sizeof(cx11_wire_event) == 32, "SendEvent reads exactly 32 bytes");

/* Tk refuses properties above this; also a sensible INCR chunk for everyone else. */
enum { CX11_MAX_CHUNK = 400000 };
/* The payload scan's slice while idle: well under a millisecond of work. */
enum { CX11_SCAN_SLICE = 1 << 21 };

/* Is X time a at or after b, across the 32-bit wrap? */
static int time_not_before(xcb_timestamp_t a, xcb_timestamp_t b) { return (int32_t)(a - b) >= 0; }

static void notify(cx11_server *sv, const xcb_selection_request_event_t *req, xcb_atom_t property) {
    cx11_wire_event ev;
    memset(&ev, 0, sizeof ev);
    ev.notify.response_type = XCB_SELECTION_NOTIFY;
    ev.notify.time = req->time;
    ev.notify.requestor = req->requestor;
    ev.notify.selection = req->selection;
    ev.notify.target = req->target;
    ev.notify.property = property;
    xcb_send_event(sv->c, 0, req->requestor, XCB_EVENT_MASK_NO_EVENT, ev.bytes);
}

/*
 * Drop one reference to a content; the last frees what it holds. The payload inherited at fork
 * lives in the caller's heap image, which this C-only process never touches again: its whole
 * pages are given back to the kernel instead, so a large first copy does not stay resident in
 * an owner that serves newer content.
 */
static void release_content(cx11_content *ct) {
    if (ct == NULL || --ct->refs > 0) return;
    if (ct->is_secret && ct->latin1 != NULL) explicit_bzero(ct->latin1, ct->latin1_len);
    free(ct->latin1);
    ct->latin1 = NULL;
    if (ct->received != NULL) {
        if (ct->is_secret) explicit_bzero(ct->received, ct->len);
        free(ct->received);
    } else if (ct->len > 0) {
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t lo = ((uintptr_t)ct->bytes + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
        uintptr_t hi = ((uintptr_t)ct->bytes + ct->len) & ~((uintptr_t)page - 1);
        if (page > 0 && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
    if (ct->on_heap) free(ct);
}

static cx11_transfer *find_transfer(cx11_server *sv, xcb_window_t w, xcb_atom_t property) {
    for (size_t i = 0; i < sv->count; i++)
        if (sv->transfers[i].requestor == w && sv->transfers[i].property == property) return &sv->transfers[i];
    return NULL;
}

static void watch_window(cx11_server *sv, xcb_window_t w, int on) {
    uint32_t mask = on ? (XCB_EVENT_MASK_PROPERTY_CHANGE | XCB_EVENT_MASK_STRUCTURE_NOTIFY) : 0;
    xcb_change_window_attributes(sv->c, w, XCB_CW_EVENT_MASK, &mask);
}

/* Remove transfer i; stop watching its window when no other transfer uses it. */
static void drop_transfer(cx11_server *sv, size_t i, int window_alive) {
    xcb_window_t w = sv->transfers[i].requestor;
    release_content(sv->transfers[i].content);
    sv->transfers[i] = sv->transfers[--sv->count];
    if (!window_alive) return;
    for (size_t k = 0; k < sv->count; k++)
        if (sv->transfers[k].requestor == w) return;
    watch_window(sv, w, 0);
}

static void drop_window(cx11_server *sv, xcb_window_t w) {
    for (size_t i = sv->count; i-- > 0;)
        if (sv->transfers[i].requestor == w) drop_transfer(sv, i, 0);
}

static int start_incr(cx11_server *sv, xcb_window_t w, xcb_atom_t property, const cx11_conversion *cv) {
    cx11_transfer *t = find_transfer(sv, w, property);
    if (t == NULL) {
        if (sv->count == sv->capacity) {
            size_t cap = sv->capacity ? sv->capacity * 2 : 8;
            cx11_transfer *grown = realloc(sv->transfers, cap * sizeof *grown);
            if (grown == NULL) return 0;
            sv->transfers = grown;
            sv->capacity = cap;
        }
        t = &sv->transfers[sv->count++];
    } else {
        release_content(t->content); /* the same requestor and property asked again: start over */
    }
    sv->content->refs++;
    *t = (cx11_transfer){
        .requestor = w, .property = property, .type = cv->type, .content = sv->content, .data = cv->data,
        .len = cv->len, .offset = 0, .timeout = sv->transfer_timeout, .deadline = cx11_now() + sv->transfer_timeout,
    };
    watch_window(sv, w, 1);
    uint32_t size_hint = cv->len > UINT32_MAX ? UINT32_MAX : (uint32_t)cv->len;
    xcb_change_property(sv->c, XCB_PROP_MODE_REPLACE, w, property, sv->atoms[CX11_A_INCR], 32, 1, &size_hint);
    return 1;
}

/* The requestor deleted the property: send the next chunk, or the empty one that ends it. */
static void continue_transfer(cx11_server *sv, cx11_transfer *t) {
    size_t n = t->len - t->offset;
    if (n > sv->chunk) n = sv->chunk;
    xcb_change_property(sv->c, XCB_PROP_MODE_REPLACE, t->requestor, t->property, t->type, 8, (uint32_t)n,
                        t->data + t->offset);
    if (n == 0) {
        drop_transfer(sv, (size_t)(t - sv->transfers), 1);
        return;
    }
    t->offset += n;
    t->deadline = cx11_now() + t->timeout;
}

/* Write one target to (w, property); 0 when refused. */
static int serve_target(cx11_server *sv, xcb_window_t w, xcb_atom_t target, xcb_atom_t property) {
    cx11_conversion cv;
    if (!cx11_convert(sv, target, &cv)) return 0;
    if (cv.format == 8 && cv.len > sv->chunk) return start_incr(sv, w, property, &cv);
    cx11_transfer *stale = find_transfer(sv, w, property);
    if (stale != NULL) drop_transfer(sv, (size_t)(stale - sv->transfers), 1);
    xcb_change_property(sv->c, XCB_PROP_MODE_REPLACE, w, property, cv.type, cv.format,
                        (uint32_t)(cv.len / (cv.format / 8)), cv.data);
    return 1;
}

/* MULTIPLE: the property holds (target, property) pairs; refused pairs get property None. */
static int serve_multiple(cx11_server *sv, xcb_window_t w, xcb_atom_t property) {
    xcb_get_property_cookie_t ck = xcb_get_property(sv->c, 0, w, property, XCB_GET_PROPERTY_TYPE_ANY, 0, 0x10000);
    xcb_generic_error_t *xerr = NULL;
    int timed_out = 0;
    xcb_get_property_reply_t *reply = cx11_wait_reply(sv->c, ck.sequence, cx11_now() + 1.0, &xerr, &timed_out);
    free(xerr);
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
        if (target == sv->atoms[CX11_A_MULTIPLE] || prop == XCB_NONE || !serve_target(sv, w, target, prop))
            pairs[i + 1] = XCB_NONE;
    }
    xcb_change_property(sv->c, XCB_PROP_MODE_REPLACE, w, property, reply->type, 32, n, pairs);
    free(pairs);
    free(reply);
    return 1;
}

static void handle_request(cx11_server *sv, const xcb_selection_request_event_t *req) {
    /* A NULL property marks an obsolete requestor: use the target as the property name (ICCCM 2.2). */
    xcb_atom_t property = req->property != XCB_NONE ? req->property : req->target;
    int ok = 0;
    cx11_content *current = sv->content;
    xcb_timestamp_t acquired = sv->acquired;
    int in_time = req->time == XCB_CURRENT_TIME || time_not_before(req->time, sv->acquired);
    if (!in_time && sv->previous != NULL && time_not_before(req->time, sv->previous_acquired)) {
        /* Asked before our last re-take: the content we owned then answers it. */
        sv->content = sv->previous;
        sv->acquired = sv->previous_acquired;
        in_time = 1;
    }
    if (sv->owning && req->selection == sv->selection && req->owner == sv->window && in_time) {
        if (req->target == sv->atoms[CX11_A_MULTIPLE])
            ok = req->property != XCB_NONE && serve_multiple(sv, req->requestor, property);
        else
            ok = serve_target(sv, req->requestor, req->target, property);
    }
    sv->content = current;
    sv->acquired = acquired;
    notify(sv, req, ok ? property : XCB_NONE);
}

/* Is our window the owner, as the server sees it? 1 yes, 0 no (or the connection died), -1 no
 * answer within 1 s. */
static int ask_owner(cx11_server *sv) {
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(sv->c, sv->selection);
    xcb_generic_error_t *xerr = NULL;
    int timed_out = 0;
    xcb_get_selection_owner_reply_t *r = cx11_wait_reply(sv->c, ck.sequence, cx11_now() + 1.0, &xerr, &timed_out);
    free(xerr);
    int mine = r != NULL ? r->owner == sv->window : timed_out ? -1 : 0;
    free(r);
    return mine;
}

static int still_owner(cx11_server *sv) { return ask_owner(sv) == 1; }

/* Give the selection up. With our own timestamp it cannot undo a newer owner's claim. */
static void give_up(cx11_server *sv) {
    if (sv->owning && still_owner(sv)) xcb_set_selection_owner(sv->c, XCB_NONE, sv->selection, sv->acquired);
    sv->owning = 0;
}

/* Does a clipboard manager own CLIPBOARD_MANAGER? (A round trip, bounded at 1 s.) */
static int manager_present(cx11_server *sv) {
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(sv->c, sv->atoms[CX11_A_CLIPBOARD_MANAGER]);
    xcb_generic_error_t *xerr = NULL;
    int timed_out = 0;
    xcb_get_selection_owner_reply_t *r = cx11_wait_reply(sv->c, ck.sequence, cx11_now() + 1.0, &xerr, &timed_out);
    free(xerr);
    int manager = r != NULL && r->owner != XCB_NONE;
    free(r);
    return manager;
}

/*
 * Ask the clipboard manager to save our content, if there is one and the content may be handed
 * to it; returns whether it was asked. The answer (or the bound) ends the hand-off in
 * finish_handoff.
 */
static int ask_manager(cx11_server *sv) {
    if (!sv->owning || !cx11_can_hand_off(sv) || !manager_present(sv)) return 0;
    xcb_atom_t targets[8];
    size_t n = cx11_data_targets(sv, targets);
    /* ICCCM wants a real timestamp on ConvertSelection, and writing the parameter property
     * yields one: its PropertyNotify carries the server time, and SAVE_TARGETS goes out then
     * (send_save_targets). The hand-off deadline covers that wait too. */
    xcb_change_property(sv->c, XCB_PROP_MODE_REPLACE, sv->window, sv->atoms[CX11_A_PROPERTY], XCB_ATOM_ATOM, 32,
                        (uint32_t)n, targets);
    sv->handoff_pending = 1;
    sv->handoff_needs_time = 1;
    sv->handoff_deadline = cx11_now() + sv->handoff_timeout;
    return 1;
}

/* SIGTERM or lifetime: ask a clipboard manager to save the content (bounded), then give up. */
static void start_leaving(cx11_server *sv) {
    if (sv->leaving) return;
    sv->leaving = 1;
    if (sv->handoff_pending) return; /* a hand-off at once is under way: its end gives up now */
    if (!ask_manager(sv)) give_up(sv);
}

/* The SAVE_TARGETS request, stamped with the time of the parameter property's change. */
static void send_save_targets(cx11_server *sv, xcb_timestamp_t time) {
    sv->handoff_needs_time = 0;
    xcb_convert_selection(sv->c, sv->window, sv->atoms[CX11_A_CLIPBOARD_MANAGER], sv->atoms[CX11_A_SAVE_TARGETS],
                          sv->atoms[CX11_A_PROPERTY], time);
}

/*
 * The manager answered (`saved`: its SelectionNotify names our property) or the bound passed
 * (`saved` 0). Leaving, we give up either way. A hand-off at once gives up only when the content
 * was saved (the manager serves it from then on) and otherwise keeps serving, as if never asked.
 */
static void finish_handoff(cx11_server *sv, int saved) {
    sv->handoff_pending = 0;
    sv->handoff_needs_time = 0;
    if (sv->leaving || saved) give_up(sv); /* a manager that took the selection already: a no-op */
}

static void handle_event(cx11_server *sv, xcb_generic_event_t *ev) {
    switch (ev->response_type & 0x7f) {
    case 0: { /* an error from one of our unchecked requests: a requestor window that died */
        xcb_generic_error_t *e = (xcb_generic_error_t *)ev;
        if (e->error_code == XCB_WINDOW) drop_window(sv, e->resource_id);
        break;
    }
    case XCB_SELECTION_REQUEST:
        handle_request(sv, (xcb_selection_request_event_t *)ev);
        break;
    case XCB_SELECTION_CLEAR: {
        xcb_selection_clear_event_t *clear = (xcb_selection_clear_event_t *)ev;
        /* A resident owner may have taken the selection back after this was sent (the clear
         * then sits in our queue behind our own SetSelectionOwner): ask the server. */
        if (clear->selection == sv->selection && clear->owner == sv->window && sv->owning && !still_owner(sv))
            sv->owning = 0;
        break;
    }
    case XCB_PROPERTY_NOTIFY: {
        xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *)ev;
        if (pn->window == sv->window && pn->atom == XCB_ATOM_WM_NAME) {
            /* The timestamp of a re-take that gave up waiting for it (fresh_timestamp). */
            if (sv->pending_stamps > 0) sv->pending_stamps--;
            break;
        }
        if (sv->handoff_needs_time && pn->window == sv->window && pn->atom == sv->atoms[CX11_A_PROPERTY] &&
            pn->state == XCB_PROPERTY_NEW_VALUE) {
            send_save_targets(sv, pn->time);
            break;
        }
        if (pn->state != XCB_PROPERTY_DELETE) break;
        cx11_transfer *t = find_transfer(sv, pn->window, pn->atom);
        if (t != NULL) continue_transfer(sv, t);
        break;
    }
    case XCB_DESTROY_NOTIFY:
        drop_window(sv, ((xcb_destroy_notify_event_t *)ev)->window);
        break;
    case XCB_SELECTION_NOTIFY: {
        xcb_selection_notify_event_t *sn = (xcb_selection_notify_event_t *)ev;
        if (sv->handoff_pending && !sv->handoff_needs_time && sn->requestor == sv->window &&
            sn->selection == sv->atoms[CX11_A_CLIPBOARD_MANAGER] && sn->target == sv->atoms[CX11_A_SAVE_TARGETS])
            finish_handoff(sv, sn->property != XCB_NONE);
        break;
    }
    default:
        break;
    }
}

/* How long a resident owner gives one offer from accepting it (the copy's own deadline, sent
 * with it, usually ends it sooner). */
#define CX11_OFFER_BOUND 0.5
/* The longest duration an offer may carry (about 115 days): beyond it, timers would overflow. */
#define CX11_MAX_SECONDS 1e7

/*
 * A server timestamp now: append nothing to a property of our window and take the time of its
 * PropertyNotify. Events that arrive meanwhile are handled as usual (a handler may wait up to
 * 1 s for a reply of its own, so the deadline can be overrun by that much). An earlier call
 * that gave up leaves its notification pending: it is skipped (pending_stamps).
 */
static int fresh_timestamp(cx11_server *sv, double deadline, xcb_timestamp_t *out) {
    xcb_change_property(sv->c, XCB_PROP_MODE_APPEND, sv->window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 0, "");
    sv->pending_stamps++;
    for (;;) {
        int timed_out = 0;
        xcb_generic_event_t *ev = cx11_wait_event(sv->c, deadline, &timed_out);
        if (ev == NULL) return 0;
        if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
            xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *)ev;
            if (pn->window == sv->window && pn->atom == XCB_ATOM_WM_NAME && --sv->pending_stamps == 0) {
                *out = pn->time;
                free(ev);
                return 1;
            }
            if (pn->window == sv->window && pn->atom == XCB_ATOM_WM_NAME) {
                free(ev);
                continue;
            }
        }
        handle_event(sv, ev);
        free(ev);
    }
}

static int valid_seconds(double value) { return isfinite(value) && value >= 0 && value <= CX11_MAX_SECONDS; }

/* Read one offer's header and bytes from a connected client; NULL when it is not a valid offer.
 * *deadline becomes the earlier of the bound and the client's own deadline. */
static cx11_content *receive_offer(int fd, double *deadline, cx11_offer_header *h) {
    if (!cx11_peer_is_us(fd) || !cx11_read_exact(fd, h, sizeof *h, *deadline) || h->magic != CX11_OFFER_MAGIC ||
        h->len > CX11_RESIDENT_MAX_BYTES || h->kind > CX11_KIND_BINARY || !isfinite(h->deadline) ||
        !valid_seconds(h->clear_after) || !valid_seconds(h->lifetime) || !valid_seconds(h->transfer_timeout) ||
        !valid_seconds(h->handoff_timeout))
        return NULL;
    if (h->deadline < *deadline) *deadline = h->deadline;
    cx11_content *ct = calloc(1, sizeof *ct);
    uint8_t *bytes = malloc(h->len > 0 ? (size_t)h->len : 1);
    if (ct == NULL || bytes == NULL || !cx11_read_exact(fd, bytes, (size_t)h->len, *deadline)) {
        free(ct);
        free(bytes);
        return NULL;
    }
    ct->refs = 1;
    ct->on_heap = 1;
    ct->bytes = ct->received = bytes;
    ct->len = (size_t)h->len;
    ct->kind = (cx11_kind)h->kind;
    ct->is_secret = h->is_secret != 0;
    return ct;
}

/* Is the copy still waiting for our answer (connected, before its deadline)? */
static int client_waits(int fd, double deadline) {
    if (cx11_now() >= deadline) return 0;
    char byte;
    ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK); /* 0: it hung up */
}

/* Serve `ct` from now on (acquired at `time`) with the timers of its copy; the content it
 * replaces answers requests stamped before `time` for one more second. */
static void adopt(cx11_server *sv, cx11_content *ct, xcb_timestamp_t time, const cx11_offer_header *h) {
    release_content(sv->previous);
    sv->previous = sv->content;
    sv->previous_acquired = sv->acquired;
    double now = cx11_now();
    sv->previous_until = now + 1.0;
    sv->content = ct;
    sv->acquired = time;
    sv->clear_at = ct->is_secret && h->clear_after > 0 ? now + h->clear_after : 0;
    sv->leave_at = h->lifetime > 0 ? now + h->lifetime : 0;
    if (h->transfer_timeout > 0) sv->transfer_timeout = h->transfer_timeout;
    sv->handoff_timeout = h->handoff_timeout;
}

/*
 * A copy hands us its content (cx11_resident_offer): take the selection again with a fresh
 * timestamp, confirm it, then serve the new content (transfers of the old one run to their end)
 * with the new copy's timers. The reply says whether it worked; the copy owns the selection
 * itself otherwise. Refused when we are no longer the owner (also if we learn it meanwhile), and
 * never taken for a copy that stopped waiting: it then owns the selection itself, and taking it
 * later could overwrite what another program copied since.
 */
static void serve_offer(cx11_server *sv) {
    int fd = accept4(sv->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    double deadline = cx11_now() + CX11_OFFER_BOUND;
    cx11_offer_header h;
    cx11_content *ct = receive_offer(fd, &deadline, &h);
    if (ct == NULL) {
        close(fd);
        return;
    }
    cx11_offer_reply reply = {.magic = CX11_OFFER_MAGIC, .status = CX11_NOT_OWNER, .pid = (int32_t)getpid()};
    xcb_timestamp_t time = 0;
    if (sv->owning && !sv->leaving && !sv->handoff_pending && fresh_timestamp(sv, deadline, &time) &&
        sv->owning && !sv->leaving && client_waits(fd, deadline)) {
        xcb_set_selection_owner(sv->c, sv->window, sv->selection, time);
        /* The answer decides what we serve, so it gets its own bound even if the copy gave up. */
        int mine = ask_owner(sv);
        if (mine == 1) {
            adopt(sv, ct, time, &h);
            ct = NULL;
            sv->owning = 1;
            reply.status = CX11_OK;
            reply.timestamp = time;
        } else if (mine == 0) {
            sv->owning = 0; /* a newer owner, or the server is gone */
        }
        /* No answer in time: what we own is unknown; keep serving, the copy owns it itself. */
    }
    xcb_flush(sv->c);
    (void)send(fd, &reply, sizeof reply, MSG_NOSIGNAL); /* 16 bytes into an empty socket buffer */
    close(fd);
    release_content(ct);
}

/* Listen for the next copy's content; while the previous owner still holds the name (it has not
 * processed its SelectionClear yet), try again shortly, for a bounded time. */
static void try_listen(cx11_server *sv) {
    int in_use = 0;
    sv->listen_retry_at = 0;
    sv->listen_fd = cx11_resident_listen(sv->cfg->options, &in_use);
    double now = cx11_now();
    if (sv->listen_fd < 0 && in_use && now < sv->listen_give_up) sv->listen_retry_at = now + 0.05;
}

/* Timers; returns the next deadline (0 when none). */
static double run_timers(cx11_server *sv) {
    double now = cx11_now(), next = 0;
#define CX11_NEXT(t) do { if ((t) > 0 && (next == 0 || (t) < next)) next = (t); } while (0)
    for (size_t i = sv->count; i-- > 0;)
        if (sv->transfers[i].deadline <= now) drop_transfer(sv, i, 1);
    if (sv->clear_at > 0 && now >= sv->clear_at) {
        sv->clear_at = 0;
        give_up(sv);
    }
    if (sv->leave_at > 0 && now >= sv->leave_at) {
        sv->leave_at = 0;
        start_leaving(sv);
    }
    if (sv->handoff_pending && now >= sv->handoff_deadline) finish_handoff(sv, 0);
    if (sv->listen_retry_at > 0 && now >= sv->listen_retry_at) try_listen(sv);
    if (sv->previous != NULL && now >= sv->previous_until) {
        release_content(sv->previous);
        sv->previous = NULL;
    }
    for (size_t i = 0; i < sv->count; i++) CX11_NEXT(sv->transfers[i].deadline);
    CX11_NEXT(sv->clear_at);
    CX11_NEXT(sv->leave_at);
    if (sv->handoff_pending) CX11_NEXT(sv->handoff_deadline);
    CX11_NEXT(sv->listen_retry_at);
    if (sv->previous != NULL) CX11_NEXT(sv->previous_until);
#undef CX11_NEXT
    return next;
}

/* Become a daemon that holds nothing of the caller's: no terminal, no pipes, no stdio. */
static int detach(int keep_fd, sigset_t *signals) {
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(signals);
    sigaddset(signals, SIGTERM);
    sigaddset(signals, SIGINT);
    sigprocmask(SIG_SETMASK, signals, NULL); /* also unblocks whatever the forking thread blocked */
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
    }
    if (keep_fd > 3) close_range(3, (unsigned)keep_fd - 1, 0);
    if (close_range((unsigned)keep_fd + 1, ~0U, 0) != 0) {
        long max = sysconf(_SC_OPEN_MAX);
        for (long fd = keep_fd + 1; fd < (max > 0 && max < 65536 ? max : 65536); fd++) close((int)fd);
        for (int fd = 3; fd < keep_fd; fd++) close(fd);
    }
    if (chdir("/") != 0) { /* keep going: only a mount point stays busy */ }
    return signalfd(-1, signals, SFD_CLOEXEC | SFD_NONBLOCK);
}

void cx11_serve(const cx11_serve_config *config) {
    cx11_server sv;
    memset(&sv, 0, sizeof sv);
    sv.cfg = config;
    sv.c = config->session.c;
    sv.atoms = config->session.atoms;
    sv.window = config->session.window;
    sv.selection = config->selection;
    sv.acquired = config->acquired;
    sv.owning = 1;
    sv.listen_fd = -1;
    const cx11_own_options *o = config->options;
    sv.first = (cx11_content){
        .refs = 1, .bytes = config->bytes, .len = config->len, .kind = o->kind, .is_secret = o->is_secret != 0,
    };
    sv.content = &sv.first;
    sv.transfer_timeout = o->transfer_timeout;
    sv.handoff_timeout = o->handoff_timeout;
    int xfd = xcb_get_file_descriptor(sv.c);
    /* A socket buffer that holds a whole INCR chunk lets one write hand the server a chunk, so
     * each step of a large transfer costs one wake-up of the server instead of several. */
    int sndbuf = 2 * CX11_MAX_CHUNK;
    (void)setsockopt(xfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    sigset_t signals;
    int sfd = detach(xfd, &signals);

    double now = cx11_now();
    if (o->is_secret && o->clear_after > 0) sv.clear_at = now + o->clear_after;
    if (o->lifetime > 0) sv.leave_at = now + o->lifetime;
    uint64_t max_bytes = (uint64_t)xcb_get_maximum_request_length(sv.c) * 4;
    sv.chunk = max_bytes > 1024 ? (size_t)(max_bytes - 64) : 1024;
    if (sv.chunk > CX11_MAX_CHUNK) sv.chunk = CX11_MAX_CHUNK;
    if (o->handoff_at_once) ask_manager(&sv); /* its target list needs the payload scan: done at once */
    else if (o->reuse_owner) {
        sv.listen_give_up = now + 2.0;
        try_listen(&sv);
    }

    for (;;) {
        xcb_generic_event_t *ev;
        while ((ev = xcb_poll_for_event(sv.c)) != NULL) {
            handle_event(&sv, ev);
            free(ev);
        }
        if (xcb_connection_has_error(sv.c)) _exit(0); /* the X server is gone */
        double next = run_timers(&sv);
        if ((sv.listen_fd >= 0 || sv.listen_retry_at > 0) && (!sv.owning || sv.leaving || sv.handoff_pending)) {
            /* Leaving or no longer the owner: the next copy must own the selection itself. */
            if (sv.listen_fd >= 0) close(sv.listen_fd);
            sv.listen_fd = -1;
            sv.listen_retry_at = 0;
        }
        if (!sv.owning && !sv.handoff_pending && sv.count == 0) {
            /* One round trip before leaving: the server must have taken our last requests (the
             * empty chunk that ends a transfer) before our socket closes. Closing with events
             * still unread in our receive queue resets the connection, and the X server then
             * dropped what we had just written: the reader waited for that end forever. */
            xcb_get_input_focus_cookie_t ck = xcb_get_input_focus(sv.c);
            xcb_generic_error_t *xerr = NULL;
            int timed_out = 0;
            free(cx11_wait_reply(sv.c, ck.sequence, cx11_now() + 1.0, &xerr, &timed_out));
            free(xerr);
            _exit(0);
        }
        xcb_flush(sv.c);
        if ((ev = xcb_poll_for_queued_event(sv.c)) != NULL) { /* queued while a timer waited for a reply */
            handle_event(&sv, ev);
            free(ev);
            continue;
        }
        /* Scan the payload only while no transfer runs: on a 128 MiB paste the scan would take a
         * CPU from the requestor and the X server, which do most of the work. */
        int scan_idle = !sv.content->scanned && sv.count == 0;
        int timeout = -1;
        if (next > 0) {
            double left = next - cx11_now();
            timeout = cx11_poll_ms(left);
        }
        if (scan_idle) timeout = 0;
        /* poll skips the negative fds: no signalfd, not listening. */
        struct pollfd pfd[3] = {
            {.fd = xfd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}, {.fd = sv.listen_fd, .events = POLLIN}};
        int r = poll(pfd, 3, timeout);
        if (r == 0 && scan_idle) (void)cx11_scan_text_step(sv.content, CX11_SCAN_SLICE);
        if (r < 0 && errno != EINTR) _exit(1);
        if (r > 0 && sfd >= 0 && (pfd[1].revents & POLLIN)) {
            struct signalfd_siginfo info;
            while (read(sfd, &info, sizeof info) == (ssize_t)sizeof info) {}
            start_leaving(&sv);
        }
        if (r > 0 && sv.listen_fd >= 0 && (pfd[2].revents & POLLIN)) serve_offer(&sv);
        if (r > 0 && (pfd[0].revents & (POLLHUP | POLLERR)) && !(pfd[0].revents & POLLIN)) _exit(0);
    }
}
