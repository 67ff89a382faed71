#ifndef USERDEBUG_CX11_CONTENT_H
#define USERDEBUG_CX11_CONTENT_H
/* What the selection holds (cx11_content.c). */
#include "cx11_serve.h"

/*
 * What the selection holds: the bytes and what they are. A resident owner replaces it when a new
 * copy arrives; a transfer of the old content keeps it alive (refs) until it ends.
 */
typedef struct cx11_content {
    unsigned refs;          /* the holding's current content holds one; each transfer of it one */
    const uint8_t *bytes;
    size_t len;
    uint8_t *received;      /* bytes from an offer (malloc'd); NULL for the payload inherited at fork */
    int on_heap;            /* the struct itself was malloc'd (offers); the first lives in the server */
    cx11_kind kind;
    int is_secret;
    /* Facts about the bytes: computed in slices while idle, or at once on first need. */
    int scanned, is_utf8, is_ascii, is_latin1;
    size_t scan_pos;        /* how far the idle scan got; what it saw so far: */
    int scan_non_ascii, scan_non_latin1;
    uint8_t *latin1;
    size_t latin1_len;
} cx11_content;

/* A content for len bytes received from an offer (taken over: freed with the content), with one
 * reference; NULL when out of memory (bytes are then still the caller's). */
cx11_content *cx11_content_received(uint8_t *bytes, size_t len, cx11_kind kind, int is_secret);

/* One more reference (a transfer of it). ct non-NULL. */
void cx11_content_hold(cx11_content *ct);

/*
 * Drop one reference to a content (NULL is fine); the last frees what it holds. The payload
 * inherited at fork lives in the caller's heap image, which this C-only process never touches
 * again: its whole pages are given back to the kernel instead, so a large first copy does not
 * stay resident in an owner that serves newer content.
 */
void cx11_content_release(cx11_content *ct);

/* Classifies the payload (valid UTF-8? ASCII? Latin-1?). The server runs it in slices of max
 * bytes while idle, so it neither delays the first request nor competes with a transfer for the
 * CPU; cx11_scan_text finishes it at once when a target needs the answer before that.
 * Returns 1 once the payload is classified (ct->scanned), 0 while bytes remain. */
int cx11_scan_text_step(cx11_content *ct, size_t max);
void cx11_scan_text(cx11_content *ct);

/* What a request is answered from: a content and the server time the selection was taken with it. */
typedef struct cx11_source {
    cx11_content *content;
    xcb_timestamp_t acquired;
} cx11_source;

/* What we serve now, and what we served before the last re-take. */
typedef struct cx11_holding {
    cx11_source current;    /* content NULL before the first cx11_holding_take */
    /* The content before the last hand-over, for requests the server stamped before our re-take
     * but that we read after it (kept for a second). */
    cx11_source previous;
    double previous_until;
} cx11_holding;

/* Serve ct (its reference passes to the holding) from `acquired` on; the content it replaces
 * answers requests stamped before that for one more second (from `now`). */
void cx11_holding_take(cx11_holding *h, cx11_content *ct, xcb_timestamp_t acquired, double now);

/* The source that answers a request stamped `time` (XCB_CURRENT_TIME: now): the current content,
 * the previous one for a request stamped before the last re-take, or none (content NULL) for a
 * request older than both. */
cx11_source cx11_holding_answering(const cx11_holding *h, xcb_timestamp_t time);

/* Release the previous content once its second is over. Returns its deadline (0: none left). */
double cx11_holding_expire(cx11_holding *h, double now);

#endif
