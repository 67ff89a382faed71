/*
 * The resident owner's side (see cwl_resident.c): listening on the abstract name, and taking a
 * copy handed over: its bytes become the content of a new data source, made the selection and
 * confirmed, then answered. Old transfers keep writing the old content to their end.
 */
#define _GNU_SOURCE
#include "cwl_owner.h"
#include "cwl_resident.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

void cwl_listener_open(cwl_owner *w) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (cwl_resident_name(w->o.display, w->o.runtime_dir, w->o.selection, addr.sun_path + 1,
                          sizeof addr.sun_path - 1) != 0) {
        w->listen_until = 0; /* no name: never */
        return;
    }
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(addr.sun_path + 1));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return;
    if (bind(fd, (struct sockaddr *)&addr, size) != 0 || listen(fd, 8) != 0) {
        close(fd); /* EADDRINUSE: an owner we replace still holds it; retried until listen_until */
        return;
    }
    w->listener = fd;
}

void cwl_listener_close(cwl_owner *w) {
    if (w->listener >= 0) close(w->listener);
    w->listener = -1;
    w->listen_until = 0;
}

/* Read a handed copy: its header into *h and its bytes into a new buffer, or NULL. */
static cwl_buffer *receive_copy(int fd, cwl_hand_header *h) {
    if (cwl_resident_io(fd, h, sizeof *h, 0) != 0 || h->magic != CWL_RESIDENT_MAGIC ||
        h->len > CWL_RESIDENT_MAX_BYTES)
        return NULL;
    cwl_buffer *b = calloc(1, sizeof *b);
    uint8_t *data = malloc(h->len > 0 ? (size_t)h->len : 1);
    if (b == NULL || data == NULL || (h->len > 0 && cwl_resident_io(fd, data, (size_t)h->len, 0) != 0)) {
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
    w->old_source = w->source;
    w->cancelled = 0;
    w->s.current = 0;
    w->s.drop_offers = 0;
    cwl_error err;
    cwl_status st = cwl_owner_take(w, cwl_now() + 1, &err);
    cwl_session_forget_offers(&w->s);
    w->s.drop_offers = 1;
    if (cwl_request(&w->s.conn, &err, w->old_source, CWL_SOURCE_DESTROY, "") == CWL_OK)
        (void)cwl_flush(&w->s.conn, cwl_now() + 1, &err);
    cwl_owner_restart_timers(w);
    if (st != CWL_OK) w->leaving = 1;
    return st;
}

void cwl_listener_accept(cwl_owner *w) {
    int fd = accept4(w->listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) return;
    struct timeval tv = {.tv_sec = 1};
    cwl_hand_header h;
    cwl_buffer *b = NULL;
    if (cwl_resident_peer_ok(fd, NULL) && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0)
        b = receive_copy(fd, &h);
    if (b != NULL) {
        cwl_hand_reply reply = {.status = (uint32_t)take_again(w, &h, b), .pid = (int32_t)getpid()};
        (void)cwl_resident_io(fd, &reply, sizeof reply, 1);
    }
    close(fd);
}
