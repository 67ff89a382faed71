#ifndef USERDEBUG_CX11_INTERNAL_H
#define USERDEBUG_CX11_INTERNAL_H
/* Shared by the cx11 sources; not part of the module's public header. */
#include "cx11.h"
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

/* Monotonic clock in seconds. */
double cx11_now(void);

/* Fill err (printf-style message) and return status. errno_value 0 when not a system call. */
cx11_status cx11_fail(cx11_error *err, cx11_status status, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* cx11_connect flags. */
enum {
    /* Bound the setup handshake with a timer signal to the calling thread instead of a watchdog
     * thread: for a caller that owns its process (see cx11_connect.c). */
    CX11_CONNECT_TIMER_SIGNAL = 1,
};

/*
 * Connect to `display` (NULL/"" -> $DISPLAY) with the deadline `deadline` (cx11_now() time).
 * On CX11_OK *out is a live connection and *screen the screen number from the DISPLAY string.
 */
cx11_status cx11_connect(const char *display, const char *authority, double deadline, int flags,
                         xcb_connection_t **out, int *screen, cx11_error *err);

/*
 * Open a session: connect, intern the atoms, create our window (PropertyChange selected) and
 * obtain a server timestamp by appending zero bytes to one of its properties. One round trip
 * after the connection setup. On CX11_OK *timestamp is a real server time.
 */
cx11_status cx11_session_open(cx11_session *s, const char *display, const char *authority,
                              double deadline, int flags, xcb_timestamp_t *timestamp, cx11_error *err);

/* Disconnect (NULL-safe on s->c). */
void cx11_session_close(cx11_session *s);

/*
 * Wait until the reply to request `sequence` arrives or the deadline passes. Events that arrive
 * meanwhile stay queued in xcb. Returns the reply (free it) or NULL with *xerr set (free it) on
 * an X error, or NULL with *xerr NULL on timeout (*timed_out = 1) or a dead connection.
 */
void *cx11_wait_reply(xcb_connection_t *c, unsigned int sequence, double deadline,
                      xcb_generic_error_t **xerr, int *timed_out);

/*
 * Next event (free it), waiting until the deadline. NULL on timeout (*timed_out = 1) or when
 * the connection died (*timed_out = 0; check xcb_connection_has_error).
 */
xcb_generic_event_t *cx11_wait_event(xcb_connection_t *c, double deadline, int *timed_out);

/* Poll one fd for readability until the deadline: 1 readable/hung up, 0 timeout, -1 error. */
int cx11_wait_fd(int fd, double deadline);

/* The selection atom for a cx11_selection. */
xcb_atom_t cx11_selection_atom(const cx11_session *s, cx11_selection selection);

/* The owner's serving loop (cx11_owner_serve.c); never returns, ends with _exit. */
typedef struct cx11_serve_config {
    cx11_session session;
    xcb_atom_t selection;
    xcb_timestamp_t acquired;
    const uint8_t *bytes;
    size_t len;
    const cx11_own_options *options;
} cx11_serve_config;

__attribute__((noreturn)) void cx11_serve(const cx11_serve_config *config);

#endif
