/*
 * Connecting: the socket named by WAYLAND_DISPLAY (under XDG_RUNTIME_DIR unless absolute), then
 * the registry's globals in one get_registry + sync round trip, all bounded by one deadline.
 *
 * Before a byte is sent, the process listening on the socket must be trusted (peer_trusted):
 * XDG_RUNTIME_DIR is often /tmp on X11 sessions without logind, and there any local user can
 * listen on wayland-N before our compositor does (or after it crashed) and read every copy.
 */
#define _GNU_SOURCE
#include "cwl_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static cwl_status socket_address(const char *display, const char *runtime_dir, struct sockaddr_un *addr,
                                 cwl_error *err) {
    if (display == NULL || *display == '\0') display = getenv("WAYLAND_DISPLAY");
    if (display == NULL || *display == '\0') return cwl_fail(err, CWL_NO_DISPLAY, 0, "WAYLAND_DISPLAY is not set");
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    int n;
    if (display[0] == '/') {
        n = snprintf(addr->sun_path, sizeof addr->sun_path, "%s", display);
    } else {
        if (runtime_dir == NULL || *runtime_dir == '\0') runtime_dir = getenv("XDG_RUNTIME_DIR");
        if (runtime_dir == NULL || *runtime_dir == '\0')
            return cwl_fail(err, CWL_NO_DISPLAY, 0, "XDG_RUNTIME_DIR is not set (WAYLAND_DISPLAY %.64s is relative)",
                            display);
        n = snprintf(addr->sun_path, sizeof addr->sun_path, "%s/%s", runtime_dir, display);
    }
    if (n < 0 || (size_t)n >= sizeof addr->sun_path)
        return cwl_fail(err, CWL_NO_DISPLAY, ENAMETOOLONG, "the Wayland socket path is too long");
    return CWL_OK;
}

static cwl_status connect_socket(cwl_conn *c, const struct sockaddr_un *addr, double deadline, cwl_error *err) {
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c->fd < 0) return cwl_fail(err, CWL_FAILED, errno, "socket: %s", ud_strerror(errno).text);
    if (connect(c->fd, (const struct sockaddr *)addr, sizeof *addr) == 0) return CWL_OK;
    int saved = errno;
    if (saved == EAGAIN || saved == EINPROGRESS) {
        /* The listen queue is full: wait for room until the deadline. */
        struct pollfd p = {.fd = c->fd, .events = POLLOUT};
        int ready = poll(&p, 1, ud_poll_ms(deadline - ud_now()));
        int so_error = 0;
        socklen_t len = sizeof so_error;
        if (ready > 0 && getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error == 0)
            return CWL_OK;
        saved = ready == 0 ? ETIMEDOUT : (so_error != 0 ? so_error : errno);
    }
    return cwl_fail(err, CWL_NO_DISPLAY, saved, "Wayland socket %.160s: %s", addr->sun_path, ud_strerror(saved).text);
}

/*
 * Whether the peer with uid `peer` may be our compositor: us, root, or the owner of the private
 * directory (a real directory of theirs, mode 0700) holding the socket, who listens there on a
 * socket of their own. Nobody else can put a socket in such a directory, and only root can
 * enter another user's: that is root reaching a user's own session (sudo -E). A socket in a
 * shared directory (/tmp, mode 1777) served by anyone else is refused.
 */
static int peer_trusted(const char *socket_path, uid_t peer) {
    if (peer == geteuid() || peer == 0) return 1;
    char dir[sizeof((struct sockaddr_un *)0)->sun_path];
    snprintf(dir, sizeof dir, "%s", socket_path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) return 0;
    if (slash == dir) slash++; /* the socket is in "/" */
    *slash = '\0';
    struct stat d, s;
    return lstat(dir, &d) == 0 && S_ISDIR(d.st_mode) && d.st_uid == peer && (d.st_mode & 077) == 0 &&
           lstat(socket_path, &s) == 0 && S_ISSOCK(s.st_mode) && s.st_uid == peer;
}

/* Refuse (CWL_NO_DISPLAY, as a socket nothing serves: the backend rule falls back) a peer that
 * peer_trusted does not trust, naming the socket, the peer's uid and the fix. */
static cwl_status check_peer(const cwl_conn *c, cwl_error *err) {
    struct ucred cred;
    if (ud_peer_credentials(c->fd, &cred) != 0)
        return cwl_fail(err, CWL_FAILED, errno, "SO_PEERCRED: %s", ud_strerror(errno).text);
    if (peer_trusted(c->address.sun_path, cred.uid)) return CWL_OK;
    return cwl_fail(err, CWL_NO_DISPLAY, EPERM,
                    "refusing the Wayland socket %.72s: it is served by uid %u, not by you (uid %u) or root; "
                    "fix: set XDG_RUNTIME_DIR to a directory of yours with mode 0700",
                    c->address.sun_path, (unsigned)cred.uid, (unsigned)geteuid());
}

void cwl_registry_event(cwl_conn *c, cwl_msg *m) {
    if (m->object != c->registry || m->opcode != CWL_REGISTRY_EV_GLOBAL) return;
    uint32_t name = cwl_arg_uint(m);
    const char *interface = cwl_arg_string(m);
    uint32_t version = cwl_arg_uint(m);
    if (m->bad || interface == NULL) return;
    if (strncmp(interface, "zwlr_", 5) == 0 && strncmp(interface, "zwlr_data_control", 17) != 0) c->family = CWL_FAMILY_WLROOTS;
    if (strncmp(interface, "weston_", 7) == 0) c->family = CWL_FAMILY_WESTON;
    if (strcmp(interface, CWL_IFACE_SEAT) == 0 && c->seat_name == 0) {
        c->seat_name = name;
        c->seat_version = version;
    } else if (strcmp(interface, CWL_IFACE_EXT_MANAGER) == 0) {
        c->ext_name = name;
        c->ext_version = version;
    } else if (strcmp(interface, CWL_IFACE_WLR_MANAGER) == 0) {
        c->wlr_name = name;
        c->wlr_version = version;
    }
}

static cwl_status on_global(void *ctx, cwl_conn *c, cwl_msg *m, cwl_error *err) {
    (void)ctx;
    (void)err;
    cwl_registry_event(c, m);
    return CWL_OK;
}

cwl_status cwl_open_begin(cwl_conn *c, const char *display, const char *runtime_dir, double deadline,
                          cwl_error *err) {
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->next_id = 2;
    const char *debug = getenv("USERDEBUG_WAYLAND_DEBUG");
    c->debug = debug != NULL && strcmp(debug, "1") == 0;
    (void)cwl_object_add(c, CWL_DISPLAY_ID, &cwl_wl_display_interface);
    cwl_status st = socket_address(display, runtime_dir, &c->address, err);
    if (st == CWL_OK) st = connect_socket(c, &c->address, deadline, err);
    if (st == CWL_OK) st = check_peer(c, err);
    if (st == CWL_OK) {
        c->registry = cwl_new_id(c);
        st = cwl_request(c, err, CWL_DISPLAY_ID, CWL_DISPLAY_GET_REGISTRY, c->registry);
    }
    if (st != CWL_OK) cwl_close(c);
    return st;
}

cwl_status cwl_silent(cwl_conn *c, cwl_error *err) {
    /* Connected but silent: to a caller that is the same as no compositor. */
    return cwl_fail(err, CWL_NO_DISPLAY, ETIMEDOUT, "the Wayland compositor at %.160s did not answer in time",
                    c->address.sun_path);
}

cwl_status cwl_open(cwl_conn *c, const char *display, const char *runtime_dir, double deadline, cwl_error *err) {
    cwl_status st = cwl_open_begin(c, display, runtime_dir, deadline, err);
    if (st != CWL_OK) return st;
    st = cwl_roundtrip(c, deadline, on_global, NULL, err);
    if (st == CWL_TIMED_OUT) st = cwl_silent(c, err);
    if (st != CWL_OK) cwl_close(c);
    return st;
}

void cwl_describe(const cwl_conn *c, cwl_probe_result *out) {
    memset(out, 0, sizeof *out);
    out->answered = 1;
    out->has_seat = c->seat_name != 0;
    out->family = c->family;
    if (c->ext_name != 0) {
        out->protocol = CWL_PROTOCOL_EXT;
        out->version = c->ext_version;
        out->has_primary = 1;
    } else if (c->wlr_name != 0) {
        out->protocol = CWL_PROTOCOL_WLR;
        out->version = c->wlr_version;
        out->has_primary = c->wlr_version >= CWL_WLR_PRIMARY_SINCE;
    }
}

void cwl_close(cwl_conn *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    for (size_t i = 0; i < c->in_fd_count; i++) close(c->in_fds[i]);
    c->in_fd_count = 0;
    cwl_drop_event_fds(c);
}

cwl_status cwl_probe(const char *display, const char *runtime_dir, double timeout, cwl_probe_result *out,
                     cwl_error *err) {
    cwl_conn *c = malloc(sizeof *c);
    if (c == NULL) return cwl_fail(err, CWL_FAILED, errno, "malloc: %s", ud_strerror(errno).text);
    cwl_status st = cwl_open(c, display, runtime_dir, ud_now() + timeout, err);
    if (st == CWL_OK) {
        cwl_describe(c, out);
        cwl_close(c);
    }
    free(c);
    return st;
}
