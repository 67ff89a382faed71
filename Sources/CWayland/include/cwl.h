#ifndef USERDEBUG_CWL_H
#define USERDEBUG_CWL_H
/*
 * cwl: a Wayland clipboard owner and reader over the data-control protocols
 * (ext_data_control_manager_v1, else zwlr_data_control_manager_v1), speaking the Wayland wire
 * protocol itself.
 *
 * Why not libwayland-client: Debian 12 ships no static libwayland-client.a, and the `userdebug`
 * executable on the hotkey path is fully static (-static-executable); a dynamic build costs
 * several milliseconds before main (BENCHMARKS.md). The few messages a clipboard client needs
 * (wl_display, wl_registry, wl_callback, wl_seat and the four data-control interfaces) are
 * written here; their opcodes and signatures are generated from the protocol XML
 * (cwl_protocol.h and cwl_protocol.c, by Scripts/gen-wayland-protocol.py).
 *
 * Every entry point connects on its own with a deadline (a compositor that accepts but never
 * answers cannot block it), does one job, and disconnects. No mutable globals, no exit(), no
 * output (but the trace USERDEBUG_WAYLAND_DEBUG=1 asks for, on stderr: docs/wayland-debug.md).
 *
 * Errors: every function returns a cwl_status and, when it is not CWL_OK, fills the caller's
 * cwl_error with the status, the errno if a system call failed, and a one-line message naming
 * what failed (the convention of cx11.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ud_shared.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Outcome of a call (UD_STATUS_VALUES, the list of every backend; here they mean):
 * CWL_OK; CWL_NO_DISPLAY: WAYLAND_DISPLAY (or XDG_RUNTIME_DIR for a relative name) unset,
 * nothing listening, connection refused, or the compositor silent past the deadline while
 * connecting; CWL_TIMED_OUT: a deadline passed once connected (the compositor or the selection's
 * owner did not answer); CWL_NOT_OWNER: the compositor did not make our source the selection
 * (another client won, or refused); CWL_NO_CONTENT: reading, the owner does not offer the
 * requested type; CWL_UNSUPPORTED: the compositor offers no data-control protocol (or none with
 * the primary selection); CWL_FAILED: a system call (fork, pipe, malloc) or the Wayland protocol
 * failed; CWL_NO_OWNER: reading, the selection is empty (no client owns it); CWL_TOO_SLOW:
 * reading, the owner's bytes came too slowly for the whole read's deadline (cwl_paste's `total`).
 */
typedef enum cwl_status { UD_STATUS_VALUES(CWL) } cwl_status;

/* What went wrong; filled by every call that does not return CWL_OK: status, sys_errno
 * (errno of the failing system call, or 0), message (NUL-terminated, one line). */
UD_ERROR_TYPE(cwl_error, cwl_status);

/* The selection to own or read: CWL_CLIPBOARD, CWL_PRIMARY. */
typedef enum cwl_selection { UD_SELECTION_VALUES(CWL) } cwl_selection;

/* The data-control protocol a compositor offers. */
typedef enum cwl_protocol {
    CWL_PROTOCOL_NONE = 0,
    CWL_PROTOCOL_EXT = 1, /* ext_data_control_manager_v1 (every version has the primary selection) */
    CWL_PROTOCOL_WLR = 2, /* zwlr_data_control_manager_v1 (version 2 and up: the primary selection) */
} cwl_protocol;

/* The compositor family its globals show, for the limits of its XWayland bridge. */
typedef enum cwl_family {
    CWL_FAMILY_OTHER = 0,
    CWL_FAMILY_WLROOTS = 1, /* a zwlr_* global (sway, cage, ...): X11 copies need an X11 window focused */
    CWL_FAMILY_WESTON = 2,  /* a weston_* global: the bridge carries CLIPBOARD only, and no INCR */
} cwl_family;

/* What cwl_probe found. */
typedef struct cwl_probe_result {
    cwl_protocol protocol; /* the one a copy would use: ext where offered, else wlr */
    uint32_t version;      /* its advertised version; 0 with CWL_PROTOCOL_NONE */
    int has_primary;       /* nonzero: the primary selection can be used through it */
    int has_seat;          /* nonzero: a wl_seat is advertised (data-control needs one) */
    int answered;          /* nonzero: the compositor answered and its globals were read */
    cwl_family family;     /* what its globals show it is */
} cwl_probe_result;

/*
 * cwl_probe: connect to `display` (NULL or "": $WAYLAND_DISPLAY; a name is taken under
 * `runtime_dir`, NULL: $XDG_RUNTIME_DIR; an absolute path as is), list the globals with one
 * get_registry + sync round trip, and disconnect, all within `timeout` seconds.
 * Returns CWL_OK with *out filled (answered set), CWL_NO_DISPLAY (unset, unserved, or silent),
 * or CWL_FAILED.
 */
cwl_status cwl_probe(const char *display, const char *runtime_dir, double timeout, cwl_probe_result *out,
                     cwl_error *err);

/* The most compositors cwl_discover reports. */
#define CWL_FOUND_MAX 4

/* What cwl_discover found. */
typedef struct cwl_found {
    size_t seen;                     /* sockets named wayland-N owned by our euid, answering or not */
    size_t count;                    /* of them, those whose listener runs as our euid (in paths) */
    char paths[CWL_FOUND_MAX][108];  /* their absolute paths (valid WAYLAND_DISPLAY values), lowest N first */
} cwl_found;

/*
 * cwl_discover: the compositors of this session when WAYLAND_DISPLAY is not set: the entries of
 * `runtime_dir` (NULL or "": $XDG_RUNTIME_DIR, else /run/user/EUID) named wayland-N (N digits;
 * not the .lock files) that are sockets owned by our euid and whose listener runs as our euid
 * (connected to without blocking and asked with SO_PEERCRED; nothing is sent, the connection
 * is closed at once). Reads one directory; never talks Wayland. Never fails: *out is filled
 * (count 0: none of ours listens; seen 0 as well: there is no socket of ours at all).
 */
void cwl_discover(const char *runtime_dir, cwl_found *out);

/* What the bytes are; decides the types offered (see cwl_own). */
typedef enum cwl_kind {
    CWL_KIND_TEXT = 0,
    CWL_KIND_JSON = 1,
    CWL_KIND_BINARY = 2,
} cwl_kind;

/* How cwl_own behaves. Durations in seconds; <= 0 means "never" where noted. */
typedef struct cwl_own_options {
    const char *display;     /* NULL or "": $WAYLAND_DISPLAY */
    const char *runtime_dir; /* NULL: $XDG_RUNTIME_DIR */
    cwl_selection selection;
    cwl_kind kind;
    int offer_text;          /* nonzero: the bytes are valid UTF-8 and may be offered as text */
    int is_secret;           /* nonzero: add x-kde-passwordManagerHint = secret, x-copyq-hidden = 1 */
    double connect_timeout;  /* deadline for connecting and confirming the selection */
    double transfer_timeout; /* a reader that takes nothing for this long is dropped */
    double clear_after;      /* secrets: clear the selection after this, if still ours; <= 0: never */
    double lifetime;         /* leave after this; <= 0: until replaced */
    int single_fork;         /* nonzero: fork once (a caller about to exit); see ud_owner.h */
    int reuse_owner;         /* nonzero: hand the bytes (up to 4 MiB) to a serving process of ours for
                                this selection and compositor if one listens (it makes a new source
                                the selection and confirms it); the process forked otherwise listens
                                for the next copies. Both sides check the other's euid and mount
                                namespace. Any failure: own as usual. */
    int new_owner;           /* with reuse_owner: fork a new serving process anyway (it listens) */
    cwl_probe_result *probed; /* NULL, or filled (answered set) as cwl_probe would once the registry
                                 is read: the copy's own connection answers what a probe asks, so a
                                 caller choosing a backend need not connect twice */
    int skip_hand;           /* nonzero: do not try the resident owner first (the caller just did) */
    const char *clear_report; /* NULL: none. After a secret's clear the owner reads the selection back
                                 for a few seconds; the token put back is written to this file, a
                                 clear that held removes it (ud_clearreport.h). A resident owner
                                 uses the path it started with. */
} cwl_own_options;

/*
 * cwl_own: make a data source with `bytes` the selection, confirm it, and leave a detached
 * process serving it.
 *
 * In the caller: connects, binds the seat and the data-control manager, creates a data source
 * offering the types below, sets it as the selection (or the primary selection), and waits
 * (one sync round trip, bounded by connect_timeout) until the device reports as the current
 * selection an offer that came after our set_selection (a wl_display.sync sent just before it
 * fences off the selection shown until then) with exactly our types, and our source was not
 * cancelled: only then has the compositor made our source the selection. No type of our own is
 * offered for this: every application would see it in its paste menu. Then it forks
 * as COwnerProcess's rules say (ud_owner.h: a single-threaded caller with flushed stdio) and
 * returns CWL_OK with the serving process's id in *owner_pid.
 *
 * Types offered (the full list is kept here only; WaylandClipboard refers to it):
 *   text/plain;charset=utf-8, text/plain, UTF8_STRING, TEXT, STRING (when offer_text);
 *   application/json (kind JSON); application/octet-stream (kind BINARY);
 *   x-kde-passwordManagerHint = "secret" and application/x-copyq-hidden = "1" (is_secret).
 * Every text type gets the same UTF-8 bytes, NUL bytes included.
 *
 * In the serving process (C only, never returns): detached (ud_owner_detach). Each `send` gets
 * its descriptor written without blocking from one poll loop, so a reader that never reads does
 * not stall the others; a reader that takes nothing for transfer_timeout is dropped. It leaves
 * on `cancelled` (another client took the selection; in-flight transfers run to their end),
 * on SIGTERM/SIGINT, at the end of `lifetime`, after clear_after for secrets (setting an empty
 * selection first: the source is still the selection, or `cancelled` would have come), and at
 * once when the compositor goes away.
 *
 * With options->probed, what the registry showed is reported whatever the outcome: a caller
 * whose rule picks Wayland only with data-control and a seat learns it from this very call
 * (CWL_UNSUPPORTED with probed->answered: the compositor answered without them; nothing was set).
 *
 * Returns CWL_OK, CWL_NO_DISPLAY, CWL_UNSUPPORTED (no data-control, no seat, no primary),
 * CWL_NOT_OWNER (the compositor did not show our source as the selection; message says why),
 * or CWL_FAILED.
 */
cwl_status cwl_own(const cwl_own_options *options, const uint8_t *bytes, size_t len, pid_t *owner_pid,
                   cwl_error *err);

/*
 * cwl_hand: only the first step of cwl_own with reuse_owner: hand `bytes` (up to 4 MiB) to a
 * serving process of ours that listens for this selection on this compositor (its socket name is
 * known without talking to the compositor; see cwl_resident.c). That process has a data-control
 * device on the compositor, makes a new source with the bytes the selection and confirms it as
 * cwl_own does before answering. Returns CWL_OK with its id in *owner_pid, or CWL_NO_OWNER when
 * none listens, it refused, or it did not confirm (nothing changed: call cwl_own, or ask the
 * compositor first with cwl_probe). Never forks, never connects to the compositor.
 */
cwl_status cwl_hand(const cwl_own_options *options, const uint8_t *bytes, size_t len, pid_t *owner_pid,
                    cwl_error *err);

/*
 * cwl_paste: read the selection (or the primary selection) as `target`: "UTF8_STRING" takes
 * the best text type offered (text/plain;charset=utf-8, UTF8_STRING, text/plain, TEXT, STRING);
 * "TARGETS" gives the offered types, one per line; any other name is asked for as given.
 * The bytes come through a pipe, each read within `timeout` of the previous one, NUL bytes kept.
 * out_fd >= 0: they are written there as they come (nothing held in memory; *out stays NULL);
 * else *out is a malloc'd buffer of *out_len bytes (NULL when empty), released with cwl_free.
 * CWL_NO_OWNER: the selection is empty; CWL_NO_CONTENT: the type is not offered; CWL_TIMED_OUT:
 * the owner stopped sending (or never started) for `timeout`; CWL_TOO_SLOW: the whole read took
 * longer than the larger of `total` and `timeout` seconds, plus 1 s per UD_PASTE_RATE bytes
 * received (an owner sending a byte now and then cannot hold the reader for ever).
 */
cwl_status cwl_paste(const char *display, const char *runtime_dir, cwl_selection selection, const char *target,
                     double timeout, double total, int out_fd, uint8_t **out, size_t *out_len, cwl_error *err);

/* cwl_free: release a buffer returned by cwl_paste (NULL is fine). */
void cwl_free(void *buffer);

#ifdef __cplusplus
}
#endif
#endif
