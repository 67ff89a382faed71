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
 * written here from the protocol specifications (cwl_protocol.h holds the opcode tables).
 *
 * Every entry point connects on its own with a deadline (a compositor that accepts but never
 * answers cannot block it), does one job, and disconnects. No globals, no exit(), no output.
 *
 * Errors: every function returns a cwl_status and, when it is not CWL_OK, fills the caller's
 * cwl_error with the status, the errno if a system call failed, and a one-line message naming
 * what failed (the convention of cx11.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of a call. */
typedef enum cwl_status {
    CWL_OK = 0,
    /* WAYLAND_DISPLAY (or XDG_RUNTIME_DIR for a relative name) unset, nothing listening,
     * connection refused, or the compositor silent past the deadline while connecting. */
    CWL_NO_DISPLAY = 1,
    /* A deadline passed once connected: the compositor or the selection's owner did not answer. */
    CWL_TIMED_OUT = 2,
    /* The compositor did not make our source the selection (another client won, or refused). */
    CWL_NOT_OWNER = 3,
    /* Reading: the owner does not offer the requested type. */
    CWL_NO_CONTENT = 4,
    /* The compositor offers no data-control protocol (or none with the primary selection). */
    CWL_UNSUPPORTED = 5,
    /* A system call (fork, pipe, malloc) or the Wayland protocol failed. */
    CWL_FAILED = 6,
    /* Reading: the selection is empty (no client owns it). */
    CWL_NO_OWNER = 7,
} cwl_status;

/* What went wrong; filled by every call that does not return CWL_OK. */
typedef struct cwl_error {
    cwl_status status;
    int sys_errno;      /* errno of the failing system call, or 0 */
    char message[240];  /* NUL-terminated, one line */
} cwl_error;

/* The selection to own or read. */
typedef enum cwl_selection {
    CWL_CLIPBOARD = 0,
    CWL_PRIMARY = 1,
} cwl_selection;

/* The data-control protocol a compositor offers. */
typedef enum cwl_protocol {
    CWL_PROTOCOL_NONE = 0,
    CWL_PROTOCOL_EXT = 1, /* ext_data_control_manager_v1 (every version has the primary selection) */
    CWL_PROTOCOL_WLR = 2, /* zwlr_data_control_manager_v1 (version 2 and up: the primary selection) */
} cwl_protocol;

/* What cwl_probe found. */
typedef struct cwl_probe_result {
    cwl_protocol protocol; /* the one a copy would use: ext where offered, else wlr */
    uint32_t version;      /* its advertised version; 0 with CWL_PROTOCOL_NONE */
    int has_primary;       /* nonzero: the primary selection can be used through it */
    int has_seat;          /* nonzero: a wl_seat is advertised (data-control needs one) */
} cwl_probe_result;

/*
 * cwl_probe: connect to `display` (NULL or "": $WAYLAND_DISPLAY; a name is taken under
 * `runtime_dir`, NULL: $XDG_RUNTIME_DIR; an absolute path as is), list the globals with one
 * get_registry + sync round trip, and disconnect, all within `timeout` seconds.
 * Returns CWL_OK with *out filled, CWL_NO_DISPLAY (unset, unserved, or silent), or CWL_FAILED.
 */
cwl_status cwl_probe(const char *display, const char *runtime_dir, double timeout, cwl_probe_result *out,
                     cwl_error *err);

#ifdef __cplusplus
}
#endif
#endif
