#ifndef USERDEBUG_CX11_TRANSFER_H
#define USERDEBUG_CX11_TRANSFER_H
/* INCR transfers (cx11_transfer.c): one per (requestor window, property). */
#include "cx11_content.h"

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

/* The table of running transfers. */
typedef struct cx11_transfers {
    xcb_connection_t *c;
    xcb_atom_t incr;
    size_t chunk;           /* largest property we write at once; INCR above it */
    double timeout;         /* idle bound for transfers started from now on (the current copy's) */
    cx11_transfer *items;
    size_t count, capacity;
} cx11_transfers;

/* An empty table for connection c (INCR interned as `incr`): sizes the chunk by the server's
 * maximum request length (at most 400,000 bytes) and widens the socket's send buffer to match. */
void cx11_transfers_init(cx11_transfers *ts, xcb_connection_t *c, xcb_atom_t incr);

/* The largest property written at once (INCR above it) on a server whose largest request is
 * max_request_bytes: a little less than that, at most 400,000 bytes (Tk's limit). */
size_t cx11_chunk_for(uint64_t max_request_bytes);

/* Does a property of len bytes (format 8) need INCR? */
int cx11_transfer_needed(const cx11_transfers *ts, size_t len);

/*
 * Start an INCR transfer of len bytes of `type` at data (inside ct, which it holds a reference
 * to) to (w, property): announce the size, watch the window, send chunks as the requestor
 * deletes the property. A transfer already running there starts over. 0 when out of memory.
 */
int cx11_transfer_start(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property, xcb_atom_t type, cx11_content *ct,
                        const uint8_t *data, size_t len);

/* Something else is written to (w, property): a transfer running there is dropped. */
void cx11_transfer_cancel(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property);

/* The requestor deleted (w, property): send its transfer's next chunk, or the empty one that ends
 * it. Nothing when no transfer runs there. */
void cx11_transfer_continue(cx11_transfers *ts, xcb_window_t w, xcb_atom_t property);

/* The window died: drop its transfers (without touching it). */
void cx11_transfers_drop_window(cx11_transfers *ts, xcb_window_t w);

/* Drop the transfers idle past their deadline. Returns the next deadline (0: none running). */
double cx11_transfers_expire(cx11_transfers *ts, double now);

#endif
