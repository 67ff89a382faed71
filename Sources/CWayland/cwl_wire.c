/*
 * The Wayland wire format: requests queued into one buffer, encoded by the signatures of the
 * protocol tables (cwl_protocol.c, generated from the XML), and sent with their descriptors as
 * SCM_RIGHTS; events are read in cwl_read.c.
 */
#define _GNU_SOURCE
#include "cwl_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

cwl_status cwl_fail(cwl_error *err, cwl_status status, int errno_value, const char *fmt, ...) {
    if (err == NULL) return status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    ud_error_vset(&err->sys_errno, err->message, sizeof err->message, errno_value, fmt, ap);
    va_end(ap);
    return status;
}

uint32_t cwl_new_id(cwl_conn *c) { return c->next_id++; }

static size_t padded(size_t n) { return (n + 3) & ~(size_t)3; }

static void put_word(uint8_t *at, uint32_t word) { memcpy(at, &word, 4); }

/* Bytes a request of signature `sig` takes, or 0 when it cannot fit a message (or has an
 * argument type no request of ours has: f, a). */
static size_t request_size(const char *sig, va_list ap) {
    size_t size = 8;
    for (const char *s = sig; *s != '\0'; s++) {
        if (*s == 'i' || *s == 'u' || *s == 'o' || *s == 'n') {
            (void)va_arg(ap, uint32_t);
            size += 4;
        } else if (*s == 's') {
            const char *text = va_arg(ap, const char *);
            size += 4 + (text != NULL ? padded(strlen(text) + 1) : 0);
        } else if (*s == 'h') {
            (void)va_arg(ap, int);
        } else if (*s != '?') {
            return 0;
        }
    }
    return size <= 4096 ? size : 0;
}

static void encode_args(cwl_conn *c, uint8_t *at, const char *sig, va_list ap) {
    for (const char *s = sig; *s != '\0'; s++) {
        if (*s == 'i' || *s == 'u' || *s == 'o' || *s == 'n') {
            put_word(at, va_arg(ap, uint32_t));
            at += 4;
        } else if (*s == 's') {
            const char *text = va_arg(ap, const char *);
            size_t n = text != NULL ? strlen(text) + 1 : 0;
            put_word(at, (uint32_t)n);
            memset(at + 4, 0, padded(n));
            if (n > 0) memcpy(at + 4, text, n);
            at += 4 + padded(n);
        } else if (*s == 'h') {
            c->out_fds[c->out_fd_count++] = va_arg(ap, int);
        }
    }
}

/* What a request just queued at `at` (size bytes) does to the objects: the ones its new_ids
 * create become known, a destructor's object a zombie; printed first with c->debug. */
static void after_request(cwl_conn *c, const cwl_interface *of, const cwl_message *msg, uint32_t object,
                          uint32_t opcode, const uint8_t *at, size_t size) {
    cwl_arg args[CWL_MAX_ARGS];
    int n = cwl_message_walk(msg, at + 8, size - 8, args, CWL_MAX_ARGS);
    if (n > 0) cwl_message_record(c, of, msg, args, n);
    if (c->debug) cwl_debug_print(c, 1, object, opcode, at + 8, size - 8);
    if (msg->destructor) cwl_object_destroyed(c, object);
}

cwl_status cwl_request(cwl_conn *c, cwl_error *err, uint32_t object, uint32_t opcode, ...) {
    const cwl_interface *of = cwl_object_interface(c, object, NULL);
    if (of == NULL || opcode >= of->request_count)
        return cwl_fail(err, CWL_FAILED, 0, "request %u to object %u, which has no such request", opcode, object);
    const cwl_message *msg = &of->requests[opcode];
    va_list ap;
    va_start(ap, opcode);
    size_t size = request_size(msg->signature, ap);
    va_end(ap);
    if (size == 0) return cwl_fail(err, CWL_FAILED, 0, "request %s.%s is too long", of->name, msg->name);
    size_t fds = strchr(msg->signature, 'h') != NULL ? 1 : 0;
    if (c->out_len + size > sizeof c->out || c->out_fd_count + fds > CWL_MAX_FDS) {
        cwl_status st = cwl_flush(c, ud_now() + 1, err);
        if (st != CWL_OK) return st;
    }
    uint8_t *at = c->out + c->out_len;
    put_word(at, object);
    put_word(at + 4, (uint32_t)size << 16 | opcode);
    va_start(ap, opcode);
    encode_args(c, at + 8, msg->signature, ap);
    va_end(ap);
    c->out_len += size;
    after_request(c, of, msg, object, opcode, at, size);
    return CWL_OK;
}

static ssize_t send_some(cwl_conn *c) {
    struct iovec iov = {.iov_base = c->out, .iov_len = c->out_len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    char control[CMSG_SPACE(sizeof(int) * CWL_MAX_FDS)];
    if (c->out_fd_count > 0) {
        memset(control, 0, sizeof control);
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * c->out_fd_count);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * c->out_fd_count);
        memcpy(CMSG_DATA(cm), c->out_fds, sizeof(int) * c->out_fd_count);
    }
    return sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

cwl_status cwl_flush(cwl_conn *c, double deadline, cwl_error *err) {
    while (c->out_len > 0) {
        ssize_t n = send_some(c);
        if (n > 0) {
            c->out_fd_count = 0; /* the descriptors went with the first byte */
            memmove(c->out, c->out + n, c->out_len - (size_t)n);
            c->out_len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN)
            return cwl_fail(err, CWL_FAILED, errno, "sending to the compositor: %s", ud_strerror(errno).text);
        struct pollfd p = {.fd = c->fd, .events = POLLOUT};
        double left = deadline - ud_now();
        if (left <= 0) return cwl_fail(err, CWL_TIMED_OUT, 0, "the compositor did not read our requests in time");
        if (poll(&p, 1, ud_poll_ms(left)) < 0 && errno != EINTR)
            return cwl_fail(err, CWL_FAILED, errno, "poll: %s", ud_strerror(errno).text);
    }
    return CWL_OK;
}
