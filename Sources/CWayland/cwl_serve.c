/*
 * The serving process: one poll loop over the compositor's socket, the signalfd and every
 * transfer's descriptor (written without blocking, so a reader that never reads stalls no
 * other), with the lifetime and secret-clearing timers (see cwl_own in cwl.h).
 */
#define _GNU_SOURCE
#include "cwl_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <string.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* A reader's pipe is grown to this (where the system allows) so a large transfer takes fewer
 * wakeups of both sides: 16 times the default 64 KiB. */
#define CWL_PIPE_SIZE (1 << 20)

static void add_transfer(cwl_owner *w, const char *type, int fd) {
    if (fd < 0) return;
    if (type == NULL || w->transfer_count == CWL_MAX_TRANSFERS) {
        close(fd);
        return;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    (void)fcntl(fd, F_SETPIPE_SZ, CWL_PIPE_SIZE); /* not a pipe, or over the limit: left as it is */
    cwl_content content = CWL_CONTENT_PAYLOAD;
    if (strcmp(type, "x-kde-passwordManagerHint") == 0) content = CWL_CONTENT_SECRET_HINT;
    if (strcmp(type, "application/x-copyq-hidden") == 0) content = CWL_CONTENT_COPYQ_HIDDEN;
    cwl_buffer *buffer = content == CWL_CONTENT_PAYLOAD ? w->content : NULL;
    if (buffer != NULL) buffer->refs++;
    w->transfers[w->transfer_count++] =
        (cwl_transfer){.fd = fd, .content = content, .buffer = buffer, .idle_since = ud_now()};
}

void cwl_buffer_release(cwl_owner *w, cwl_buffer *b) {
    if (b == NULL) return;
    if (b->refs > 0) b->refs--;
    if (b->refs > 0 || b == w->content) return;
    if (b->owned) free((void *)b->data);
    free(b);
}

static void end_transfer(cwl_owner *w, cwl_transfer *t) {
    close(t->fd);
    cwl_buffer_release(w, t->buffer);
}

cwl_status cwl_owner_event(void *owner, cwl_conn *c, cwl_msg *m, cwl_error *err) {
    cwl_owner *w = owner;
    if (m->object == c->registry) {
        cwl_registry_event(c, m); /* a copy with known names reads the globals in its one round trip */
        return CWL_OK;
    }
    if (m->object == w->fence && w->fence != 0) {
        w->s.fenced = 1; /* its done: what the device announces from here on follows our set_selection */
        return CWL_OK;
    }
    /* A source we replaced (a handed-over copy) is destroyed, a zombie to cwl_next, which hands
     * none of its events out: its reader gets nothing, its descriptor is closed with the event. */
    if (m->object == w->source) {
        if (m->opcode == CWL_SOURCE_EV_SEND) {
            const char *type = cwl_arg_string(m);
            add_transfer(w, type, cwl_take_fd(c));
        } else if (m->opcode == CWL_SOURCE_EV_CANCELLED) {
            w->cancelled = 1;
        }
        return CWL_OK;
    }
    cwl_session_event(&w->s, m, err);
    return CWL_OK;
}

void cwl_owner_drop_transfers(cwl_owner *w) {
    for (size_t i = 0; i < w->transfer_count; i++) end_transfer(w, &w->transfers[i]);
    w->transfer_count = 0;
}

/* Write what the reader takes now; 1 while the transfer goes on, 0 when it ended (closed). */
static int advance(cwl_owner *w, cwl_transfer *t, double now) {
    const uint8_t *data = t->buffer != NULL ? t->buffer->data : NULL;
    size_t len = t->buffer != NULL ? t->buffer->len : 0;
    if (t->content == CWL_CONTENT_SECRET_HINT) {
        data = (const uint8_t *)"secret";
        len = 6;
    }
    if (t->content == CWL_CONTENT_COPYQ_HIDDEN) {
        data = (const uint8_t *)"1";
        len = 1;
    }
    while (t->offset < len) {
        ssize_t wrote = write(t->fd, data + t->offset, len - t->offset);
        if (wrote > 0) {
            t->offset += (size_t)wrote;
            t->idle_since = now;
            /* A short write to a non-blocking pipe means it is full: wait for poll rather than
             * asking again for an EAGAIN (one system call less per wakeup of a large transfer). */
            if (t->offset < len) return 1;
            continue;
        }
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0 && errno == EAGAIN) return now - t->idle_since < w->o.transfer_timeout;
        break; /* the reader went away (EPIPE) or another error: drop it */
    }
    return 0;
}

/* Advance the transfers whose descriptors poll reported (the first `polled` ones), drop the
 * finished and the idle ones, keeping the others in order. */
static void run_transfers(cwl_owner *w, const struct pollfd *p, size_t polled, double now) {
    size_t kept = 0;
    for (size_t i = 0; i < w->transfer_count; i++) {
        cwl_transfer *t = &w->transfers[i];
        int ready = i >= polled || p[i].revents != 0;
        int going = ready ? advance(w, t, now) : now - t->idle_since < w->o.transfer_timeout;
        if (going)
            w->transfers[kept++] = *t;
        else
            end_transfer(w, t);
    }
    w->transfer_count = kept;
}

/* Read every event there is: 0, or -1 when the compositor is gone. */
static int drain(cwl_owner *w) {
    cwl_error err;
    cwl_msg m;
    int got;
    while ((got = cwl_next(&w->s.conn, 0, &m, &err)) > 0) cwl_owner_event(w, &w->s.conn, &m, &err);
    if (got < 0) return -1;
    return cwl_flush(&w->s.conn, ud_now() + 1, &err) == CWL_OK ? 0 : -1;
}

/* The earliest time the loop must wake up at. */
static double next_wake(const cwl_owner *w, double now) {
    double wake = w->lifetime_at < w->clear_at ? w->lifetime_at : w->clear_at;
    if (w->listener < 0 && !w->leaving && !w->watching && now < w->listen_until && now + 0.05 < wake) wake = now + 0.05;
    for (size_t i = 0; i < w->transfer_count; i++) {
        double idle_end = w->transfers[i].idle_since + w->o.transfer_timeout;
        if (idle_end < wake) wake = idle_end;
    }
    return wake;
}

static void clear_selection(cwl_owner *w) {
    cwl_error err;
    uint32_t set = w->o.selection == CWL_PRIMARY ? CWL_DEVICE_SET_PRIMARY_SELECTION : CWL_DEVICE_SET_SELECTION;
    if (cwl_request(&w->s.conn, &err, w->s.device, set, 0u) == CWL_OK) cwl_flush(&w->s.conn, ud_now() + 1, &err);
}

void cwl_owner_restart_timers(cwl_owner *w) {
    double now = ud_now();
    w->lifetime_at = w->o.lifetime > 0 ? now + w->o.lifetime : INFINITY;
    w->clear_at = w->o.is_secret && w->o.clear_after > 0 ? now + w->o.clear_after : INFINITY;
}

/* A secret's source cancelled before its clear: a keeper may have copied the token and serve it
 * in our place (clipman does so at once, to keep it after we leave). The owner then waits for the
 * clear without serving, and at its time clears the selection only if it still shows the token
 * without the secret markers (someone else's copy stays), then reads back as after its own clear. */
static int watch_for_the_clear(cwl_owner *w) {
    if (!w->cancelled || w->watching || w->leaving || w->s.finished || w->clear_at == INFINITY) return 0;
    if (w->o.clear_report == NULL || w->o.clear_report[0] == 0) return 0;
    w->watching = 1;
    w->lifetime_at = INFINITY; /* the clear ends the wait */
    return 1;
}

/* The timers and the leaving rule, after each wakeup. */
static void check_state(cwl_owner *w, double now) {
    if (now >= w->lifetime_at) w->leaving = 1;
    if (watch_for_the_clear(w)) cwl_listener_close(w);
    if (now >= w->clear_at) {
        cwl_clear_check_arm(w);
        if (!w->watching || cwl_clear_check_token_shown(w)) clear_selection(w);
        else w->check_armed = 0; /* the selection is someone else's copy now: leave it alone */
        w->clear_at = INFINITY;
        w->leaving = 1;
    }
    w->leaving |= (w->cancelled && !w->watching) || w->s.finished;
    if (w->leaving) cwl_listener_close(w);
    if (!w->leaving && !w->watching && w->o.reuse_owner && w->listener < 0 && now < w->listen_until)
        cwl_listener_open(w);
}

void cwl_owner_serve(cwl_owner *w, int signal_fd) {
    cwl_owner_restart_timers(w);
    w->s.drop_offers = 1;
    w->listen_until = ud_now() + 2;
    check_state(w, ud_now());
    for (;;) {
        if (w->leaving && w->transfer_count == 0) {
            cwl_clear_check_run(w); /* after a secret's clear: is the token gone? */
            _exit(0);
        }
        struct pollfd p[CWL_MAX_TRANSFERS + 3];
        size_t polled = w->transfer_count;
        for (size_t i = 0; i < polled; i++) p[i] = (struct pollfd){.fd = w->transfers[i].fd, .events = POLLOUT};
        p[polled] = (struct pollfd){.fd = w->s.conn.fd, .events = POLLIN};
        p[polled + 1] = (struct pollfd){.fd = signal_fd, .events = POLLIN};
        p[polled + 2] = (struct pollfd){.fd = w->listener, .events = POLLIN};
        if (poll(p, polled + 3, ud_poll_ms(next_wake(w, ud_now()) - ud_now())) < 0 && errno != EINTR) _exit(1);
        if (p[polled].revents != 0 && drain(w) < 0) _exit(0); /* the compositor went away */
        if (signal_fd >= 0 && (p[polled + 1].revents & POLLIN)) {
            struct signalfd_siginfo info;
            if (read(signal_fd, &info, sizeof info) > 0) w->leaving = 1;
        }
        run_transfers(w, p, polled, ud_now());
        if (w->listener >= 0 && (p[polled + 2].revents & POLLIN) && !w->leaving && !w->watching)
            cwl_listener_accept(w);
        check_state(w, ud_now());
    }
}
