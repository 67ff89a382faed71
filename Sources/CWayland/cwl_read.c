/*
 * Reading events: bytes and descriptors from the socket into the connection's buffers, one
 * message at a time out of them with the descriptors its signature declares (see
 * cwl_objects.c), wl_display's own events handled here, and the round trip (wl_display.sync)
 * every caller builds on.
 */
#define _GNU_SOURCE
#include "cwl_internal.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void keep_fds(cwl_conn *c, struct msghdr *msg) {
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
            if (c->in_fd_count < CWL_MAX_FDS)
                c->in_fds[c->in_fd_count++] = fd;
            else
                close(fd);
        }
    }
}

/* Read what the socket holds: 1 when bytes came, 0 when none (EAGAIN), -1 on EOF or error. */
static int receive(cwl_conn *c, cwl_error *err) {
    struct iovec iov = {.iov_base = c->in + c->in_len, .iov_len = sizeof c->in - c->in_len};
    char control[CMSG_SPACE(sizeof(int) * CWL_MAX_FDS)];
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n;
    do n = recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) return 0;
    if (n < 0) {
        cwl_fail(err, CWL_FAILED, errno, "reading from the compositor: %s", ud_strerror(errno).text);
        return -1;
    }
    keep_fds(c, &msg);
    if (n == 0) {
        cwl_fail(err, CWL_FAILED, 0, "the compositor closed the connection");
        return -1;
    }
    c->in_len += (size_t)n;
    return 1;
}

/* A whole message at the start of the buffer: 1 (in *m), 0 (not yet), -1 (malformed). */
static int parse(cwl_conn *c, cwl_msg *m, cwl_error *err) {
    if (c->in_len < 8) return 0;
    uint32_t words[2];
    memcpy(words, c->in, 8);
    size_t size = words[1] >> 16;
    if (size < 8 || size > sizeof c->in || (size & 3) != 0) {
        cwl_fail(err, CWL_FAILED, 0, "malformed message from the compositor (size %zu)", size);
        return -1;
    }
    if (c->in_len < size) return 0;
    *m = (cwl_msg){.object = words[0], .opcode = words[1] & 0xffff, .args = c->in + 8, .len = size - 8};
    c->in_consumed = size;
    return 1;
}

/* wl_display's events: delete_id forgets the object (0), error fails the call (-1). */
static int display_event(cwl_conn *c, cwl_msg *m, cwl_error *err) {
    if (m->opcode == CWL_DISPLAY_EV_DELETE_ID) cwl_object_remove(c, cwl_arg_uint(m));
    if (m->opcode != CWL_DISPLAY_EV_ERROR) return 0;
    uint32_t object = cwl_arg_uint(m);
    uint32_t code = cwl_arg_uint(m);
    const char *text = cwl_arg_string(m);
    cwl_fail(err, CWL_FAILED, 0, "compositor error on object %u (code %u): %.160s", object, code,
             text != NULL ? text : "");
    return -1;
}

/* Close the descriptors of the event handed out last that no handler took. */
static void drop_event_fds(cwl_conn *c) {
    for (size_t i = 0; i < c->msg_fd_count; i++)
        if (c->msg_fds[i] >= 0) close(c->msg_fds[i]);
    c->msg_fd_count = 0;
}

/* Move the first received descriptor to the current event's. */
static void give_fd(cwl_conn *c) {
    int fd = c->in_fds[0];
    memmove(c->in_fds, c->in_fds + 1, sizeof(int) * (c->in_fd_count - 1));
    c->in_fd_count--;
    if (c->msg_fd_count < CWL_MSG_FDS)
        c->msg_fds[c->msg_fd_count++] = fd;
    else
        close(fd);
}

/* Give the event in *m the descriptors its signature declares, record the objects it creates or
 * ends, and print it with c->debug: 1 to hand it out, 0 to pass it over (a zombie's: it is closed
 * with its descriptors), -1 with err (malformed, or a descriptor missing). An unknown object's
 * event has no signature: it takes none. */
static int accept_event(cwl_conn *c, cwl_msg *m, cwl_error *err) {
    int zombie = 0;
    const cwl_interface *of = cwl_object_interface(c, m->object, &zombie);
    const cwl_message *msg = of != NULL && m->opcode < of->event_count ? &of->events[m->opcode] : NULL;
    cwl_arg args[CWL_MAX_ARGS];
    int n = msg != NULL ? cwl_message_walk(msg, m->args, m->len, args, CWL_MAX_ARGS) : 0;
    if (n < 0) {
        cwl_fail(err, CWL_FAILED, 0, "malformed %s.%s from the compositor", of->name, msg->name);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (args[i].type != 'h') continue;
        if (c->in_fd_count == 0) {
            cwl_fail(err, CWL_FAILED, 0, "%s.%s from the compositor came without its descriptor", of->name, msg->name);
            return -1;
        }
        give_fd(c);
    }
    if (msg != NULL) cwl_message_record(c, of, msg, args, n);
    if (c->debug) cwl_debug_print(c, 0, m->object, m->opcode, m->args, m->len);
    if (msg != NULL && msg->destructor) cwl_object_remove(c, m->object);
    return zombie ? 0 : 1;
}

int cwl_next(cwl_conn *c, double deadline, cwl_msg *m, cwl_error *err) {
    for (;;) {
        if (c->in_consumed > 0) {
            drop_event_fds(c);
            memmove(c->in, c->in + c->in_consumed, c->in_len - c->in_consumed);
            c->in_len -= c->in_consumed;
            c->in_consumed = 0;
        }
        int got = parse(c, m, err);
        if (got < 0) return -1;
        if (got > 0) {
            int use = accept_event(c, m, err);
            if (use < 0) return -1;
            if (m->object == CWL_DISPLAY_ID && display_event(c, m, err) < 0) return -1;
            if (use > 0 && m->object != CWL_DISPLAY_ID) return 1;
            continue;
        }
        int r = receive(c, err);
        if (r < 0) return -1;
        if (r > 0) continue;
        double left = deadline - ud_now();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (poll(&p, 1, ud_poll_ms(left)) < 0 && errno != EINTR) {
            cwl_fail(err, CWL_FAILED, errno, "poll: %s", ud_strerror(errno).text);
            return -1;
        }
    }
}

uint32_t cwl_arg_uint(cwl_msg *m) {
    if (m->pos + 4 > m->len) {
        m->bad = 1;
        return 0;
    }
    uint32_t word;
    memcpy(&word, m->args + m->pos, 4);
    m->pos += 4;
    return word;
}

const char *cwl_arg_string(cwl_msg *m) {
    uint32_t n = cwl_arg_uint(m);
    if (m->bad || n == 0) return NULL;
    size_t room = ((size_t)n + 3) & ~(size_t)3;
    if (room > m->len - m->pos || m->args[m->pos + n - 1] != '\0') {
        m->bad = 1;
        return NULL;
    }
    const char *text = (const char *)(m->args + m->pos);
    m->pos += room;
    return text;
}

int cwl_take_fd(cwl_conn *c) {
    for (size_t i = 0; i < c->msg_fd_count; i++) {
        int fd = c->msg_fds[i];
        c->msg_fds[i] = -1;
        if (fd >= 0) return fd;
    }
    return -1;
}

void cwl_drop_event_fds(cwl_conn *c) { drop_event_fds(c); }

cwl_status cwl_roundtrip(cwl_conn *c, double deadline, cwl_handler handler, void *ctx, cwl_error *err) {
    uint32_t callback = cwl_new_id(c);
    cwl_status st = cwl_request(c, err, CWL_DISPLAY_ID, CWL_DISPLAY_SYNC, callback);
    if (st == CWL_OK) st = cwl_flush(c, deadline, err);
    while (st == CWL_OK) {
        cwl_msg m;
        int got = cwl_next(c, deadline, &m, err);
        if (got < 0) return CWL_FAILED;
        if (got == 0) return cwl_fail(err, CWL_TIMED_OUT, ETIMEDOUT, "the compositor did not answer in time");
        if (m.object == callback && m.opcode == CWL_CALLBACK_EV_DONE) return CWL_OK;
        st = handler(ctx, c, &m, err);
    }
    return st;
}

cwl_status cwl_bind(cwl_conn *c, uint32_t name, const char *interface, uint32_t version, uint32_t *id,
                    cwl_error *err) {
    *id = cwl_new_id(c);
    return cwl_request(c, err, c->registry, CWL_REGISTRY_BIND, name, interface, version, *id);
}
