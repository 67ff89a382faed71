/*
 * Reading the selection: the device's current offer and its types in one round trip, the type
 * chosen, then the bytes through a pipe, streamed to a descriptor or gathered (see cwl_paste).
 */
#define _GNU_SOURCE
#include "cwl_device.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The text types in the order UTF8_STRING prefers them. */
static const char *const text_order[] = {"text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "TEXT", "STRING"};

static int offers_type(const cwl_offer *o, const char *type) {
    size_t n = strlen(type);
    for (const char *line = o->types; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        if (end == NULL) break;
        if ((size_t)(end - line) == n && memcmp(line, type, n) == 0) return 1;
        line = end + 1;
    }
    return 0;
}

static const char *choose_type(const cwl_offer *o, const char *target) {
    if (strcmp(target, "UTF8_STRING") != 0) return offers_type(o, target) ? target : NULL;
    for (size_t i = 0; i < sizeof text_order / sizeof *text_order; i++)
        if (offers_type(o, text_order[i])) return text_order[i];
    return NULL;
}

/* A growing buffer, or a descriptor that takes the bytes as they come. */
typedef struct sink {
    int fd;
    uint8_t *data;
    size_t len, cap;
    size_t total;       /* bytes put, to fd or data */
    double start, whole; /* when the read began; its overall bound in seconds (see cwl_paste) */
} sink;

static cwl_status put(sink *k, const uint8_t *bytes, size_t n, cwl_error *err) {
    k->total += n;
    if (k->fd >= 0) {
        while (n > 0) {
            ssize_t w = write(k->fd, bytes, n);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return cwl_fail(err, CWL_FAILED, errno, "writing the content out: %s", ud_strerror(errno).text);
            bytes += w;
            n -= (size_t)w;
        }
        return CWL_OK;
    }
    if (k->len + n > k->cap) {
        size_t cap = k->cap < 65536 ? 65536 : k->cap;
        while (cap < k->len + n) cap *= 2;
        uint8_t *grown = realloc(k->data, cap);
        if (grown == NULL) return cwl_fail(err, CWL_FAILED, ENOMEM, "out of memory for the content");
        k->data = grown;
        k->cap = cap;
    }
    memcpy(k->data + k->len, bytes, n);
    k->len += n;
    return CWL_OK;
}

/* When the whole read must be over: `whole` seconds after it began, one more per UD_PASTE_RATE
 * bytes received. */
static double overall_deadline(const sink *k) { return k->start + k->whole + (double)k->total / UD_PASTE_RATE; }

static cwl_status too_slow(const sink *k, cwl_error *err) {
    return cwl_fail(err, CWL_TOO_SLOW, ETIMEDOUT,
                    "the selection's owner sent %zu bytes in %.0f s, too slowly: a paste may take %.0f s "
                    "and 1 s more per 256 KiB received",
                    k->total, ud_now() - k->start, k->whole);
}

/* Read `fd` to its end, each read within `timeout` of the previous one and all of it by the
 * overall deadline. */
static cwl_status pump(int fd, double timeout, sink *k, cwl_error *err) {
    uint8_t chunk[65536];
    double deadline = ud_now() + timeout;
    for (;;) {
        if (ud_now() >= overall_deadline(k)) return too_slow(k, err);
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n > 0) {
            cwl_status st = put(k, chunk, (size_t)n, err);
            if (st != CWL_OK) return st;
            deadline = ud_now() + timeout;
            continue;
        }
        if (n == 0) return CWL_OK;
        if (errno == EINTR) continue;
        if (errno != EAGAIN)
            return cwl_fail(err, CWL_FAILED, errno, "reading the content: %s", ud_strerror(errno).text);
        double left = deadline - ud_now();
        if (left <= 0) return cwl_fail(err, CWL_TIMED_OUT, ETIMEDOUT, "the selection's owner stopped sending");
        double whole_left = overall_deadline(k) - ud_now();
        if (whole_left < left) left = whole_left;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        poll(&p, 1, ud_poll_ms(left));
    }
}

static cwl_status handle_event(void *ctx, cwl_conn *c, cwl_msg *m, cwl_error *err) {
    (void)c;
    cwl_session_event(ctx, m, err);
    return CWL_OK;
}

static cwl_status receive_into(cwl_session *s, uint32_t offer, const char *type, double timeout, sink *k,
                               cwl_error *err) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return cwl_fail(err, CWL_FAILED, errno, "pipe: %s", ud_strerror(errno).text);
    cwl_status st = cwl_request(&s->conn, err, offer, CWL_OFFER_RECEIVE, type, fds[1]);
    if (st == CWL_OK) st = cwl_flush(&s->conn, ud_now() + timeout, err);
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    (void)fcntl(fds[0], F_SETPIPE_SZ, 1 << 20); /* fewer wakeups for a large selection; best effort */
    size_t before = k->total;
    if (st == CWL_OK) st = pump(fds[0], timeout, k, err);
    close(fds[0]);
    /* The payload's size only: its bytes may be a secret. */
    if (st == CWL_OK) cwl_debug_note(&s->conn, "read %zu bytes of %s from the offer", k->total - before, type);
    return st;
}

static cwl_status read_offer(cwl_session *s, const char *target, double timeout, sink *k, cwl_error *err) {
    const char *which = s->selection == CWL_PRIMARY ? "primary selection" : "selection";
    cwl_offer *offer = cwl_session_offer(s, s->current);
    if (offer == NULL) return cwl_fail(err, CWL_NO_OWNER, 0, "the %s is empty", which);
    if (strcmp(target, "TARGETS") == 0)
        return put(k, (const uint8_t *)(offer->types != NULL ? offer->types : ""), offer->types_len, err);
    const char *type = choose_type(offer, target);
    if (type == NULL)
        return cwl_fail(err, CWL_NO_CONTENT, 0, "the %s's owner does not offer %.100s", which,
                        strcmp(target, "UTF8_STRING") == 0 ? "text" : target);
    return receive_into(s, offer->id, type, timeout, k, err);
}

cwl_status cwl_paste(const char *display, const char *runtime_dir, cwl_selection selection, const char *target,
                     double timeout, double total, int out_fd, uint8_t **out, size_t *out_len, cwl_error *err) {
    *out = NULL;
    *out_len = 0;
    if (target == NULL || *target == '\0') return cwl_fail(err, CWL_NO_CONTENT, 0, "no target named");
    cwl_session *s = calloc(1, sizeof *s);
    if (s == NULL) return cwl_fail(err, CWL_FAILED, errno, "malloc: %s", ud_strerror(errno).text);
    s->keep_types = 1;
    double deadline = ud_now() + timeout;
    cwl_status st = cwl_session_open(s, display, runtime_dir, selection, deadline, NULL, err);
    if (st != CWL_OK) {
        free(s);
        return st;
    }
    st = cwl_roundtrip(&s->conn, deadline, handle_event, s, err);
    sink k = {.fd = out_fd, .start = deadline - timeout, .whole = total > timeout ? total : timeout};
    if (st == CWL_OK) st = read_offer(s, target, timeout, &k, err);
    cwl_session_close(s);
    free(s);
    if (st != CWL_OK) {
        free(k.data);
        return st;
    }
    *out = k.data;
    *out_len = k.len;
    return CWL_OK;
}
