/*
 * The resident owner's side (see cwl_resident.c): listening on the abstract name, and taking a
 * copy handed over: its bytes become the content of a new data source, made the selection and
 * confirmed, then answered. Old transfers keep writing the old content to their end.
 */
#define _GNU_SOURCE
#include "cwl_owner.h"
#include "cwl_resident.h"

#include <stdlib.h>
#include <unistd.h>

void cwl_listener_open(cwl_owner *w) {
    char name[UD_RESIDENT_NAME_CAP];
    if (cwl_resident_name(w->o.display, w->o.runtime_dir, w->o.selection, name, sizeof name) != 0) {
        w->listen_until = 0; /* no name: never */
        return;
    }
    int in_use; /* an owner we replace still holds it: retried until listen_until */
    int fd = ud_resident_listen(name, 8, &in_use);
    if (fd >= 0) w->listener = fd;
}

void cwl_listener_close(cwl_owner *w) {
    if (w->listener >= 0) close(w->listener);
    w->listener = -1;
    w->listen_until = 0;
}

/* Read a handed copy before the deadline: its header into *h and its bytes into a new buffer, or NULL. */
static cwl_buffer *receive_copy(int fd, cwl_hand_header *h, double deadline) {
    if (!ud_read_exact(fd, h, sizeof *h, deadline) || h->magic != CWL_RESIDENT_MAGIC ||
        h->len > CWL_RESIDENT_MAX_BYTES)
        return NULL;
    cwl_buffer *b = calloc(1, sizeof *b);
    uint8_t *data = malloc(h->len > 0 ? (size_t)h->len : 1);
    if (b == NULL || data == NULL || !ud_read_exact(fd, data, (size_t)h->len, deadline)) {
        free(b);
        free(data);
        return NULL;
    }
    *b = (cwl_buffer){.data = data, .len = (size_t)h->len, .owned = 1};
    return b;
}

/* Make `b` the content of a new source that is the selection; the old source is destroyed. */
static cwl_status take_again(cwl_owner *w, const cwl_hand_header *h, cwl_buffer *b) {
    cwl_buffer *old = w->content;
    w->content = b;
    cwl_buffer_release(w, old); /* freed now unless a transfer still writes it */
    w->o.kind = (cwl_kind)h->kind;
    w->o.offer_text = (int)h->offer_text;
    w->o.is_secret = (int)h->is_secret;
    w->o.transfer_timeout = h->transfer_timeout;
    w->o.clear_after = h->clear_after;
    w->o.lifetime = h->lifetime;
    uint32_t old_source = w->source;
    w->cancelled = 0;
    w->s.current = 0;
    w->s.drop_offers = 0;
    cwl_error err;
    cwl_status st = cwl_owner_take(w, ud_now() + 1, &err);
    cwl_session_forget_offers(&w->s);
    w->s.drop_offers = 1;
    if (cwl_request(&w->s.conn, &err, old_source, CWL_SOURCE_DESTROY) == CWL_OK)
        (void)cwl_flush(&w->s.conn, ud_now() + 1, &err);
    cwl_owner_restart_timers(w);
    if (st != CWL_OK) w->leaving = 1;
    return st;
}

void cwl_listener_accept(cwl_owner *w) {
    int fd = ud_resident_accept(w->listener); /* one of ours, or -1 */
    if (fd < 0) return;
    cwl_hand_header h;
    cwl_buffer *b = receive_copy(fd, &h, ud_now() + 1);
    if (b != NULL) {
        cwl_hand_reply reply = {.status = (uint32_t)take_again(w, &h, b), .pid = (int32_t)getpid()};
        (void)ud_write_exact(fd, &reply, sizeof reply, ud_now() + 1);
    }
    close(fd);
}
