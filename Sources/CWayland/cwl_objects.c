/*
 * The objects of a connection and what the protocol tables (cwl_protocol.c, generated) say of
 * their messages: each object's interface, recorded when a request or an event creates it and
 * dropped when it is gone; each event's descriptors, taken from the connection's queue by the
 * event's own signature; and the traffic printed for USERDEBUG_WAYLAND_DEBUG=1.
 *
 * Why by signature: descriptors arrive in one stream beside the bytes. An event is given exactly
 * the descriptors its signature declares, and those a handler does not take are closed before
 * the next event, so an event nobody handles (a `send` to a source we replaced) can never pass
 * its descriptor on to the next one. A destroyed object stays known (a zombie) until the
 * compositor's delete_id, so its late events still have a signature; cwl_next hands none out.
 */
#define _GNU_SOURCE
#include "cwl_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const cwl_interface *cwl_interface_named(const char *name) {
    for (size_t i = 0; name != NULL && i < CWL_INTERFACE_COUNT; i++)
        if (strcmp(cwl_interfaces[i]->name, name) == 0) return cwl_interfaces[i];
    return NULL;
}

static cwl_object *find(const cwl_conn *c, uint32_t id) {
    for (size_t i = 0; i < c->object_count; i++)
        if (c->objects[i].id == id) return (cwl_object *)&c->objects[i];
    return NULL;
}

const cwl_interface *cwl_object_interface(const cwl_conn *c, uint32_t id, int *zombie) {
    const cwl_object *o = find(c, id);
    if (zombie != NULL) *zombie = o != NULL && o->zombie;
    return o != NULL ? o->interface : NULL;
}

void cwl_object_remove(cwl_conn *c, uint32_t id) {
    cwl_object *o = find(c, id);
    if (o == NULL) return;
    *o = c->objects[--c->object_count];
}

int cwl_object_add(cwl_conn *c, uint32_t id, const cwl_interface *interface) {
    cwl_object_remove(c, id); /* a server id the compositor reuses */
    if (c->object_count == CWL_MAX_OBJECTS) {
        /* Full: the oldest zombie goes (its delete_id is overdue); with none, the object stays
         * unknown and its events are passed over. */
        size_t i = 0;
        while (i < c->object_count && !c->objects[i].zombie) i++;
        if (i == c->object_count) return -1;
        memmove(&c->objects[i], &c->objects[i + 1], sizeof *c->objects * (c->object_count - i - 1));
        c->object_count--;
    }
    c->objects[c->object_count++] = (cwl_object){.id = id, .interface = interface};
    return 0;
}

void cwl_object_destroyed(cwl_conn *c, uint32_t id) {
    cwl_object *o = find(c, id);
    if (o == NULL) return;
    /* Kept at the end of the table: the oldest zombies come first. One of ours goes with its
     * delete_id; one of the compositor's (an offer: no delete_id for those) when the compositor
     * reuses its id, or when the table is full. */
    cwl_object zombie = {.id = id, .interface = o->interface, .zombie = 1};
    cwl_object_remove(c, id);
    c->objects[c->object_count++] = zombie;
}

/* The next argument of `sig` from args[*pos...len): 1 with *a, 0 at the end, -1 malformed. */
static int next_arg(const char **sig, const uint8_t *args, size_t len, size_t *pos, cwl_arg *a) {
    while (**sig == '?') (*sig)++;
    if (**sig == '\0') return 0;
    *a = (cwl_arg){.type = *(*sig)++};
    if (a->type == 'h') return 1;
    if (*pos + 4 > len) return -1;
    memcpy(&a->word, args + *pos, 4);
    *pos += 4;
    if (a->type != 's' && a->type != 'a') return 1;
    size_t room = ((size_t)a->word + 3) & ~(size_t)3;
    if (room > len - *pos || (a->type == 's' && a->word > 0 && args[*pos + a->word - 1] != '\0')) return -1;
    a->text = a->word > 0 ? (const char *)(args + *pos) : NULL;
    *pos += room;
    return 1;
}

int cwl_message_walk(const cwl_message *msg, const uint8_t *args, size_t len, cwl_arg *out, size_t cap) {
    const char *sig = msg->signature;
    size_t pos = 0, n = 0;
    cwl_arg a;
    int got;
    while ((got = next_arg(&sig, args, len, &pos, &a)) == 1)
        if (n < cap) out[n++] = a;
    return got < 0 ? -1 : (int)n;
}

/* The interface a new_id argument of `msg` (sent to or by an object of `owner`) creates; `name`:
 * the interface-name argument before an untyped one. */
static const cwl_interface *created(const cwl_interface *owner, const cwl_message *msg, const char *name) {
    if (msg->new_interface != NULL) return cwl_interface_named(msg->new_interface);
    if (msg->new_role >= 0) return owner->family != NULL ? owner->family[msg->new_role] : NULL;
    return cwl_interface_named(name);
}

void cwl_message_record(cwl_conn *c, const cwl_interface *owner, const cwl_message *msg, const cwl_arg *args,
                        int count) {
    for (int i = 0; i < count; i++) {
        if (args[i].type != 'n') continue;
        const char *name = i >= 2 && args[i - 2].type == 's' ? args[i - 2].text : NULL; /* untyped: "sun" */
        const cwl_interface *made = created(owner, msg, name);
        if (made != NULL) (void)cwl_object_add(c, args[i].word, made);
    }
}

/* Append to line[*at...cap) as printf does, cut to fit. */
__attribute__((format(printf, 4, 5))) static void append(char *line, size_t *at, size_t cap, const char *fmt, ...) {
    if (*at >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + *at, cap - *at, fmt, ap);
    va_end(ap);
    if (n > 0) *at += (size_t)n < cap - *at ? (size_t)n : cap - *at - 1;
}

/* The time as WAYLAND_DEBUG shows it: `[ms.µs] `, milliseconds of the wall clock modulo 10^7. */
static void stamp(char *line, size_t *at, size_t cap) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    append(line, at, cap, "[%7u.%03u] ", (unsigned)(ms % 10000000), (unsigned)(ts.tv_nsec / 1000 % 1000));
}

/* One argument as WAYLAND_DEBUG shows it; descriptors as `fd`, arrays by their size only. */
static void print_arg(const cwl_conn *c, char *line, size_t *at, size_t cap, const cwl_arg *a) {
    const cwl_interface *of = cwl_object_interface(c, a->word, NULL);
    const char *name = of != NULL ? of->name : "unknown";
    switch (a->type) {
    case 'i': append(line, at, cap, "%d", (int32_t)a->word); break;
    case 'f': append(line, at, cap, "%f", (double)(int32_t)a->word / 256.0); break;
    case 's': append(line, at, cap, a->text != NULL ? "\"%s\"" : "nil", a->text); break;
    case 'a': append(line, at, cap, "array[%u]", a->word); break;
    case 'h': append(line, at, cap, "fd"); break;
    case 'o': a->word == 0 ? append(line, at, cap, "nil") : append(line, at, cap, "%s@%u", name, a->word); break;
    case 'n': append(line, at, cap, "new id %s@%u", name, a->word); break;
    default: append(line, at, cap, "%u", a->word); break;
    }
}

void cwl_debug_print(const cwl_conn *c, int request, uint32_t object, uint32_t opcode, const uint8_t *args,
                     size_t len) {
    const cwl_interface *of = cwl_object_interface(c, object, NULL);
    uint32_t count = of == NULL ? 0 : request ? of->request_count : of->event_count;
    const cwl_message *msg = opcode < count ? &(request ? of->requests : of->events)[opcode] : NULL;
    char line[1024];
    size_t at = 0;
    stamp(line, &at, sizeof line - 1);
    append(line, &at, sizeof line - 1, "%s%s@%u.", request ? " -> " : "", of != NULL ? of->name : "unknown", object);
    msg != NULL ? append(line, &at, sizeof line - 1, "%s(", msg->name) : append(line, &at, sizeof line - 1, "#%u(", opcode);
    cwl_arg list[CWL_MAX_ARGS];
    int n = msg != NULL ? cwl_message_walk(msg, args, len, list, CWL_MAX_ARGS) : 0;
    for (int i = 0; i < n; i++) {
        if (i > 0) append(line, &at, sizeof line - 1, ", ");
        print_arg(c, line, &at, sizeof line - 1, &list[i]);
    }
    append(line, &at, sizeof line - 1, n < 0 ? "malformed)" : ")");
    line[at++] = '\n';
    (void)!write(STDERR_FILENO, line, at); /* one write: lines of two threads never mix */
}

void cwl_debug_note(const cwl_conn *c, const char *fmt, ...) {
    if (!c->debug) return;
    char line[256];
    size_t at = 0;
    stamp(line, &at, sizeof line - 1);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + at, sizeof line - 1 - at, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    at += (size_t)n < sizeof line - 1 - at ? (size_t)n : sizeof line - 2 - at;
    line[at++] = '\n';
    (void)!write(STDERR_FILENO, line, at);
}
