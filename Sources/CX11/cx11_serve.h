#ifndef USERDEBUG_CX11_SERVE_H
#define USERDEBUG_CX11_SERVE_H
/* The selection server's state, shared by cx11_serve.c and cx11_targets.c. */
#include "cx11_internal.h"

/*
 * What the selection holds: the bytes and what they are. A resident owner replaces it when a new
 * copy arrives; a transfer of the old content keeps it alive (refs) until it ends.
 */
typedef struct cx11_content {
    unsigned refs;          /* the server's current content holds one; each transfer of it one */
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

/* One INCR transfer, keyed by (requestor, property). */
typedef struct cx11_transfer {
    xcb_window_t requestor;
    xcb_atom_t property;
    xcb_atom_t type;
    cx11_content *content;  /* holds a reference: data points into it */
    const uint8_t *data;
    size_t len;
    size_t offset;
    double timeout;  /* the idle bound of the copy it started under */
    double deadline; /* dropped when the requestor stays idle past this */
} cx11_transfer;

typedef struct cx11_server {
    const cx11_serve_config *cfg;
    xcb_connection_t *c;
    const xcb_atom_t *atoms;
    xcb_window_t window;
    xcb_atom_t selection;
    xcb_timestamp_t acquired;
    size_t chunk;           /* largest property we write at once; INCR above it */
    int owning;             /* we still own the selection */
    int leaving;            /* SIGTERM or lifetime: leave once hand-off and transfers end */
    int handoff_pending;    /* waiting for the clipboard manager's SAVE_TARGETS answer */
    int handoff_needs_time; /* SAVE_TARGETS waits for the server time of our property change */
    double handoff_deadline;
    double clear_at;        /* secrets: 0 when never */
    double leave_at;        /* lifetime: 0 when never */
    double transfer_timeout;/* of the current content's copy */
    double handoff_timeout; /* likewise */
    cx11_transfer *transfers;
    size_t count, capacity;
    cx11_content *content;  /* what we serve now */
    cx11_content first;     /* the payload the process was forked with */
    /* The content before the last hand-over, for requests the server stamped before our re-take
     * but that we read after it (kept for a second). */
    cx11_content *previous;
    xcb_timestamp_t previous_acquired;
    double previous_until;
    unsigned pending_stamps;/* zero-length appends whose PropertyNotify has not arrived yet */
    int listen_fd;          /* resident owner: takes the next copy's content; -1 when not listening */
    double listen_retry_at; /* the name was still held by the previous owner: try again then (0: never) */
    double listen_give_up;
} cx11_server;

/* The answer to one target: property type, format and bytes. */
typedef struct cx11_conversion {
    xcb_atom_t type;
    uint8_t format;       /* 8 or 32 */
    const void *data;
    size_t len;           /* in bytes */
    uint32_t scratch[24]; /* for TARGETS and TIMESTAMP */
} cx11_conversion;

/* Classifies the payload (valid UTF-8? ASCII? Latin-1?). The server runs it in slices of max
 * bytes while idle, so it neither delays the first request nor competes with a transfer for the
 * CPU; cx11_scan_text finishes it at once when a target needs the answer before that. */
int cx11_scan_text_step(cx11_content *ct, size_t max);
void cx11_scan_text(cx11_content *ct);

/* Fill cv for target from the current content; 0 when the target is refused. cv->data may point
 * into cv->scratch. */
int cx11_convert(cx11_server *sv, xcb_atom_t target, cx11_conversion *cv);

/* The data targets (no TARGETS/TIMESTAMP/MULTIPLE); out holds at least 8. Returns the count. */
size_t cx11_data_targets(cx11_server *sv, xcb_atom_t *out);

/* Whether leaving should first ask a clipboard manager to save the content. */
int cx11_can_hand_off(const cx11_server *sv);

#endif
