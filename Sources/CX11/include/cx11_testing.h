#ifndef USERDEBUG_CX11_TESTING_H
#define USERDEBUG_CX11_TESTING_H
/*
 * cx11_testing: the test seam of cx11. What only tests call: the DISPLAY parser as a table, a
 * bare connect-and-disconnect, and the resident owner's socket name. It sits in include/ only
 * because SwiftPM exports that directory as the module; no application code may call it (the
 * Swift wrappers are `@_spi(Testing)` in X11Clipboard), and it may change with any release.
 * Same conventions as cx11.h.
 */
#include "cx11.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a display lives, as parsed from a DISPLAY string. */
typedef enum cx11_transport {
    CX11_TRANSPORT_UNIX = 0, /* local socket: abstract "@/tmp/.X11-unix/XN", then the file */
    CX11_TRANSPORT_TCP = 1,  /* host, port 6000 + N */
    CX11_TRANSPORT_PATH = 2, /* an explicit socket path (launchd style "/path/to/socket:N") */
} cx11_transport;

typedef struct cx11_display_addr {
    cx11_transport transport;
    char host[256];  /* TCP: host name or address literal (brackets removed); else "" */
    char path[108];  /* UNIX: "/tmp/.X11-unix/XN"; PATH: the socket path; fits sun_path */
    int display;     /* N */
    int screen;      /* S of ":N.S", 0 when absent */
} cx11_display_addr;

/*
 * cx11_parse_display: parse a DISPLAY string without touching the network.
 * Accepts ":N", ":N.S", "unix:N", "unix/:N", "host:N" and "tcp/host:N" (TCP; IPv6 as "[::1]:N"
 * or "::1:N"), and "/path/to/socket:N" (the whole string before any ".S" is the socket path, as
 * launchd names it). N and S are decimal, N < 65536 - 6000 for TCP.
 * name: NUL-terminated, may be NULL or "" (reported as "DISPLAY is not set").
 * Returns CX11_OK and fills *out, or CX11_NO_DISPLAY with a message naming the problem.
 */
cx11_status cx11_parse_display(const char *name, cx11_display_addr *out, cx11_error *err);

/*
 * cx11_authority_path: the Xauthority file a connection with no explicit authority reads, from
 * the values of $XAUTHORITY and $HOME (either may be NULL: unset), as libXau's XauFileName
 * names it: `xauthority` when set, else `home`/.Xauthority. Written to out (cap bytes,
 * NUL-terminated); returns 1, or 0 when both are unset or the name does not fit. Unlike
 * XauFileName it keeps no state: safe from any number of threads at once.
 */
int cx11_authority_path(const char *xauthority, const char *home, char *out, size_t cap);

/*
 * cx11_probe: does a display answer within `timeout` seconds? Connects (socket, X setup with
 * the MIT-MAGIC-COOKIE-1 cookie from the authority file when there is one) and disconnects.
 * display: NULL or "" -> $DISPLAY. authority: NULL -> $XAUTHORITY, else ~/.Xauthority.
 * Returns CX11_OK or CX11_NO_DISPLAY. Never blocks past the deadline, except
 * for a DNS lookup of a TCP host name (address literals and /etc/hosts names are immediate).
 * Thread-safe; starts and joins one short-lived watchdog thread while the setup is read.
 */
cx11_status cx11_probe(const char *display, const char *authority, double timeout, cx11_error *err);


/*
 * cx11_resident_name: the abstract unix socket name (without its leading NUL) on which a resident
 * owner of `selection` on `display` listens, for this process's effective uid and the executable
 * file at `executable_path` (NULL: "/proc/self/exe", i.e. ours). The one place the name is made:
 * the library's owners and copies use it, and tests look the name up in /proc/net/unix.
 * display: NULL or "" -> $DISPLAY. out: cap bytes, receives the NUL-terminated name.
 * Returns CX11_OK; CX11_NO_DISPLAY when the display does not parse; CX11_FAILED when the
 * executable cannot be stat'ed (sys_errno); CX11_UNSUPPORTED when the name does not fit `cap` (or
 * an abstract socket address). err may be NULL.
 */
cx11_status cx11_resident_name(const char *display, cx11_selection selection, const char *executable_path,
                               char *out, size_t cap, cx11_error *err);

#ifdef __cplusplus
}
#endif
#endif
