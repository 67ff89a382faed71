#ifndef USERDEBUG_UD_SHARED_H
#define USERDEBUG_UD_SHARED_H
/*
 * ud_shared: what every clipboard backend's C code (CX11, CWayland) needs the same way, written
 * once: the monotonic clock and waits with deadlines, and the error text conventions. The
 * resident owner's local socket is ud_resident.h.
 * No display protocol in here, no globals, no output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic clock in seconds. */
double ud_now(void);

/* poll()'s timeout for `left` seconds: rounded up, 0 when past, capped (no int overflow for a
 * huge or infinite duration). */
static inline int ud_poll_ms(double left) {
    if (!(left > 0)) return 0;
    return left >= 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

/* Poll one fd for `events` (POLLIN, POLLOUT) until the deadline (ud_now() time), through EINTR:
 * 1 ready (or hung up), 0 timeout, -1 error. */
int ud_wait_fd(int fd, short events, double deadline);

/*
 * The outcomes every backend's calls report and the selections they own or read, one list for
 * all of them: a backend declares its own enum from it with its prefix (cx11_status: CX11_OK,
 * CX11_NO_DISPLAY...; cwl_status: CWL_OK...), so the values agree everywhere (a status crosses the
 * resident owner's socket as a number). What an outcome means on a backend is in its header.
 *   OK           done
 *   NO_DISPLAY   nothing to connect to, refused, or silent past the deadline while connecting
 *   TIMED_OUT    a deadline passed once connected
 *   NOT_OWNER    the selection was not made ours
 *   NO_CONTENT   reading: the requested type is not there
 *   UNSUPPORTED  the request cannot be done here
 *   FAILED       a system call or the display protocol failed
 *   NO_OWNER     reading: the selection has no owner
 *   TOO_SLOW     reading: the owner sent, but the whole read passed its overall deadline (an
 *                owner that trickles its bytes; see UD_PASTE_RATE)
 */
#define UD_STATUS_VALUES(prefix)                                                                  \
    prefix##_OK = 0, prefix##_NO_DISPLAY = 1, prefix##_TIMED_OUT = 2, prefix##_NOT_OWNER = 3,      \
    prefix##_NO_CONTENT = 4, prefix##_UNSUPPORTED = 5, prefix##_FAILED = 6, prefix##_NO_OWNER = 7, \
    prefix##_TOO_SLOW = 8
/* The first value a backend may add to its own outcomes. */
#define UD_STATUS_BACKEND 9
/* CLIPBOARD, PRIMARY. */
#define UD_SELECTION_VALUES(prefix) prefix##_CLIPBOARD = 0, prefix##_PRIMARY = 1

/* The rate a paste must keep up past its first `total` seconds, on X11 and Wayland alike: each
 * UD_PASTE_RATE bytes received allow one more second. 256 KiB/s is 2 Mbit/s, slower than any
 * local server and most forwarded ones; an owner that keeps up with it is sending data. */
#define UD_PASTE_RATE (256.0 * 1024.0)

/* The size of a backend error's one-line message. */
#define UD_MESSAGE_CAP 240

/* A backend's error type (cx11_error, cwl_error), declared once for every backend: its status
 * (the backend's own enum: each names its outcomes in its own terms), the errno of the system
 * call that failed (or 0), and a NUL-terminated one-line message naming what failed. Every
 * backend function that does not succeed fills the caller's one (ud_error_vset). */
#define UD_ERROR_TYPE(name, status_type) \
    typedef struct name {                \
        status_type status;              \
        int sys_errno;                   \
        char message[UD_MESSAGE_CAP];    \
    } name

/* Format a backend error's message and errno: *sys_errno = errno_value (0 when not a system
 * call), message = the printf-style text, cut to fit. The backend's own fail function sets its
 * status (a type of its own) and calls this. */
void ud_error_vset(int *sys_errno, char *message, size_t cap, int errno_value, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

/* The text of errno value `e` as strerror gives it, made with strerror_r into the returned value
 * (no static buffer: safe from any thread, unlike strerror). Use it inside the call that formats
 * it: cx11_fail(err, ..., "%s", ud_strerror(e).text). */
typedef struct ud_errno_text {
    char text[128];
} ud_errno_text;
ud_errno_text ud_strerror(int e);

#ifdef __cplusplus
}
#endif
#endif
