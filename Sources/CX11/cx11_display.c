/* DISPLAY parsing. Kept free of I/O so it can be tested as a table. */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

_Static_assert(sizeof(((cx11_display_addr *)0)->path) <= sizeof(((struct sockaddr_un *)0)->sun_path),
               "a parsed socket path must fit sockaddr_un.sun_path");

/* Parse a decimal in [0, max]; the whole of [s, end) must be digits. -1 when not. */
static long parse_number(const char *s, const char *end, long max) {
    if (s == end) return -1;
    long value = 0;
    for (const char *p = s; p < end; p++) {
        if (!isdigit((unsigned char)*p)) return -1;
        value = value * 10 + (*p - '0');
        if (value > max) return -1;
    }
    return value;
}

/* The display part, after the last ':': "N" or "N.S". Fills out->display and out->screen and
 * *number_end (where N ends); CX11_NO_DISPLAY when it is missing or not decimal. */
static cx11_status parse_display_part(const char *name, const char **colon_out, const char **number_end,
                                      cx11_display_addr *out, cx11_error *err) {
    const char *colon = strrchr(name, ':');
    if (colon == NULL) return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\" has no ':N'", name);
    const char *number = colon + 1;
    const char *dot = strchr(number, '.');
    *number_end = dot ? dot : number + strlen(number);
    long display = parse_number(number, *number_end, 65535);
    long screen = dot ? parse_number(dot + 1, dot + 1 + strlen(dot + 1), 255) : 0;
    if (display < 0 || screen < 0)
        return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\" is not of the form host:N.S", name);
    out->display = (int)display;
    out->screen = (int)screen;
    *colon_out = colon;
    return CX11_OK;
}

/* An optional "protocol/" prefix before the host: moves *host past it and sets *force_tcp or
 * *force_unix. CX11_NO_DISPLAY for an unknown protocol. */
static cx11_status parse_protocol(const char *name, const char *colon, const char **host, int *force_tcp,
                                  int *force_unix, cx11_error *err) {
    const char *slash = memchr(name, '/', (size_t)(colon - name));
    if (slash == NULL) return CX11_OK;
    size_t proto_len = (size_t)(slash - name);
    if (proto_len == 3 && strncmp(name, "tcp", 3) == 0) *force_tcp = 1;
    else if (proto_len == 4 && strncmp(name, "unix", 4) == 0) *force_unix = 1;
    else if (!(proto_len == 5 && strncmp(name, "inet6", 5) == 0) && !(proto_len == 4 && strncmp(name, "inet", 4) == 0))
        return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\" names an unknown protocol", name);
    else *force_tcp = 1;
    *host = slash + 1;
    return CX11_OK;
}

/* The host part [host, host + host_len) with its protocol forcing: a local socket or TCP. */
static cx11_status parse_host(const char *name, const char *host, size_t host_len, int force_tcp, int force_unix,
                              cx11_display_addr *out, cx11_error *err) {
    /* "host::N" is DECnet, which nothing speaks any more; an IPv6 literal ends in a hex digit. */
    if (host_len > 0 && host[host_len - 1] == ':' && !(host_len > 1 && host[0] == ':'))
        return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\" is a DECnet address (unsupported)", name);
    if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
        host++;
        host_len -= 2;
    }
    int is_local = host_len == 0 || (host_len == 4 && strncmp(host, "unix", 4) == 0);
    if (force_unix || (is_local && !force_tcp)) {
        if (host_len != 0 && !(host_len == 4 && strncmp(host, "unix", 4) == 0))
            return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\": unix/ takes no host", name);
        out->transport = CX11_TRANSPORT_UNIX;
        snprintf(out->path, sizeof out->path, "/tmp/.X11-unix/X%d", out->display);
        return CX11_OK;
    }
    if (host_len == 0 || host_len >= sizeof out->host)
        return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\" has no usable host", name);
    if (out->display > 65535 - 6000)
        return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY \"%.64s\": display number too large for TCP", name);
    out->transport = CX11_TRANSPORT_TCP;
    memcpy(out->host, host, host_len);
    return CX11_OK;
}

cx11_status cx11_parse_display(const char *name, cx11_display_addr *out, cx11_error *err) {
    memset(out, 0, sizeof *out);
    if (name == NULL || *name == '\0') return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY is not set");
    const char *colon, *number_end;
    cx11_status st = parse_display_part(name, &colon, &number_end, out, err);
    if (st != CX11_OK) return st;

    /* Launchd style: an absolute socket path, whose file name itself contains ":N". */
    if (name[0] == '/') {
        size_t path_len = (size_t)(number_end - name);
        if (path_len >= sizeof out->path)
            return cx11_fail(err, CX11_NO_DISPLAY, 0, "DISPLAY socket path is too long");
        out->transport = CX11_TRANSPORT_PATH;
        memcpy(out->path, name, path_len);
        return CX11_OK;
    }
    const char *host = name;
    int force_tcp = 0, force_unix = 0;
    st = parse_protocol(name, colon, &host, &force_tcp, &force_unix, err);
    if (st != CX11_OK) return st;
    return parse_host(name, host, (size_t)(colon - host), force_tcp, force_unix, out, err);
}
