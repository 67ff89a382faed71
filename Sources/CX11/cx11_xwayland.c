/*
 * Whether an X server is XWayland (see cx11_is_xwayland in cx11.h), the way the popup tells it
 * (Sources/CPopup/udp_display.c): the XWAYLAND extension (XWayland 23.1 and later), else a RandR
 * monitor named XWAYLAND<N>, which every XWayland names its outputs. libxcb-randr has no static
 * library in Debian 12, so RRGetMonitors is sent by hand from the RandR 1.5 specification.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"

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

cx11_status cx11_is_xwayland(const char *display, const char *authority, double timeout, int *is_xwayland,
                             cx11_error *err) {
    *is_xwayland = 0;
    double deadline = ud_now() + timeout;
    xcb_connection_t *c = NULL;
    int screen = 0;
    cx11_status st = cx11_connect(display, authority, deadline, 0, &c, &screen, err);
    if (st != CX11_OK) return st;
    xcb_screen_iterator_t roots = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; i < screen && roots.rem > 0; i++) xcb_screen_next(&roots);
    xcb_window_t root = roots.rem > 0 ? roots.data->root : 0;
    xcb_query_extension_cookie_t xwayland = xcb_query_extension(c, 8, "XWAYLAND");
    xcb_query_extension_cookie_t randr = xcb_query_extension(c, 5, "RANDR");
    xcb_query_extension_reply_t *xw = cx11_reply(c, xwayland.sequence, deadline, NULL);
    xcb_query_extension_reply_t *rr = cx11_reply(c, randr.sequence, deadline, NULL);
    if (xw == NULL || rr == NULL) {
        st = cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server did not answer QueryExtension in time");
    } else if (xw->present) {
        *is_xwayland = 1;
    } else if (rr->present && root != 0) {
        uint8_t *monitors = cx11_reply(c, send_get_monitors(c, rr->major_opcode, root), deadline, NULL);
        *is_xwayland = monitors != NULL && monitors_name_xwayland(c, monitors, deadline);
        free(monitors);
    }
    free(xw);
    free(rr);
    xcb_disconnect(c);
    return st;
}
