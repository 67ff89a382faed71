/*
 * Connecting with a deadline: parse DISPLAY, connect the socket (cx11_socket.c), find the cookie
 * (cx11_auth.c), run the X setup (cx11_setup.c), each bounded by the same deadline. Neither Xlib
 * nor xcb has a connect timeout; cx11_setup.c says how the handshake is bounded.
 */
#define _GNU_SOURCE
#include "cx11_connect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

cx11_status cx11_connect(const char *display, const char *authority, double deadline,
                         xcb_connection_t **out, int *screen, cx11_error *err) {
    if (display == NULL || *display == '\0') display = getenv("DISPLAY");
    cx11_display_addr addr;
    cx11_status st = cx11_parse_display(display, &addr, err);
    if (st != CX11_OK) return st;

    struct sockaddr_storage tcp;
    memset(&tcp, 0, sizeof tcp);
    int fd;
    switch (addr.transport) {
    case CX11_TRANSPORT_UNIX: fd = cx11_socket_unix(addr.path, 1, deadline); break;
    case CX11_TRANSPORT_PATH: fd = cx11_socket_unix(addr.path, 0, deadline); break;
    default: fd = cx11_socket_tcp(addr.host, addr.display, deadline, &tcp); break;
    }
    if (fd < 0) {
        int saved = errno;
        if (saved == ETIMEDOUT && addr.transport == CX11_TRANSPORT_TCP)
            return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: looking up or connecting to the host timed out", display);
        if (saved == ETIMEDOUT)
            return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: connect timed out", display);
        if (saved == EHOSTUNREACH && addr.transport == CX11_TRANSPORT_TCP)
            return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: cannot resolve or reach the host", display);
        return cx11_fail(err, CX11_NO_DISPLAY, saved, "display %.64s: %s", display, ud_strerror(saved).text);
    }

    Xauth *cookie = cx11_cookie_for(authority, &addr, &tcp);
    xcb_auth_info_t auth = {0};
    if (cookie != NULL) {
        auth.name = cookie->name;
        auth.namelen = cookie->name_length;
        auth.data = cookie->data;
        auth.datalen = cookie->data_length;
    }
    st = cx11_setup(fd, cookie != NULL ? &auth : NULL, deadline, display, out, err);
    if (cookie != NULL) XauDisposeAuth(cookie);
    if (st == CX11_OK) *screen = addr.screen;
    return st;
}

cx11_status cx11_probe(const char *display, const char *authority, double timeout, cx11_error *err) {
    xcb_connection_t *c = NULL;
    int screen = 0;
    cx11_status st = cx11_connect(display, authority, ud_now() + timeout, &c, &screen, err);
    if (st == CX11_OK) xcb_disconnect(c);
    return st;
}
