#ifndef USERDEBUG_CX11_H
#define USERDEBUG_CX11_H
/*
 * cx11: an X11 selection owner and reader over libxcb.
 *
 * Every entry point connects on its own (with a deadline: a server that accepts but never
 * answers cannot block it), does one job, and disconnects. No globals, no exit(), no output on
 * stdout or stderr from this library (libxcb itself may print the server's refusal reason to
 * stderr when the connection setup is rejected, e.g. for a missing cookie).
 *
 * Errors: every function returns a cx11_status and, when it is not CX11_OK, fills the
 * caller's cx11_error with the status, the errno if a system call failed, and a one-line
 * message naming what failed.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ud_shared.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Outcome of a call (UD_STATUS_VALUES, the list of every backend; here they mean): CX11_OK; CX11_NO_DISPLAY: DISPLAY unset or unparsable, nothing listening,
 * connection refused, setup rejected, or the server silent past the deadline while connecting
 * (sys_errno ETIMEDOUT then); CX11_TIMED_OUT: a deadline passed once connected (the selection
 * owner or the server did not answer); CX11_NOT_OWNER: SetSelectionOwner did not make us the
 * owner (a newer owner, or the server refused); CX11_NO_CONTENT: reading, the selection has no
 * owner, or the owner refused the target; CX11_UNSUPPORTED: the request cannot be expressed
 * (e.g. a target name that is empty); CX11_FAILED: a system call (fork, pipe, malloc) or the X
 * protocol failed; CX11_NO_OWNER: reading, the selection has no owner at all (as opposed to a
 * refused target); CX11_TOO_SLOW: reading, an INCR owner trickled its chunks past the whole
 * read's deadline (cx11_paste_times.total).
 */
typedef enum cx11_status { UD_STATUS_VALUES(CX11) } cx11_status;

/* What went wrong; filled by every call that does not return CX11_OK: status, sys_errno
 * (errno of the failing system call, or 0), message (NUL-terminated, one line). */
UD_ERROR_TYPE(cx11_error, cx11_status);

/* The selection to own or read: CX11_CLIPBOARD, CX11_PRIMARY. */
typedef enum cx11_selection { UD_SELECTION_VALUES(CX11) } cx11_selection;

/* What the bytes are; decides the targets offered (see cx11_own). */
typedef enum cx11_kind {
    CX11_KIND_TEXT = 0,
    CX11_KIND_JSON = 1,
    CX11_KIND_BINARY = 2,
} cx11_kind;

/* How cx11_own behaves. Durations in seconds; <= 0 means "never" where noted. */
typedef struct cx11_own_options {
    const char *display;    /* NULL or "": $DISPLAY */
    const char *authority;  /* NULL: $XAUTHORITY, else ~/.Xauthority */
    cx11_selection selection;
    cx11_kind kind;
    int is_secret;          /* nonzero: add the markers managers skip, never hand to a manager */
    double connect_timeout; /* deadline for connecting and confirming ownership */
    double transfer_timeout;/* a requestor idle this long in an INCR transfer is dropped */
    double clear_after;     /* secrets: give up the selection after this, if still owner; <= 0: never */
    double lifetime;        /* leave after this (hand-off first); <= 0: until replaced */
    double handoff_timeout; /* bound on waiting for a clipboard manager's SAVE_TARGETS reply */
    int single_fork;        /* nonzero: fork once (for a caller about to exit; its child is then
                               reparented, and the caller's SIGHUP is set to ignored);
                               zero: fork twice so a long-lived caller keeps no zombie */
    int handoff_at_once;    /* nonzero: as soon as it serves, the owner asks a clipboard manager
                               (if one owns CLIPBOARD_MANAGER) to SAVE_TARGETS, and leaves once it
                               reports the content saved; with no manager, a refusal, or no answer
                               within handoff_timeout it keeps serving as usual. CLIPBOARD only,
                               never for secrets. */
    int reuse_owner;        /* nonzero: if a serving process of ours (same uid, selection and
                               display, started with reuse_owner) is running, hand the bytes to it
                               over a local socket instead of connecting and forking (payloads up to
                               4 MiB, not with handoff_at_once); the owner process then also listens
                               for the next copy. See cx11_own. */
    int new_owner;          /* with reuse_owner: do not hand the bytes to a serving process; fork
                               a new one (which then listens for the next copy) */
    const char *clear_report; /* NULL: none. After a secret's clear the owner reads the selection
                               back for a few seconds: a program that put the token back is
                               written to this file ("restored", time, selection, who); a clear
                               that held removes it. A resident owner uses the path it started with. */
} cx11_own_options;

/*
 * cx11_own: take the selection with `bytes`, confirm it, and leave a detached process serving it.
 *
 * In the caller: connects, takes a real server timestamp, SetSelectionOwner, GetSelectionOwner
 * to confirm, then forks twice (the grandchild is reparented, so no zombie is left behind) — or
 * once with `single_fork`, which saves a fork and a pipe round trip on the hotkey path of a
 * caller that exits right away — and returns CX11_OK with the serving process's id in
 * *owner_pid once ownership is confirmed. The forking follows the detached-owner rules of
 * COwnerProcess (ud_owner.h): the caller must be single-threaded (no thread or Dispatch use yet)
 * and must flush its own buffered output (stdout) before calling: the child inherits the
 * buffers, and although it never flushes them (it leaves with _exit), flushing first keeps the
 * ordering of what the caller printed.
 *
 * In the serving process (C only, never returns): detached as ud_owner_detach describes (a new
 * session, SIGHUP and SIGPIPE ignored, stdio on /dev/null, every other inherited descriptor
 * closed, cwd "/").
 *
 * Targets offered (the full list is kept here only; X11Clipboard refers to it):
 *   TARGETS, TIMESTAMP, MULTIPLE;
 *   SAVE_TARGETS (listed only; CLIPBOARD only, not for secrets);
 *   UTF8_STRING, "text/plain;charset=utf-8";
 *   STRING and TEXT (as Latin-1, offered only when every character is representable);
 *   "application/json" (kind JSON);
 *   "application/octet-stream" (kind BINARY);
 *   "x-kde-passwordManagerHint" = "secret" and "application/x-copyq-hidden" = "1" (is_secret:
 *   the markers clipboard managers skip; README lists which managers honour which).
 * A BINARY payload that is not valid UTF-8 is offered only as application/octet-stream: it is
 * never passed off as text. Every other target is refused with property None. Payloads larger
 * than one request go by INCR in chunks of at most 400,000 bytes, one transfer per (requestor
 * window, property), each dropped when idle past transfer_timeout or when the requestor window
 * dies.
 *
 * It leaves on SelectionClear (after in-flight transfers end), on SIGTERM/SIGINT or at the end
 * of `lifetime` (first asking a CLIPBOARD_MANAGER owner to SAVE_TARGETS, bounded by
 * handoff_timeout), after clear_after for secrets (only while still the owner, by destroying its
 * window, which clipboard managers such as GPaste do not undo as they undo a None owner), and at
 * once when the X server goes away.
 *
 * With reuse_owner, a serving process of ours for the same selection and display (one started
 * with reuse_owner, still owning, not leaving) is first handed the bytes over an abstract unix
 * socket; both sides check the other runs as our uid. It takes the selection again with a fresh
 * timestamp, confirms it, serves the new content from then on (transfers of the old content run to
 * their end), restarts its timers with the new options, and *owner_pid is its pid. When there is
 * none, or it refuses or does not answer within half of connect_timeout, the call goes on as
 * above; the process it forks then listens for the next copy.
 *
 * bytes: len bytes, read by the serving process from its copy of the caller's memory; the
 * caller may free them after the call returns. Returns CX11_OK, CX11_NO_DISPLAY,
 * CX11_TIMED_OUT, CX11_NOT_OWNER or CX11_FAILED (fork/pipe; ownership is then given back).
 */
cx11_status cx11_own(const cx11_own_options *options, const uint8_t *bytes, size_t len,
                     pid_t *owner_pid, cx11_error *err);

/* The time limits of one paste, in seconds. */
typedef struct cx11_paste_times {
    double timeout;         /* for the answer, and for each INCR chunk after the previous one */
    double connect_timeout; /* for connecting, within `timeout` (see cx11_paste) */
    /* The whole read ends within the larger of `total` and `timeout`, plus one second for each
     * 256 KiB received: an owner that sends one byte of INCR every `timeout` - 0.1 s meets every
     * per-chunk timeout and would hold the reader as long as it likes; one that keeps 256 KiB/s
     * is sending data. Past it: CX11_TOO_SLOW. */
    double total;
} cx11_paste_times;

/*
 * cx11_paste: read `selection` converted to `target` (an atom name, e.g. "UTF8_STRING").
 * Uses a real timestamp, waits for the owner's answer, follows INCR (each chunk within
 * `times->timeout` of the previous one, the whole read within `times->total` and its
 * allowance), keeps NUL bytes, deletes the property it read.
 * On CX11_OK, *out is a malloc'd buffer of *out_len bytes (NULL when empty) that the caller
 * releases with cx11_free. CX11_NO_OWNER when the selection has no owner, CX11_NO_CONTENT when
 * the owner refused the target;
 * CX11_TIMED_OUT when the owner does not answer in time; CX11_TOO_SLOW past the overall deadline.
 * connect_timeout: the bound on connecting and opening the session (the socket, the X setup,
 * the first round trip), within `timeout`: a server that accepts and never answers (stopped,
 * hung, not an X server) is CX11_NO_DISPLAY after it, not after the whole `timeout`.
 */
cx11_status cx11_paste(const char *display, const char *authority, cx11_selection selection,
                       const char *target, const cx11_paste_times *times, uint8_t **out,
                       size_t *out_len, cx11_error *err);

/*
 * cx11_paste_to_fd: cx11_paste, writing the bytes to out_fd as they arrive (each INCR chunk as
 * it comes) instead of gathering them: a large selection is never held in memory. With
 * latin1_to_utf8 nonzero the bytes are taken as Latin-1 (STRING) and written as UTF-8.
 * *written counts the bytes written, also on failure (a refusal or no owner writes none).
 * A failed write is CX11_FAILED with its errno ("writing the content out: ...").
 */
cx11_status cx11_paste_to_fd(const char *display, const char *authority, cx11_selection selection,
                             const char *target, const cx11_paste_times *times, int out_fd,
                             int latin1_to_utf8, size_t *written, cx11_error *err);

/* What cx11_xwayland found. */
typedef struct cx11_xwayland_facts {
    int is_xwayland;            /* the server is XWayland */
    int x11_window_focused;     /* XWayland only: _NET_ACTIVE_WINDOW on the root names a window */
    uint64_t largest_whole_property; /* XWayland only: the most bytes an owner of ours writes as one
                                        property there (more go by INCR) */
} cx11_xwayland_facts;

/*
 * cx11_xwayland: connect to `display` (NULL: $DISPLAY) within `timeout` seconds and tell
 * whether the server is XWayland: it has the XWAYLAND extension (XWayland 23.1 and later), or a
 * RandR monitor named XWAYLAND<N> (every XWayland names its outputs so); on XWayland, also
 * whether an X11 window has the focus as the compositor's window manager says
 * (_NET_ACTIVE_WINDOW) and the largest copy an owner of ours serves there without INCR. Two to five round trips after the
 * setup; then disconnects. Returns CX11_OK with *out filled, or CX11_NO_DISPLAY (no server, or
 * silent past the deadline: *out zeroed).
 */
cx11_status cx11_xwayland(const char *display, const char *authority, double timeout, cx11_xwayland_facts *out,
                          cx11_error *err);

/* cx11_free: release a buffer returned by cx11_paste (NULL is fine). */
void cx11_free(void *buffer);

#ifdef __cplusplus
}
#endif
#endif
