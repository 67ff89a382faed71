#ifndef USERDEBUG_CX11_INTERNAL_H
#define USERDEBUG_CX11_INTERNAL_H
/* Shared by the cx11 sources; not part of the module's public header. */
#include "cx11.h"
#include "cx11_testing.h"
#include "ud_resident.h"
#include "ud_shared.h"
#include <sys/socket.h>
#include <sys/un.h>
#include <xcb/xcb.h>

/* The atoms every entry point may need, interned in one round trip. */
enum cx11_atom_index {
    CX11_A_CLIPBOARD,
    CX11_A_TARGETS,
    CX11_A_TIMESTAMP,
    CX11_A_MULTIPLE,
    CX11_A_ATOM_PAIR,
    CX11_A_INCR,
    CX11_A_UTF8_STRING,
    CX11_A_TEXT_PLAIN_UTF8,
    CX11_A_TEXT,
    CX11_A_JSON,
    CX11_A_OCTET_STREAM,
    CX11_A_KDE_HINT,
    CX11_A_COPYQ_HIDDEN,
    CX11_A_CLIPBOARD_MANAGER,
    CX11_A_SAVE_TARGETS,
    CX11_A_PROPERTY, /* our own property name, for reading and for SAVE_TARGETS */
    CX11_A_COUNT
};

/* A connection with its root window, our (unmapped InputOnly) window and atoms. */
typedef struct cx11_session {
    xcb_connection_t *c;
    xcb_window_t root;
    xcb_window_t window;
    xcb_atom_t atoms[CX11_A_COUNT];
} cx11_session;

/* Fill err (printf-style message) and return status. errno_value 0 when not a system call. */
cx11_status cx11_fail(cx11_error *err, cx11_status status, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Connect to `display` (NULL/"" -> $DISPLAY) with the deadline `deadline` (ud_now() time).
 * On CX11_OK *out is a live connection and *screen the screen number from the DISPLAY string.
 */
cx11_status cx11_connect(const char *display, const char *authority, double deadline,
                         xcb_connection_t **out, int *screen, cx11_error *err);

/*
 * Open a session: connect, intern the atoms, create our window (PropertyChange selected) and
 * obtain a server timestamp by appending zero bytes to one of its properties. One round trip
 * after the connection setup. On CX11_OK *timestamp is a real server time.
 */
cx11_status cx11_session_open(cx11_session *s, const char *display, const char *authority,
                              double deadline, xcb_timestamp_t *timestamp, cx11_error *err);

/* Disconnect (NULL-safe on s->c). */
void cx11_session_close(cx11_session *s);

/* How a wait on the X connection ended. */
typedef enum cx11_wait {
    CX11_WAIT_OK = 0,        /* the reply or event arrived */
    CX11_WAIT_TIMED_OUT = 1, /* the deadline passed */
    CX11_WAIT_CLOSED = 2,    /* the connection died (xcb_connection_has_error) */
    CX11_WAIT_FAILED = 3,    /* the server answered with an X error, or poll failed */
} cx11_wait;

/*
 * The one way to wait for a reply: flushes, then waits until the reply to request `sequence`
 * arrives or the deadline passes. Events that arrive meanwhile stay queued in xcb. An X error is
 * freed here. Returns the reply (free it), or NULL with *why saying why not (why may be NULL
 * when the caller only needs the reply).
 */
void *cx11_reply(xcb_connection_t *c, unsigned int sequence, double deadline, cx11_wait *why);

/*
 * Next event (free it), flushing first and waiting until the deadline. NULL on timeout or when
 * the connection died, *why saying which (CX11_WAIT_TIMED_OUT, CX11_WAIT_CLOSED, or
 * CX11_WAIT_FAILED when poll failed).
 */
xcb_generic_event_t *cx11_wait_event(xcb_connection_t *c, double deadline, cx11_wait *why);

/* The selection atom for a cx11_selection. */
xcb_atom_t cx11_selection_atom(const cx11_session *s, cx11_selection selection);

/*
 * The resident owner (cx11_resident.c): a serving process takes the next copy's content over an
 * abstract unix socket named after the protocol version, our uid, the selection and the display.
 */
enum {
    CX11_RESIDENT_VERSION = 1,
    CX11_OFFER_MAGIC = 0x75646f31, /* "udo1" */
    /* Larger payloads go the usual way (connect and fork): they gain nothing measurable by it,
     * and a serving process should not hold two large payloads while old transfers finish. */
    CX11_RESIDENT_MAX_BYTES = 4 << 20,
};

/* What a copy sends to a resident owner: this header, then len bytes. Same binary both sides
 * (the socket name carries the executable's identity). Durations in seconds. */
typedef struct cx11_offer_header {
    uint32_t magic;
    uint32_t kind;      /* cx11_kind */
    uint32_t is_secret;
    uint32_t reserved;
    double deadline;    /* the copy stops waiting then (ud_now(): CLOCK_MONOTONIC, one machine);
                           the owner must not take the selection for it after that */
    double clear_after;
    double lifetime;
    double transfer_timeout;
    double handoff_timeout;
    uint64_t len;
} cx11_offer_header;

/* The answer: status CX11_OK once the selection is ours again with the new content. */
typedef struct cx11_offer_reply {
    uint32_t magic;
    int32_t status;
    int32_t pid;
    uint32_t timestamp; /* the server time the selection was taken with */
} cx11_offer_reply;

/*
 * Hand bytes to a resident owner of options->selection on options->display, if one of ours
 * listens. 1 when it confirmed owning the selection with them (*owner_pid its pid); 0 in every
 * other case (none listening, another uid, too large, hand-off at once, refused, deadline), and
 * the caller then owns the selection itself. Never waits past `deadline`.
 */
int cx11_resident_offer(const cx11_own_options *options, const uint8_t *bytes, size_t len, double deadline,
                        pid_t *owner_pid);

/* The header that describes a copy with `options` of len bytes, which stops waiting at
 * `deadline`: what a copy sends a resident owner, and what a forked owner starts serving with. */
void cx11_offer_terms(const cx11_own_options *options, size_t len, double deadline, cx11_offer_header *h);

/* What the serving process starts with: the session it inherited at the fork (its connection
 * shared with nobody once the caller released it), the selection taken at `acquired`, and the
 * payload in its copy of the caller's memory. */
typedef struct cx11_serve_config {
    cx11_session session;
    xcb_atom_t selection;
    xcb_timestamp_t acquired;
    const uint8_t *bytes;
    size_t len;
    const cx11_own_options *options;
} cx11_serve_config;

/* The serving process (cx11_serve.c): detaches, then serves until it leaves; never returns,
 * ends with _exit. Call only in the child of a fork (C only from there on). */
__attribute__((noreturn)) void cx11_serve(const cx11_serve_config *config);

#endif
