/*
 * Whether an X server is XWayland (see cx11_xwayland in cx11.h), the way the popup tells it
 * (Sources/CPopup/udp_display.c): the XWAYLAND extension (XWayland 23.1 and later), else a RandR
 * monitor named XWAYLAND<N>, which every XWayland names its outputs. libxcb-randr has no static
 * library in Debian 12, so RRGetMonitors is sent by hand from the RandR 1.5 specification.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"
#include "cx11_transfer.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <xcb/xcbext.h>

/* RRGetMonitors (RandR 1.5): minor opcode 42; the request is (window, BOOL get_active, pad 3). */
#define CX11_RR_GET_MONITORS 42
/* Its reply after the 32-byte header: per monitor a 24-byte MONITORINFO (name ATOM first, nOutput
 * CARD16 at offset 6), then nOutput CARD32 outputs. The header's count of monitors is at 12. */
#define CX11_RR_MONITOR_INFO_SIZE 24

/* Send RRGetMonitors for `root` with the RandR major opcode; returns its sequence number. */
static unsigned int send_get_monitors(xcb_connection_t *c, uint8_t major, xcb_window_t root) {
    uint8_t request[12] = {0, CX11_RR_GET_MONITORS, 3, 0};
    memcpy(request + 4, &root, sizeof root);
    request[8] = 0; /* get_active false: every monitor */
    struct iovec parts[3]; /* xcb uses the two entries before the one it is given */
    parts[2] = (struct iovec){.iov_base = request, .iov_len = sizeof request};
    xcb_protocol_request_t what = {.count = 1, .ext = NULL, .opcode = major, .isvoid = 0};
    return xcb_send_request(c, XCB_REQUEST_CHECKED, parts + 2, &what);
}

/* Whether a RRGetMonitors reply names a monitor XWAYLAND<N>: its name atoms are asked for
 * together, then read (two round trips in all, each under the deadline). */
static int monitors_name_xwayland(xcb_connection_t *c, const uint8_t *reply, double deadline) {
    uint32_t words = 0, count = 0;
    memcpy(&words, reply + 4, sizeof words);
    memcpy(&count, reply + 12, sizeof count);
    size_t size = 32 + (size_t)words * 4, at = 32;
    xcb_get_atom_name_cookie_t cookies[16];
    size_t asked = 0;
    for (uint32_t i = 0; i < count && asked < 16 && at + CX11_RR_MONITOR_INFO_SIZE <= size; i++) {
        xcb_atom_t name;
        uint16_t outputs;
        memcpy(&name, reply + at, sizeof name);
        memcpy(&outputs, reply + at + 6, sizeof outputs);
        cookies[asked++] = xcb_get_atom_name(c, name);
        at += CX11_RR_MONITOR_INFO_SIZE + (size_t)outputs * 4;
    }
    int found = 0;
    for (size_t i = 0; i < asked; i++) {
        xcb_get_atom_name_reply_t *r = cx11_reply(c, cookies[i].sequence, deadline, NULL);
        if (r != NULL && xcb_get_atom_name_name_length(r) >= 8 &&
            strncmp(xcb_get_atom_name_name(r), "XWAYLAND", 8) == 0)
            found = 1;
        free(r);
    }
    return found;
}

/* Whether an X11 window has the keyboard focus as the compositor's window manager says:
 * _NET_ACTIVE_WINDOW on the root names a window (wlroots sets it to None while a Wayland surface
 * has the focus). Two round trips, each under the deadline. */
static int x11_window_focused(xcb_connection_t *c, xcb_window_t root, double deadline) {
    xcb_intern_atom_cookie_t ck = xcb_intern_atom(c, 1, 18, "_NET_ACTIVE_WINDOW");
    xcb_intern_atom_reply_t *atom = cx11_reply(c, ck.sequence, deadline, NULL);
    int focused = 0;
    if (atom != NULL && atom->atom != XCB_NONE && root != 0) {
        xcb_get_property_cookie_t pc = xcb_get_property(c, 0, root, atom->atom, XCB_ATOM_WINDOW, 0, 1);
        xcb_get_property_reply_t *r = cx11_reply(c, pc.sequence, deadline, NULL);
        xcb_window_t active = XCB_NONE;
        if (r != NULL && r->format == 32 && xcb_get_property_value_length(r) >= 4)
            memcpy(&active, xcb_get_property_value(r), sizeof active);
        focused = active != XCB_NONE;
        free(r);
    }
    free(atom);
    return focused;
}

/* Whether the server on c (root `root`) is XWayland, within the deadline; 0 (and *err filled:
 * CX11_NO_DISPLAY) when it did not answer QueryExtension in time. */
static cx11_status is_xwayland(xcb_connection_t *c, xcb_window_t root, double deadline, int *found,
                               cx11_error *err) {
    xcb_query_extension_cookie_t xwayland = xcb_query_extension(c, 8, "XWAYLAND");
    xcb_query_extension_cookie_t randr = xcb_query_extension(c, 5, "RANDR");
    xcb_query_extension_reply_t *xw = cx11_reply(c, xwayland.sequence, deadline, NULL);
    xcb_query_extension_reply_t *rr = cx11_reply(c, randr.sequence, deadline, NULL);
    cx11_status st = CX11_OK;
    if (xw == NULL || rr == NULL) {
        st = cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server did not answer QueryExtension in time");
    } else if (xw->present) {
        *found = 1;
    } else if (rr->present && root != 0) {
        uint8_t *monitors = cx11_reply(c, send_get_monitors(c, rr->major_opcode, root), deadline, NULL);
        *found = monitors != NULL && monitors_name_xwayland(c, monitors, deadline);
        free(monitors);
    }
    free(xw);
    free(rr);
    return st;
}

cx11_status cx11_xwayland(const char *display, const char *authority, double timeout, cx11_xwayland_facts *out,
                          cx11_error *err) {
    memset(out, 0, sizeof *out);
    double deadline = ud_now() + timeout;
    xcb_connection_t *c = NULL;
    int screen = 0;
    cx11_status st = cx11_connect(display, authority, deadline, &c, &screen, err);
    if (st != CX11_OK) return st;
    xcb_screen_iterator_t roots = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; i < screen && roots.rem > 0; i++) xcb_screen_next(&roots);
    xcb_window_t root = roots.rem > 0 ? roots.data->root : 0;
    st = is_xwayland(c, root, deadline, &out->is_xwayland, err);
    if (st == CX11_OK && out->is_xwayland) {
        out->x11_window_focused = x11_window_focused(c, root, deadline);
        out->largest_whole_property = cx11_chunk_for((uint64_t)xcb_get_maximum_request_length(c) * 4);
    }
    xcb_disconnect(c);
    return st;
}
