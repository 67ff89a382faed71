#ifndef USERDEBUG_CX11_CONNECT_H
#define USERDEBUG_CX11_CONNECT_H
/* The parts of cx11_connect: a socket under a deadline, the authority cookie, the X setup. */
#include "cx11_internal.h"

#include <X11/Xauth.h>
#include <sys/socket.h>

/* Local sockets (cx11_socket.c): the abstract name first when try_abstract (what the server
 * listens on in Linux namespaces), then the file at `path`. Returns a connected non-blocking fd, or
 * -1 with errno (ETIMEDOUT at the deadline). */
int cx11_socket_unix(const char *path, int try_abstract, double deadline);

/* TCP (cx11_socket.c): resolve `host` under the deadline and connect to port 6000 + display on
 * the first address that answers; *used receives that address, for the authority lookup. Returns
 * the fd (TCP_NODELAY set), or -1 with errno (ETIMEDOUT, EHOSTUNREACH, or connect's). */
int cx11_socket_tcp(const char *host, int display, double deadline, struct sockaddr_storage *used);

/* The MIT-MAGIC-COOKIE-1 for a display reached at addr (cx11_auth.c); tcp: the address used when
 * addr is TCP. authority NULL: $XAUTHORITY, else ~/.Xauthority. Returns a malloc'd Xauth
 * (XauDisposeAuth it) or NULL when there is none. */
Xauth *cx11_cookie_for(const char *authority, const cx11_display_addr *addr, const struct sockaddr_storage *tcp);

/* Run the X setup handshake on fd (consumed, whatever happens) under the deadline (cx11_setup.c),
 * bounded by a watchdog thread. auth may be NULL. display names the display in messages.
 * Returns CX11_OK with *out a live connection, CX11_NO_DISPLAY (refused, or silent past the
 * deadline: sys_errno ETIMEDOUT) or CX11_FAILED (dup, pthread_create). */
cx11_status cx11_setup(int fd, xcb_auth_info_t *auth, double deadline, const char *display, xcb_connection_t **out,
                       cx11_error *err);

#endif
