/* INCR transfers: payloads larger than one request, sent in chunks as each requestor asks. */
#define _GNU_SOURCE
#include "cx11_transfer.h"

#include <stdlib.h>
#include <sys/socket.h>

/* Tk refuses properties above this; also a sensible INCR chunk for everyone else. */
enum { CX11_MAX_CHUNK = 400000 };

void cx11_transfers_init(cx11_transfers *ts, xcb_connection_t *c, xcb_atom_t incr) {
    *ts = (cx11_transfers){.c = c, .incr = incr};
    /* A socket buffer that holds a whole INCR chunk lets one write hand the server a chunk, so
     * each step of a large transfer costs one wake-up of the server instead of several. */
    int sndbuf = 2 * CX11_MAX_CHUNK;
    (void)setsockopt(xcb_get_file_descriptor(c), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    ts->chunk = cx11_chunk_for((uint64_t)xcb_get_maximum_request_length(c) * 4);
}

size_t cx11_chunk_for(uint64_t max_request_bytes) {
    size_t chunk = max_request_bytes > 1024 ? (size_t)(max_request_bytes - 64) : 1024;
    return chunk > CX11_MAX_CHUNK ? CX11_MAX_CHUNK : chunk;
}

int cx11_transfer_needed(const cx11_transfers *ts, size_t len) { return len > ts->chunk; }

/* The transfer to (w, property), or NULL. */
static cx11_transfer *find(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property) {
    for (size_t i = 0; i < ts->count; i++)
        if (ts->items[i].requestor == w && ts->items[i].property == property) return &ts->items[i];
    return NULL;
}

/* Select (or stop selecting) the events of a requestor window that drive its transfers. */
static void watch_window(cx11_transfers *ts, xcb_window_t w, int on) {
    uint32_t mask = on ? (XCB_EVENT_MASK_PROPERTY_CHANGE | XCB_EVENT_MASK_STRUCTURE_NOTIFY) : 0;
    xcb_change_window_attributes(ts->c, w, XCB_CW_EVENT_MASK, &mask);
}

/* Remove transfer i; stop watching its window when no other transfer uses it. */
static void drop(cx11_transfers *ts, size_t i, int window_alive) {
    xcb_window_t w = ts->items[i].requestor;
    cx11_content_release(ts->items[i].content);
    ts->items[i] = ts->items[--ts->count];
    if (!window_alive) return;
    for (size_t k = 0; k < ts->count; k++)
        if (ts->items[k].requestor == w) return;
    watch_window(ts, w, 0);
}

/* A slot for a new transfer at the end of the table; NULL when out of memory. */
static cx11_transfer *append(cx11_transfers *ts) {
    if (ts->count == ts->capacity) {
        size_t cap = ts->capacity ? ts->capacity * 2 : 8;
        cx11_transfer *grown = realloc(ts->items, cap * sizeof *grown);
        if (grown == NULL) return NULL;
        ts->items = grown;
        ts->capacity = cap;
    }
    return &ts->items[ts->count++];
}

int cx11_transfer_start(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property, xcb_atom_t type, cx11_content *ct,
                        const uint8_t *data, size_t len) {
    cx11_transfer *t = find(ts, w, property);
    if (t == NULL) t = append(ts);
    else cx11_content_release(t->content); /* the same requestor and property asked again: start over */
    if (t == NULL) return 0;
    cx11_content_hold(ct);
    *t = (cx11_transfer){
        .requestor = w, .property = property, .type = type, .content = ct, .data = data,
        .len = len, .offset = 0, .timeout = ts->timeout, .deadline = ud_now() + ts->timeout,
    };
    watch_window(ts, w, 1);
    uint32_t size_hint = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
    xcb_change_property(ts->c, XCB_PROP_MODE_REPLACE, w, property, ts->incr, 32, 1, &size_hint);
    return 1;
}

void cx11_transfer_cancel(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property) {
    cx11_transfer *stale = find(ts, w, property);
    if (stale != NULL) drop(ts, (size_t)(stale - ts->items), 1);
}

void cx11_transfer_continue(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property) {
    cx11_transfer *t = find(ts, w, property);
    if (t == NULL) return;
    size_t n = t->len - t->offset;
    if (n > ts->chunk) n = ts->chunk;
    xcb_change_property(ts->c, XCB_PROP_MODE_REPLACE, t->requestor, t->property, t->type, 8, (uint32_t)n,
                        t->data + t->offset);
    if (n == 0) {
        drop(ts, (size_t)(t - ts->items), 1);
        return;
    }
    t->offset += n;
    t->deadline = ud_now() + t->timeout;
}

void cx11_transfers_drop_window(cx11_transfers *ts, xcb_window_t w) {
    for (size_t i = ts->count; i-- > 0;)
        if (ts->items[i].requestor == w) drop(ts, i, 0);
}

double cx11_transfers_expire(cx11_transfers *ts, double now) {
    for (size_t i = ts->count; i-- > 0;)
        if (ts->items[i].deadline <= now) drop(ts, i, 1);
    double next = 0;
    for (size_t i = 0; i < ts->count; i++)
        if (next == 0 || ts->items[i].deadline < next) next = ts->items[i].deadline;
    return next;
}
