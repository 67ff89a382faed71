/*
 * The resident owner's serving side: it listens on the socket cx11_resident.c names, receives a
 * copy's content, and answers whether it owns the selection with it (cx11_serve.c decides that).
 */
#define _GNU_SOURCE
#include "cx11_listener.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* How long a resident owner gives one offer from accepting it (the copy's own deadline, sent
 * with it, usually ends it sooner). */
#define CX11_OFFER_BOUND 0.5
/* The longest duration an offer may carry (about 115 days): beyond it, timers would overflow. */
#define CX11_MAX_SECONDS 1e7

void cx11_listener_init(cx11_listener *l, const cx11_own_options *options) {
    *l = (cx11_listener){.options = options, .fd = -1};
}

/* Bind and listen on our name; the fd, or -1 (*in_use when another process holds the name: an
 * owner that has not yet seen its SelectionClear). */
static int listen_on_name(const cx11_own_options *options, int *in_use) {
    *in_use = 0;
    char name[UD_RESIDENT_NAME_CAP];
    if (cx11_resident_name(options->display, options->selection, NULL, name, sizeof name, NULL) != CX11_OK) return -1;
    return ud_resident_listen(name, 16, in_use);
}

/* Listen for the next copy's content; while the previous owner still holds the name (it has not
 * processed its SelectionClear yet), try again shortly, for a bounded time. */
static void try_listen(cx11_listener *l) {
    int in_use = 0;
    l->retry_at = 0;
    l->fd = listen_on_name(l->options, &in_use);
    double now = ud_now();
    if (l->fd < 0 && in_use && now < l->give_up) l->retry_at = now + 0.05;
}

void cx11_listener_start(cx11_listener *l, double now) {
    l->give_up = now + 2.0;
    try_listen(l);
}

void cx11_listener_stop(cx11_listener *l) {
    if (l->fd >= 0) close(l->fd);
    l->fd = -1;
    l->retry_at = 0;
}

int cx11_listener_active(const cx11_listener *l) { return l->fd >= 0 || l->retry_at > 0; }

double cx11_listener_retry(cx11_listener *l, double now) {
    if (l->retry_at > 0 && now >= l->retry_at) try_listen(l);
    return l->retry_at;
}

/* A duration an offer may carry. */
static int valid_seconds(double value) { return isfinite(value) && value >= 0 && value <= CX11_MAX_SECONDS; }

/* Read one offer's header and bytes from a connected copy (checked by ud_resident_accept); NULL when it is not a valid offer.
 * *deadline becomes the earlier of the bound and the client's own deadline. */
static cx11_content *receive_offer(int fd, double *deadline, cx11_offer_header *h) {
    if (!ud_read_exact(fd, h, sizeof *h, *deadline) || h->magic != CX11_OFFER_MAGIC ||
        h->len > CX11_RESIDENT_MAX_BYTES || h->kind > CX11_KIND_BINARY || !isfinite(h->deadline) ||
        !valid_seconds(h->clear_after) || !valid_seconds(h->lifetime) || !valid_seconds(h->transfer_timeout) ||
        !valid_seconds(h->handoff_timeout))
        return NULL;
    if (h->deadline < *deadline) *deadline = h->deadline;
    uint8_t *bytes = malloc(h->len > 0 ? (size_t)h->len : 1);
    cx11_content *ct = NULL;
    if (bytes != NULL && ud_read_exact(fd, bytes, (size_t)h->len, *deadline))
        ct = cx11_content_received(bytes, (size_t)h->len, (cx11_kind)h->kind, h->is_secret != 0);
    if (ct == NULL) free(bytes);
    return ct;
}

int cx11_offer_receive(cx11_listener *l, cx11_offer *o) {
    o->fd = ud_resident_accept(l->fd); /* one of ours, or -1 */
    if (o->fd < 0) return 0;
    o->deadline = ud_now() + CX11_OFFER_BOUND;
    o->content = receive_offer(o->fd, &o->deadline, &o->terms);
    if (o->content != NULL) return 1;
    close(o->fd);
    return 0;
}

int cx11_offer_waits(const cx11_offer *o) {
    if (ud_now() >= o->deadline) return 0;
    char byte;
    ssize_t n = recv(o->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK); /* 0: it hung up */
}

cx11_content *cx11_offer_adopt(cx11_offer *o) {
    cx11_content *ct = o->content;
    o->content = NULL;
    return ct;
}

void cx11_offer_answer(cx11_offer *o, cx11_status status, xcb_timestamp_t time) {
    cx11_offer_reply reply = {.magic = CX11_OFFER_MAGIC, .status = status, .pid = (int32_t)getpid(),
                              .timestamp = status == CX11_OK ? time : 0};
    (void)send(o->fd, &reply, sizeof reply, MSG_NOSIGNAL); /* 16 bytes into an empty socket buffer */
    close(o->fd);
    cx11_content_release(o->content);
    o->content = NULL;
}
