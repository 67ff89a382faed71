#ifndef USERDEBUG_CX11_HOST_H
#define USERDEBUG_CX11_HOST_H
/*
 * cx11_host: a selection owner inside a long-lived, single-threaded caller (the hotkey daemon),
 * instead of a detached process. It owns the selection on a window of its own connection and
 * answers requests when the caller's event loop calls cx11_host_service, with the detached
 * owner's serving code and rules (cx11_own in cx11.h: the same targets, secret markers, INCR with
 * per-requestor state and idle deadlines, SelectionClear, the clear of a secret only while still
 * ours, the clipboard-manager hand-off). No call waits past its deadline; a stalled requestor
 * stalls nothing (its transfer waits for it, then is dropped). Errors follow cx11.h.
 */
#include "cx11.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An in-process owner of one selection (opaque). */
typedef struct cx11_host cx11_host;

/* Connect (within timeout seconds) and make our window. display NULL or "": $DISPLAY; authority
 * NULL: $XAUTHORITY, else ~/.Xauthority. *out: release with cx11_host_close. */
cx11_status cx11_host_open(const char *display, const char *authority, cx11_selection selection, double timeout,
                           cx11_host **out, cx11_error *err);

/* Disconnect and free what it serves (NULL is fine). The selection is lost with the connection. */
void cx11_host_close(cx11_host *h);

/* The connection's descriptor: poll it for readability, then call cx11_host_service. */
int cx11_host_fd(const cx11_host *h);

/*
 * Take the selection with a copy of `bytes` (kind, is_secret, clear_after, lifetime,
 * transfer_timeout, handoff_timeout and handoff_at_once from options; its display, authority and
 * the fork and reuse flags do not apply), and confirm it within options->connect_timeout. It is
 * stamped with event_time, the server time of the event that asked for the copy (a key press, as
 * ICCCM asks: no round trip for a timestamp), or with a fresh server time when event_time is 0 or
 * the server refused it (a newer owner since the event). CX11_OK once we own it with them; CX11_TIMED_OUT, CX11_NOT_OWNER,
 * CX11_NO_DISPLAY (the server went away), CX11_FAILED (out of memory).
 */
cx11_status cx11_host_copy(cx11_host *h, const cx11_own_options *options, const uint8_t *bytes, size_t len,
                           uint32_t event_time, cx11_error *err);

/* Handle every queued event and due timer without blocking. *next: the next timer's deadline on
 * the cx11 monotonic clock, as seconds from now (0: no timer). CX11_NO_DISPLAY once the X server
 * went away. */
cx11_status cx11_host_service(cx11_host *h, double *next_in, cx11_error *err);

/* Do we own the selection now (as far as the events read so far tell)? */
int cx11_host_owns(const cx11_host *h);

/*
 * Before the caller leaves: hand what we own to a detached owner process (cx11_own with
 * options' display, authority, connect_timeout, reuse_owner and single_fork; a new owner, which
 * then listens for the next copies), with the content's kind and secrecy and what is left of its
 * clear and lifetime timers. CX11_NO_CONTENT when we own nothing; else cx11_own's result.
 */
cx11_status cx11_host_hand_over(cx11_host *h, const cx11_own_options *options, pid_t *owner_pid, cx11_error *err);

#ifdef __cplusplus
}
#endif
#endif
