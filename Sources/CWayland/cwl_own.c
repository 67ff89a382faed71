/*
 * Taking the selection in the caller: a data source with our types, set as the selection,
 * confirmed by the device showing our offer as the current one (see cwl_owner_take in
 * cwl_owner.h); then the fork (see cwl_own in cwl.h).
 */
#define _GNU_SOURCE
#include "cwl_known.h"
#include "cwl_owner.h"
#include "cwl_resident.h"
#include "ud_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const text_types[] = {"text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING"};

#define CWL_HINT_TYPE "x-kde-passwordManagerHint"
#define CWL_COPYQ_HIDDEN_TYPE "application/x-copyq-hidden"

/* Offer `type` on our source and remember it among ours. */
static cwl_status offer(cwl_owner *w, const char *type, cwl_error *err) {
    if (w->s.ours_count < CWL_MAX_OURS) w->s.ours[w->s.ours_count++] = type;
    return cwl_request(&w->s.conn, err, w->source, CWL_SOURCE_OFFER, type);
}

static cwl_status offer_types(cwl_owner *w, cwl_error *err) {
    cwl_status st = CWL_OK;
    w->s.ours_count = 0;
    if (w->o.offer_text)
        for (size_t i = 0; i < sizeof text_types / sizeof *text_types && st == CWL_OK; i++)
            st = offer(w, text_types[i], err);
    if (st == CWL_OK && w->o.kind == CWL_KIND_JSON) st = offer(w, "application/json", err);
    if (st == CWL_OK && w->o.kind == CWL_KIND_BINARY) st = offer(w, "application/octet-stream", err);
    if (st == CWL_OK && w->o.is_secret) st = offer(w, CWL_HINT_TYPE, err);
    if (st == CWL_OK && w->o.is_secret) st = offer(w, CWL_COPYQ_HIDDEN_TYPE, err);
    return st;
}

cwl_status cwl_owner_take(cwl_owner *w, double deadline, cwl_error *err) {
    cwl_conn *c = &w->s.conn;
    w->source = cwl_new_id(c);
    cwl_status st = cwl_request(c, err, w->s.manager, CWL_MANAGER_CREATE_DATA_SOURCE, w->source);
    if (st == CWL_OK) st = offer_types(w, err);
    /* The fence: the device's events before its done were caused before our set_selection. */
    w->s.fenced = 0;
    w->fence = cwl_new_id(c);
    if (st == CWL_OK) st = cwl_request(c, err, CWL_DISPLAY_ID, CWL_DISPLAY_SYNC, w->fence);
    uint32_t set = w->o.selection == CWL_PRIMARY ? CWL_DEVICE_SET_PRIMARY_SELECTION : CWL_DEVICE_SET_SELECTION;
    if (st == CWL_OK) st = cwl_request(c, err, w->s.device, set, w->source);
    if (st == CWL_OK) st = cwl_roundtrip(c, deadline, cwl_owner_event, w, err);
    if (st == CWL_OK) st = cwl_flush(c, deadline, err); /* offers destroyed while handling events */
    if (st == CWL_TIMED_OUT)
        return cwl_fail(err, CWL_NOT_OWNER, ETIMEDOUT, "the compositor did not confirm the selection in time");
    if (st != CWL_OK) return st;
    if (w->cancelled)
        return cwl_fail(err, CWL_NOT_OWNER, 0, "the compositor cancelled our source at once (replaced or refused)");
    if (w->s.finished) return cwl_fail(err, CWL_NOT_OWNER, 0, "the data-control device went away (seat removed)");
    cwl_offer *current = cwl_session_offer(&w->s, w->s.current);
    if (!cwl_session_offer_is_ours(&w->s, current))
        return cwl_fail(err, CWL_NOT_OWNER, 0, "the compositor shows another %s than ours",
                        w->o.selection == CWL_PRIMARY ? "primary selection" : "selection");
    /* What came in the same read as the confirmation (a reader asking the moment the selection
     * is ours, as clipboard managers do) is handled now: left in the buffer, it would never be
     * seen by the serving loop, which waits on the socket. */
    cwl_msg m;
    int got;
    while ((got = cwl_next(c, 0, &m, err)) > 0)
        if ((st = cwl_owner_event(w, c, &m, err)) != CWL_OK) return st;
    return got < 0 ? err->status : CWL_OK;
}

static cwl_status fork_server(cwl_owner *w, pid_t *owner_pid, cwl_error *err) {
    int err_no = 0;
    pid_t pid = 0;
    ud_owner_status fs = ud_owner_fork(w->o.single_fork ? UD_OWNER_FORK_ONCE : UD_OWNER_FORK_TWICE, &pid, &err_no);
    if (fs == UD_OWNER_IN_SERVER) {
        int keep[CWL_MAX_TRANSFERS + 1];
        size_t n = 0;
        keep[n++] = w->s.conn.fd;
        for (size_t i = 0; i < w->transfer_count; i++) keep[n++] = w->transfers[i].fd;
        int signal_fd = -1;
        (void)ud_owner_detach(keep, n, &signal_fd, &err_no);
        cwl_owner_serve(w, signal_fd);
    }
    if (fs != UD_OWNER_OK)
        return cwl_fail(err, CWL_FAILED, err_no, "fork of the owner process: %s", ud_strerror(err_no).text);
    *owner_pid = pid;
    return CWL_OK;
}

cwl_status cwl_own(const cwl_own_options *options, const uint8_t *bytes, size_t len, pid_t *owner_pid,
                   cwl_error *err) {
    if (options->reuse_owner && !options->new_owner && !options->skip_hand &&
        cwl_resident_hand(options, bytes, len, owner_pid) == CWL_OK)
        return CWL_OK;
    cwl_owner *w = calloc(1, sizeof *w);
    cwl_buffer *content = calloc(1, sizeof *content);
    if (w == NULL || content == NULL) {
        free(w);
        free(content);
        return cwl_fail(err, CWL_FAILED, ENOMEM, "malloc: %s", ud_strerror(ENOMEM).text);
    }
    *content = (cwl_buffer){.data = bytes, .len = len};
    w->o = *options;
    w->o.probed = NULL; /* the caller's; the serving process never reports */
    w->content = content;
    w->listener = -1;
    w->s.conn.fd = -1;
    double deadline = ud_now() + options->connect_timeout;
    cwl_known known;
    cwl_known_locate(&known, options->display, options->runtime_dir);
    int fall_back = 1;
    cwl_status st = cwl_known_own(w, &known, deadline, options->probed, &fall_back, err);
    if (fall_back) {
        st = cwl_session_open(&w->s, options->display, options->runtime_dir, options->selection, deadline,
                              options->probed, err);
        if (st == CWL_OK) cwl_known_keep(&known, &w->s);
        if (st == CWL_OK) st = cwl_owner_take(w, deadline, err);
    }
    if (st == CWL_OK) st = fork_server(w, owner_pid, err);
    cwl_owner_drop_transfers(w);
    cwl_session_close(&w->s);
    free(content);
    free(w);
    return st;
}

cwl_status cwl_hand(const cwl_own_options *options, const uint8_t *bytes, size_t len, pid_t *owner_pid,
                    cwl_error *err) {
    if (cwl_resident_hand(options, bytes, len, owner_pid) == CWL_OK) return CWL_OK;
    return cwl_fail(err, CWL_NO_OWNER, 0, "no serving process of ours took the copy");
}

void cwl_free(void *buffer) { free(buffer); }
