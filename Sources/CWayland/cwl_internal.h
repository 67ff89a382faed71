#ifndef USERDEBUG_CWL_INTERNAL_H
#define USERDEBUG_CWL_INTERNAL_H
/* Shared by the cwl sources; not part of the module's public header. */
#include "cwl.h"
#include "cwl_protocol.h"
#include "ud_resident.h"
#include "ud_shared.h"

#include <stdarg.h>
#include <sys/un.h>

/* Descriptors received or to be sent with one buffer's worth of messages. */
#define CWL_MAX_FDS 28

/* One connection to the compositor: the socket, the buffered bytes and descriptors in both
 * directions, the next client object id, and the globals the registry advertised. */
typedef struct cwl_conn {
    int fd;
    uint32_t next_id;
    uint8_t in[8192];
    size_t in_len;
    size_t in_consumed; /* bytes of the message handed out last, dropped by the next cwl_next */
    int in_fds[CWL_MAX_FDS];
    size_t in_fd_count;
    uint8_t out[4096];
    size_t out_len;
    int out_fds[CWL_MAX_FDS]; /* not owned: the caller closes them after cwl_flush */
    size_t out_fd_count;
    struct sockaddr_un address; /* the compositor's socket */
    uint32_t registry;
    uint32_t seat_name, seat_version;
    uint32_t ext_name, ext_version;
    uint32_t wlr_name, wlr_version;
} cwl_conn;

/* One event as received; its arguments are read in order with cwl_arg_*. Valid until the next
 * cwl_next on the same connection. */
typedef struct cwl_msg {
    uint32_t object;
    uint32_t opcode;
    const uint8_t *args;
    size_t len;
    size_t pos;
    int bad; /* set by a reader that ran past the end or met a malformed string */
} cwl_msg;

/* Fill err (printf-style message) and return status. errno_value 0 when not a system call. */
cwl_status cwl_fail(cwl_error *err, cwl_status status, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Connect (see cwl_probe for how `display` and `runtime_dir` name the socket), then list the
 * globals with get_registry + sync, all before `deadline` (ud_now() time). On CWL_OK the
 * connection is open (close it with cwl_close) and its globals filled; on failure it is closed.
 */
cwl_status cwl_open(cwl_conn *c, const char *display, const char *runtime_dir, double deadline, cwl_error *err);

/* Connect and queue get_registry, not waiting for its globals (they come with the next round
 * trip, whose handler passes the registry's events to cwl_registry_event). On failure the
 * connection is closed. */
cwl_status cwl_open_begin(cwl_conn *c, const char *display, const char *runtime_dir, double deadline, cwl_error *err);

/* Fill err for a compositor that took the connection but did not answer in time: CWL_NO_DISPLAY. */
cwl_status cwl_silent(cwl_conn *c, cwl_error *err);

/* Record a global the registry advertised (the first seat, each data-control manager); other
 * events are ignored. */
void cwl_registry_event(cwl_conn *c, cwl_msg *m);

/* What an open connection's registry advertised, as cwl_probe reports it (answered set). */
void cwl_describe(const cwl_conn *c, cwl_probe_result *out);

/* Close the socket and every descriptor received and not taken. */
void cwl_close(cwl_conn *c);

/* A fresh client object id. */
uint32_t cwl_new_id(cwl_conn *c);

/*
 * Queue a request to `object`: `sig` names the arguments, one character each: u (uint, also an
 * object or a new_id), s (string; NULL is the null string), h (a descriptor, sent with the
 * bytes; the caller keeps it open until cwl_flush returns). Flushes first when the buffer is full.
 */
cwl_status cwl_request(cwl_conn *c, cwl_error *err, uint32_t object, uint32_t opcode, const char *sig, ...);

/* Send everything queued, waiting for room until `deadline`. */
cwl_status cwl_flush(cwl_conn *c, double deadline, cwl_error *err);

/*
 * The next event (not wl_display's: delete_id is dropped, error fails the call). Returns 1 with
 * *m, 0 when none arrived before `deadline` (a deadline already past only reads what is there),
 * -1 with err filled (CWL_FAILED; the compositor closed the connection, or a protocol error).
 */
int cwl_next(cwl_conn *c, double deadline, cwl_msg *m, cwl_error *err);

/* Argument readers: a uint/int/object/new_id word; a string (NULL for the null string or a
 * malformed one, which also sets m->bad); the next received descriptor (-1 when none). */
uint32_t cwl_arg_uint(cwl_msg *m);
const char *cwl_arg_string(cwl_msg *m);
int cwl_take_fd(cwl_conn *c);

/* An event handler for cwl_roundtrip: returns 0 to go on, else a status with err filled. */
typedef cwl_status (*cwl_handler)(void *ctx, cwl_conn *c, cwl_msg *m, cwl_error *err);

/*
 * Send wl_display.sync and hand every event to `handler` until its callback is done (so every
 * event caused by the requests sent before is handled), or fail at `deadline` (CWL_TIMED_OUT).
 */
cwl_status cwl_roundtrip(cwl_conn *c, double deadline, cwl_handler handler, void *ctx, cwl_error *err);

/* Bind the global `name` as `interface` at `version`; returns the new object's id in *id. */
cwl_status cwl_bind(cwl_conn *c, uint32_t name, const char *interface, uint32_t version, uint32_t *id,
                    cwl_error *err);

#endif
