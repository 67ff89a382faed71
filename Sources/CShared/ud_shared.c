/* The clock, waits with deadlines and error text of every backend (see ud_shared.h). */
#define _GNU_SOURCE
#include "ud_shared.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double ud_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ud_wait_fd(int fd, short events, double deadline) {
    struct pollfd pfd = {.fd = fd, .events = events};
    for (;;) {
        double left = deadline - ud_now();
        if (left <= 0) return 0;
        int r = poll(&pfd, 1, ud_poll_ms(left));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r > 0) return 1;
    }
}

void ud_error_vset(int *sys_errno, char *message, size_t cap, int errno_value, const char *fmt, va_list ap) {
    *sys_errno = errno_value;
    vsnprintf(message, cap, fmt, ap);
}

ud_errno_text ud_strerror(int e) {
    ud_errno_text t;
    const char *text = strerror_r(e, t.text, sizeof t.text); /* GNU: ours or a constant string */
    if (text != t.text) snprintf(t.text, sizeof t.text, "%s", text);
    return t;
}
