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

/* The fixed object: wl_display is id 1. Client-created ids count up from 2; ids the server
 * creates (data offers) are 0xff000000 and up. */
#define CWL_DISPLAY_ID 1u
#define CWL_SERVER_ID_MIN 0xff000000u

/* Objects of one connection known at once (live, and destroyed ones awaiting delete_id). */
#define CWL_MAX_OBJECTS 64
/* Descriptors one event may carry; arguments one message may have (cwl_protocol.c: at most 4). */
#define CWL_MSG_FDS 4
#define CWL_MAX_ARGS 8

/* An object: its id and interface; zombie once we destroyed it, until the compositor's delete_id
 * (its late events are still read by their signature, and handed to nobody). */
typedef struct cwl_object {
    uint32_t id;
    const cwl_interface *interface;
    int zombie;
} cwl_object;

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
    cwl_family family; /* from the globals' names (cwl_registry_event) */
    cwl_object objects[CWL_MAX_OBJECTS];
    size_t object_count;
    int msg_fds[CWL_MSG_FDS]; /* the current event's descriptors (by its signature); -1 once taken */
    size_t msg_fd_count;      /* closed at the next cwl_next unless a handler took them */
    int debug;                /* USERDEBUG_WAYLAND_DEBUG=1: print each request and event on stderr */
} cwl_conn;

/* One argument of a message, as its signature reads it (see cwl_message_walk). */
typedef struct cwl_arg {
    char type;        /* the signature letter: i u f s o n a h */
    uint32_t word;    /* the value; for s and a the length word */
    const char *text; /* s: the string, NULL for nil */
} cwl_arg;

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
 * Queue request `opcode` to `object`, its arguments as the object's interface's signature says
 * (cwl_protocol.c): a uint32_t for i u o n (an object 0 is nil), a const char * for s (NULL is the
 * null string), an int for h (a descriptor, sent with the bytes; the caller keeps it open until
 * cwl_flush returns); an untyped new_id (wl_registry.bind) is three: interface, version, id.
 * A new_id makes the object known with its interface; a destructor makes it a zombie.
 * Flushes first when the buffer is full. CWL_FAILED for an object of no known interface.
 */
cwl_status cwl_request(cwl_conn *c, cwl_error *err, uint32_t object, uint32_t opcode, ...);

/* Send everything queued, waiting for room until `deadline`. */
cwl_status cwl_flush(cwl_conn *c, double deadline, cwl_error *err);

/*
 * The next event (not wl_display's: delete_id is dropped, error fails the call). Returns 1 with
 * *m, 0 when none arrived before `deadline` (a deadline already past only reads what is there),
 * -1 with err filled (CWL_FAILED; the compositor closed the connection, or a protocol error).
 */
int cwl_next(cwl_conn *c, double deadline, cwl_msg *m, cwl_error *err);

/* Argument readers: a uint/int/object/new_id word; a string (NULL for the null string or a
 * malformed one, which also sets m->bad); the current event's next descriptor, now the caller's
 * (-1 when it has none left; those not taken are closed before the next event). */
uint32_t cwl_arg_uint(cwl_msg *m);
const char *cwl_arg_string(cwl_msg *m);
int cwl_take_fd(cwl_conn *c);
/* Close the current event's descriptors not taken (cwl_next and cwl_close do it themselves). */
void cwl_drop_event_fds(cwl_conn *c);

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

/* The objects of a connection (cwl_objects.c). The interface named so (NULL: none of ours). */
const cwl_interface *cwl_interface_named(const char *name);
/* Record `id` as an object of `interface` (-1: the table is full of live objects). */
int cwl_object_add(cwl_conn *c, uint32_t id, const cwl_interface *interface);
/* The interface of `id` (NULL: unknown); *zombie (may be NULL): destroyed, awaiting delete_id. */
const cwl_interface *cwl_object_interface(const cwl_conn *c, uint32_t id, int *zombie);
/* Forget `id` (delete_id, a callback's done). */
void cwl_object_remove(cwl_conn *c, uint32_t id);
/* A destructor went out for `id`: it becomes a zombie (ours until delete_id; the compositor's
 * until it reuses the id, or the table is full). */
void cwl_object_destroyed(cwl_conn *c, uint32_t id);
/* The arguments of a message of signature msg->signature in args[0...len): their count (at most
 * cap kept in out), or -1 when malformed. */
int cwl_message_walk(const cwl_message *msg, const uint8_t *args, size_t len, cwl_arg *out, size_t cap);
/* Record the objects the new_id arguments of `msg`, to or from an object of `owner`, create. */
void cwl_message_record(cwl_conn *c, const cwl_interface *owner, const cwl_message *msg, const cwl_arg *args,
                        int count);
/* Print a request (request nonzero) or an event as WAYLAND_DEBUG does, on stderr in one write:
 * `[ms.us] -> interface@id.message(args)`; strings are mime types and names, descriptors `fd`,
 * arrays their size. */
void cwl_debug_print(const cwl_conn *c, int request, uint32_t object, uint32_t opcode, const uint8_t *args,
                     size_t len);
/* With c->debug: one line of our own on stderr (a payload's size, never its bytes). */
void cwl_debug_note(const cwl_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
