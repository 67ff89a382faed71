/* The read-back after a secret's clear (cx11_clearcheck.h). */
#define _GNU_SOURCE
#include "cx11_clearcheck.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>
#include <xcb/xcbext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How often the selection's owner is asked; the same owner's content is read again at most this
 * often (a keeper may set the selection again with the same window). */
#define CX11_CLEAR_CHECK_EVERY 0.1
#define CX11_CLEAR_RELOOK_EVERY 0.5

typedef enum { LOOK_NOTHING, LOOK_TOKEN, LOOK_OTHER, LOOK_LOST } look_result;

void cx11_clear_check_init(cx11_clear_check *k, const char *report) {
    memset(k, 0, sizeof *k);
    if (report != NULL && strlen(report) < sizeof k->report - 16) strcpy(k->report, report);
}

/* Remember what the token looks like (its hash and length), for `look`. */
static void remember(cx11_clear_check *k, const cx11_content *secret) {
    k->hash = ud_clear_hash(secret->bytes, secret->len);
    k->len = secret->len;
}

void cx11_clear_check_arm(cx11_clear_check *k, const cx11_content *secret) {
    if (k->report[0] == 0 || secret == NULL) return;
    remember(k, secret);
    k->armed = 1;
}

/* The selection's owner by the deadline into *owner (XCB_NONE: nobody): 0 when the server did not
 * answer. */
static int selection_owner(const cx11_link *x, double deadline, xcb_window_t *owner) {
    xcb_get_selection_owner_cookie_t ck = xcb_get_selection_owner(x->c, x->selection);
    xcb_get_selection_owner_reply_t *r = cx11_reply(x->c, ck.sequence, deadline, NULL);
    if (r == NULL) return 0;
    *owner = r->owner;
    free(r);
    return 1;
}

/* A window of ours for the conversions' answers (the caller destroys it). */
static xcb_window_t reader_window(const cx11_link *x, xcb_window_t root) {
    xcb_window_t w = xcb_generate_id(x->c);
    xcb_create_window(x->c, 0, w, root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, 0, NULL);
    return w;
}

/* Convert the selection to `target` on window w and take the answer's property (at most `words`
 * 32-bit units of it): 1 with *out the property (NULL when the owner refused), 0 when the server
 * or the owner did not answer by the deadline. */
static int convert(const cx11_link *x, xcb_window_t w, xcb_atom_t target, uint32_t words, double deadline,
                   xcb_get_property_reply_t **out) {
    xcb_atom_t property = x->atoms[CX11_A_PROPERTY];
    *out = NULL;
    xcb_convert_selection(x->c, w, x->selection, target, property, XCB_CURRENT_TIME);
    for (;;) {
        cx11_wait why;
        xcb_generic_event_t *ev = cx11_wait_event(x->c, deadline, &why);
        if (ev == NULL) return 0;
        int done = 0;
        xcb_atom_t answered = XCB_NONE;
        if ((ev->response_type & 0x7f) == XCB_SELECTION_NOTIFY) {
            xcb_selection_notify_event_t *sn = (xcb_selection_notify_event_t *)ev;
            done = sn->requestor == w && sn->selection == x->selection && sn->target == target;
            answered = sn->property;
        }
        free(ev);
        if (!done) continue;
        if (answered == XCB_NONE) return 1;
        xcb_get_property_cookie_t ck = xcb_get_property(x->c, 1, w, answered, XCB_GET_PROPERTY_TYPE_ANY, 0, words);
        *out = cx11_reply(x->c, ck.sequence, deadline, NULL);
        return *out != NULL;
    }
}

/* Whether a TARGETS answer lists a secret's marker: then it is a secret's copy (ours, a password
 * manager's), not a keeper putting the token back. */
static int offers_marker(const cx11_link *x, const xcb_get_property_reply_t *r) {
    if (r->format != 32) return 0;
    const xcb_atom_t *atoms = xcb_get_property_value(r);
    int n = xcb_get_property_value_length(r) / 4;
    for (int i = 0; i < n; i++)
        if (atoms[i] == x->atoms[CX11_A_KDE_HINT] || atoms[i] == x->atoms[CX11_A_COPYQ_HIDDEN]) return 1;
    return 0;
}

/* What the selection's owner holds now, as far as the check goes. */
static look_result look(const cx11_link *x, xcb_window_t w, const cx11_clear_check *k, double deadline) {
    xcb_get_property_reply_t *r = NULL;
    if (!convert(x, w, x->atoms[CX11_A_TARGETS], 256, deadline, &r)) return LOOK_LOST;
    int marked = r != NULL && offers_marker(x, r);
    free(r);
    if (marked) return LOOK_OTHER;
    if (!convert(x, w, x->atoms[CX11_A_UTF8_STRING], (uint32_t)(k->len / 4 + 2), deadline, &r)) return LOOK_LOST;
    look_result got = LOOK_NOTHING; /* refused, or empty: a keeper holding the clear's empty copy */
    if (r != NULL && r->type != XCB_NONE) {
        size_t n = (size_t)xcb_get_property_value_length(r);
        if (r->type == x->atoms[CX11_A_INCR] || r->bytes_after > 0) got = LOOK_OTHER;
        else if (n > 0)
            got = ud_clear_is_token(xcb_get_property_value(r), n, k->hash, k->len) ? LOOK_TOKEN : LOOK_OTHER;
    }
    free(r);
    return got;
}

/* A property of `owner` as a reply (free it), or NULL. */
static xcb_get_property_reply_t *owner_property(const cx11_link *x, xcb_window_t owner, xcb_atom_t name,
                                                xcb_atom_t type, double deadline) {
    xcb_get_property_cookie_t ck = xcb_get_property(x->c, 0, owner, name, type, 0, 64);
    return cx11_reply(x->c, ck.sequence, deadline, NULL);
}

/* The process name (/proc/PID/comm) of a local pid into out; 0 when unreadable. */
static int process_name(uint32_t pid, char *out, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/comm", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, out, size - 1);
    close(fd);
    if (n <= 0) return 0;
    out[n] = 0;
    out[strcspn(out, "\n")] = 0;
    return out[0] != 0;
}

/* The pid of the local process whose X connection created `owner`, as the server knows it from
 * the connection's socket (X-Resource 1.2 QueryClientIds, LocalClientPID); 0 when the server has
 * no X-Resource or does not know (a remote or forwarded client). Sent by hand, since libxcb-res is
 * one more library for one request; the opcode is given, so xcb never looks the extension up
 * itself (it would close the connection where the extension is missing). */
static uint32_t server_known_pid(const cx11_link *x, xcb_window_t owner, double deadline) {
    xcb_query_extension_cookie_t qk = xcb_query_extension(x->c, 10, "X-Resource");
    xcb_query_extension_reply_t *ext = cx11_reply(x->c, qk.sequence, deadline, NULL);
    uint8_t major = ext != NULL && ext->present ? ext->major_opcode : 0;
    free(ext);
    if (major == 0) return 0;
    /* header: major, minor 4 (QueryClientIds), length (xcb's), num_specs 1; then the one spec:
     * any resource of the client, mask LocalClientPID (1 << 1) */
    uint32_t request[4] = {0, 1, owner, 1u << 1};
    ((uint8_t *)request)[1] = 4;
    struct iovec parts[3] = {{0}, {0}, {.iov_base = request, .iov_len = sizeof request}};
    xcb_protocol_request_t how = {.count = 1, .ext = NULL, .opcode = major, .isvoid = 0};
    unsigned int sequence = xcb_send_request(x->c, XCB_REQUEST_CHECKED, parts + 2, &how);
    uint8_t *r = sequence == 0 ? NULL : cx11_reply(x->c, sequence, deadline, NULL);
    uint32_t pid = 0, count = 0, words = 0;
    if (r != NULL) {
        memcpy(&words, r + 4, 4); /* the reply's length past its 32 bytes, in 4-byte units */
        memcpy(&count, r + 8, 4);
    }
    /* after the 32-byte header, each id: client, mask, length in bytes, then the value */
    if (count >= 1 && words >= 4) {
        uint32_t id[4];
        memcpy(id, r + 32, sizeof id);
        if ((id[1] & (1u << 1)) && id[2] == 4) pid = id[3];
    }
    free(r);
    return pid;
}

/* The pid named on `owner` itself (_NET_WM_PID, set by the client), or 0. */
static uint32_t window_pid(const cx11_link *x, xcb_window_t owner, double deadline) {
    xcb_intern_atom_cookie_t ck = xcb_intern_atom(x->c, 1, 11, "_NET_WM_PID");
    xcb_intern_atom_reply_t *atom = cx11_reply(x->c, ck.sequence, deadline, NULL);
    xcb_get_property_reply_t *r = NULL;
    if (atom != NULL && atom->atom != XCB_NONE) r = owner_property(x, owner, atom->atom, XCB_ATOM_CARDINAL, deadline);
    free(atom);
    uint32_t pid = 0;
    if (r != NULL && r->format == 32 && xcb_get_property_value_length(r) >= 4)
        memcpy(&pid, xcb_get_property_value(r), sizeof pid);
    free(r);
    return pid;
}

/* Who owns the selection, for the report: the process name and pid of the connection that made
 * its window (as the X server knows it), else of the window's _NET_WM_PID, else its WM_CLASS,
 * else the window's id. */
static void name_owner(const cx11_link *x, xcb_window_t owner, double deadline, char *out, size_t size) {
    snprintf(out, size, "the X window 0x%x", owner);
    char comm[64];
    uint32_t pid = server_known_pid(x, owner, deadline);
    int named = pid != 0 && process_name(pid, comm, sizeof comm);
    if (!named) {
        pid = window_pid(x, owner, deadline);
        named = pid != 0 && process_name(pid, comm, sizeof comm);
    }
    if (named) {
        snprintf(out, size, "%s (pid %u)", comm, pid);
        return;
    }
    xcb_get_property_reply_t *r = owner_property(x, owner, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, deadline);
    int len = r != NULL && r->format == 8 ? xcb_get_property_value_length(r) : 0;
    if (len > 0) {
        const char *value = xcb_get_property_value(r);
        size_t first = strnlen(value, (size_t)len);
        const char *name = first + 1 < (size_t)len ? value + first + 1 : value; /* the class, else the instance */
        snprintf(out, size, "%.*s", (int)strnlen(name, (size_t)len - (size_t)(name - value)), name);
    }
    free(r);
}

/* Wait until `until`, dropping the events that come meanwhile (none is ours to answer now). */
static void pause_until(const cx11_link *x, double until) {
    xcb_flush(x->c);
    struct pollfd pfd = {.fd = xcb_get_file_descriptor(x->c), .events = POLLIN};
    while (ud_now() < until && poll(&pfd, 1, ud_poll_ms(until - ud_now())) >= 0) {
        xcb_generic_event_t *ev;
        while ((ev = xcb_poll_for_event(x->c)) != NULL) free(ev);
        if (xcb_connection_has_error(x->c)) return;
    }
}

int cx11_clear_check_token_shown(cx11_clear_check *k, const cx11_link *x, xcb_window_t root,
                                 const cx11_content *secret) {
    if (k->report[0] == 0 || secret == NULL) return 0;
    remember(k, secret);
    double deadline = ud_now() + 1.0;
    xcb_window_t owner = XCB_NONE;
    if (!selection_owner(x, deadline, &owner) || owner == XCB_NONE || owner == x->window) return 0;
    xcb_window_t w = reader_window(x, root);
    int shown = look(x, w, k, deadline) == LOOK_TOKEN;
    xcb_destroy_window(x->c, w);
    return shown;
}

void cx11_clear_check_run(cx11_clear_check *k, const cx11_link *x, xcb_window_t root) {
    if (!k->armed) return;
    k->armed = 0;
    double until = ud_now() + UD_CLEAR_CHECK_SECONDS, looked_at = 0;
    xcb_window_t w = reader_window(x, root), seen = XCB_NONE;
    look_result got = LOOK_NOTHING;
    while (got == LOOK_NOTHING && ud_now() < until) {
        double deadline = ud_now() + 1.0;
        xcb_window_t owner = XCB_NONE;
        /* The server went or stopped answering: the report stays as it was. */
        if (!selection_owner(x, deadline, &owner)) return;
        if (owner != XCB_NONE && (owner != seen || ud_now() - looked_at >= CX11_CLEAR_RELOOK_EVERY)) {
            seen = owner;
            looked_at = ud_now();
            got = look(x, w, k, deadline);
            if (got == LOOK_LOST) return;
        }
        if (got == LOOK_NOTHING) pause_until(x, ud_now() + CX11_CLEAR_CHECK_EVERY);
    }
    if (got == LOOK_TOKEN) {
        char who[160];
        name_owner(x, seen, ud_now() + 1.0, who, sizeof who);
        ud_clear_report_restored(k->report, x->selection == x->atoms[CX11_A_CLIPBOARD] ? "CLIPBOARD" : "PRIMARY", who);
    } else {
        ud_clear_report_held(k->report); /* the token is not on the selection */
    }
}
