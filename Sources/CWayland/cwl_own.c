/*
 * Taking the selection in the caller: a data source with our types, set as the selection,
 * confirmed by the device showing our marked offer as the current one; then the fork (see
 * cwl_own in cwl.h).
 */
#define _GNU_SOURCE
#include "cwl_known.h"
#include "cwl_owner.h"
#include "cwl_resident.h"
#include "ud_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const text_types[] = {"text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING"};

#define CWL_HINT_TYPE "x-kde-passwordManagerHint"
#define CWL_COPYQ_HIDDEN_TYPE "application/x-copyq-hidden"

static cwl_status offer_types(cwl_owner *w, cwl_error *err) {
    cwl_conn *c = &w->s.conn;
    cwl_status st = CWL_OK;
    if (w->o.offer_text)
        for (size_t i = 0; i < sizeof text_types / sizeof *text_types && st == CWL_OK; i++)
            st = cwl_request(c, err, w->source, CWL_SOURCE_OFFER, "s", text_types[i]);
    if (st == CWL_OK && w->o.kind == CWL_KIND_JSON)
        st = cwl_request(c, err, w->source, CWL_SOURCE_OFFER, "s", "application/json");
    if (st == CWL_OK && w->o.kind == CWL_KIND_BINARY)
        st = cwl_request(c, err, w->source, CWL_SOURCE_OFFER, "s", "application/octet-stream");
    if (st == CWL_OK && w->o.is_secret) st = cwl_request(c, err, w->source, CWL_SOURCE_OFFER, "s", CWL_HINT_TYPE);
    if (st == CWL_OK && w->o.is_secret)
        st = cwl_request(c, err, w->source, CWL_SOURCE_OFFER, "s", CWL_COPYQ_HIDDEN_TYPE);
    if (st == CWL_OK) st = cwl_request(c, err, w->source, CWL_SOURCE_OFFER, "s", w->marker);
    return st;
}

void cwl_owner_mark(cwl_owner *w) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(w->marker, sizeof w->marker, "application/x-userdebug-owner;pid=%ld;t=%lld.%09ld", (long)getpid(),
             (long long)ts.tv_sec, ts.tv_nsec);
    w->s.marker = w->marker;
}

cwl_status cwl_owner_offer(cwl_owner *w, double deadline, cwl_error *err) {
    cwl_conn *c = &w->s.conn;
    w->source = cwl_new_id(c);
    cwl_status st = cwl_request(c, err, w->s.manager, CWL_MANAGER_CREATE_DATA_SOURCE, "u", w->source);
    if (st == CWL_OK) st = offer_types(w, err);
    uint32_t set = w->o.selection == CWL_PRIMARY ? CWL_DEVICE_SET_PRIMARY_SELECTION : CWL_DEVICE_SET_SELECTION;
    if (st == CWL_OK) st = cwl_request(c, err, w->s.device, set, "u", w->source);
    if (st == CWL_OK) st = cwl_sync(c, deadline, &w->sync, err);
    return st;
}

cwl_status cwl_owner_take(cwl_owner *w, double deadline, cwl_error *err) {
    cwl_status st = cwl_owner_offer(w, deadline, err);
    return st == CWL_OK ? cwl_owner_confirm(w, deadline, err) : st;
}

cwl_status cwl_owner_confirm(cwl_owner *w, double deadline, cwl_error *err) {
    cwl_conn *c = &w->s.conn;
    cwl_status st = cwl_await(c, w->sync, deadline, cwl_owner_event, w, err);
    if (st == CWL_OK) st = cwl_flush(c, deadline, err); /* offers destroyed while handling events */
    if (st == CWL_TIMED_OUT)
        return cwl_fail(err, CWL_NOT_OWNER, ETIMEDOUT, "the compositor did not confirm the selection in time");
    if (st != CWL_OK) return st;
    if (w->cancelled)
        return cwl_fail(err, CWL_NOT_OWNER, 0, "the compositor cancelled our source at once (replaced or refused)");
    if (w->s.finished) return cwl_fail(err, CWL_NOT_OWNER, 0, "the data-control device went away (seat removed)");
    cwl_offer *current = cwl_session_offer(&w->s, w->s.current);
    if (current == NULL || !current->marked)
        return cwl_fail(err, CWL_NOT_OWNER, 0, "the compositor shows another %s than ours",
                        w->o.selection == CWL_PRIMARY ? "primary selection" : "selection");
    return CWL_OK;
}

/* What the serving process tells the caller once it confirmed the selection, or failed to. */
typedef struct cwl_report {
    cwl_status status;
    cwl_error err;
    cwl_probe_result probed;
} cwl_report;

/* In the caller: everything a copy sends, up to the sync that confirms it. With the global names
 * the last copy kept, in one flush; else after the registry's round trip (keeping its names). */
static cwl_status send_copy(cwl_owner *w, cwl_known *k, double deadline, cwl_probe_result *probed, cwl_error *err) {
    if (cwl_known_applies(k, w->o.selection)) {
        cwl_status st = cwl_known_send(w, k, deadline, err);
        if (st == CWL_OK || st == CWL_NO_DISPLAY) return st;
    }
    cwl_status st = cwl_session_open(&w->s, w->o.display, w->o.runtime_dir, w->o.selection, deadline, probed, err);
    if (st != CWL_OK) return st;
    cwl_known_keep(k, &w->s);
    return cwl_owner_offer(w, deadline, err);
}

/* In the serving process: the confirmation; where the kept names did not hold, the usual way. */
static cwl_status confirm_copy(cwl_owner *w, cwl_known *k, double deadline, cwl_report *r) {
    cwl_status st = cwl_owner_confirm(w, deadline, &r->err);
    if (!w->via_known) return st;
    int fall_back = 0;
    st = cwl_known_settle(w, k, st, &r->probed, &fall_back, &r->err);
    if (!fall_back) return st;
    w->via_known = 0;
    st = cwl_session_open(&w->s, w->o.display, w->o.runtime_dir, w->o.selection, deadline, &r->probed, &r->err);
    if (st != CWL_OK) return st;
    cwl_known_keep(k, &w->s);
    return cwl_owner_take(w, deadline, &r->err);
}

/* The serving process: confirm, report to the caller through `report_fd`, then serve or leave. */
__attribute__((noreturn)) static void confirm_and_serve(cwl_owner *w, cwl_known *k, double deadline, int report_fd) {
    cwl_report r;
    memset(&r, 0, sizeof r);
    r.status = confirm_copy(w, k, deadline, &r);
    r.err.status = r.status;
    ssize_t n;
    do n = write(report_fd, &r, sizeof r); /* one write under PIPE_BUF: all or nothing */
    while (n < 0 && errno == EINTR);
    close(report_fd);
    if (r.status != CWL_OK || n != (ssize_t)sizeof r) _exit(0);
    int keep[CWL_MAX_TRANSFERS + 1];
    size_t count = 0;
    keep[count++] = w->s.conn.fd;
    for (size_t i = 0; i < w->transfer_count; i++) keep[count++] = w->transfers[i].fd;
    int signal_fd = -1, err_no = 0;
    (void)ud_owner_detach(keep, count, &signal_fd, &err_no);
    cwl_owner_serve(w, signal_fd);
}

/* The serving process's report, read until `deadline`: 1, or 0 (none came: it ended or is late). */
static int read_report(int fd, double deadline, cwl_report *r) {
    size_t have = 0;
    while (have < sizeof *r) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        double left = deadline - cwl_now();
        if (left <= 0) return 0;
        if (poll(&p, 1, cwl_poll_ms(left)) < 0 && errno != EINTR) return 0;
        ssize_t n = read(fd, (uint8_t *)r + have, sizeof *r - have);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return 0;
        have += (size_t)n;
    }
    return 1;
}

/*
 * Fork the serving process as soon as the requests are out, so the fork overlaps the compositor's
 * answer; the serving process reads that answer, confirms the selection (or fails) and reports
 * through a pipe; the caller returns what it reports ("confirm before returning" holds: the caller
 * returns CWL_OK only on the report of a confirmed selection).
 */
static cwl_status fork_and_confirm(cwl_owner *w, cwl_known *k, double deadline, cwl_probe_result *probed,
                                   pid_t *owner_pid, cwl_error *err) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return cwl_fail(err, CWL_FAILED, errno, "pipe: %s", cwl_strerror(errno).text);
    int err_no = 0;
    pid_t pid = 0;
    ud_owner_status fs = ud_owner_fork(w->o.single_fork ? UD_OWNER_FORK_ONCE : UD_OWNER_FORK_TWICE, &pid, &err_no);
    if (fs == UD_OWNER_IN_SERVER) {
        close(fds[0]);
        confirm_and_serve(w, k, deadline, fds[1]);
    }
    close(fds[1]);
    if (fs != UD_OWNER_OK) {
        close(fds[0]);
        return cwl_fail(err, CWL_FAILED, err_no, "fork of the owner process: %s", cwl_strerror(err_no).text);
    }
    cwl_report r;
    int got = read_report(fds[0], deadline + 1, &r);
    close(fds[0]);
    if (!got) {
        kill(pid, SIGKILL);
        return cwl_fail(err, CWL_NOT_OWNER, ETIMEDOUT, "the serving process did not confirm the selection in time");
    }
    if (probed != NULL && r.probed.answered) *probed = r.probed;
    if (r.status != CWL_OK) return cwl_fail(err, r.status, r.err.sys_errno, "%s", r.err.message);
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
        return cwl_fail(err, CWL_FAILED, ENOMEM, "malloc: %s", cwl_strerror(ENOMEM).text);
    }
    *content = (cwl_buffer){.data = bytes, .len = len};
    w->o = *options;
    w->o.probed = NULL; /* the caller's; the serving process reports through the pipe */
    w->content = content;
    w->listener = -1;
    w->s.conn.fd = -1;
    cwl_owner_mark(w);
    double deadline = cwl_now() + options->connect_timeout;
    cwl_known known;
    cwl_known_locate(&known, options->display, options->runtime_dir);
    cwl_status st = send_copy(w, &known, deadline, options->probed, err);
    if (st == CWL_OK) st = fork_and_confirm(w, &known, deadline, options->probed, owner_pid, err);
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
