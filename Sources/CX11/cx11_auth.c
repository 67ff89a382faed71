/*
 * The authority cookie for a display, looked up as Xlib and xcb do.
 *
 * Thread-safe, with no shared state: the file name is computed into the caller's stack
 * (cx11_authority_path) rather than taken from libXau's XauFileName, whose one static buffer is
 * freed and reallocated by every caller (two threads connecting at once read it while the other
 * frees it). XauReadAuth reads only the FILE it is given.
 */
#define _GNU_SOURCE
#include "cx11_connect.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Xauthority family codes (X11/Xauth.h defines FamilyLocal and FamilyWild; these come from X.h). */
enum { CX11_FAMILY_INTERNET = 0, CX11_FAMILY_INTERNET6 = 6 };

/*
 * Find the MIT-MAGIC-COOKIE-1 entry for (family, address, display number) in the authority
 * file, as Xlib and xcb do: exact family and address, or FamilyWild; display number equal or
 * empty. Returns a malloc'd Xauth (XauDisposeAuth it) or NULL when there is none.
 */
static Xauth *find_cookie(const char *authority, unsigned short family, const char *address,
                          unsigned short address_len, int display) {
    char path[4096];
    const char *file = authority;
    if (file == NULL && cx11_authority_path(getenv("XAUTHORITY"), getenv("HOME"), path, sizeof path)) file = path;
    if (file == NULL) return NULL;
    FILE *f = fopen(file, "rbe");
    if (f == NULL) return NULL;
    char number[16];
    int number_len = snprintf(number, sizeof number, "%d", display);
    static const char cookie_name[] = "MIT-MAGIC-COOKIE-1";
    Xauth *found = NULL;
    for (Xauth *entry; found == NULL && (entry = XauReadAuth(f)) != NULL;) {
        int family_ok = entry->family == FamilyWild ||
                        (entry->family == family && entry->address_length == address_len &&
                         memcmp(entry->address, address, address_len) == 0);
        int number_ok = entry->number_length == 0 ||
                        (entry->number_length == number_len && memcmp(entry->number, number, (size_t)number_len) == 0);
        int name_ok = entry->name_length == sizeof cookie_name - 1 &&
                      memcmp(entry->name, cookie_name, sizeof cookie_name - 1) == 0;
        if (family_ok && number_ok && name_ok) found = entry;
        else XauDisposeAuth(entry);
    }
    fclose(f);
    return found;
}

int cx11_authority_path(const char *xauthority, const char *home, char *out, size_t cap) {
    /* As XauFileName: $XAUTHORITY when set (even empty: no file then), else $HOME/.Xauthority. */
    int n = xauthority != NULL ? snprintf(out, cap, "%s", xauthority)
            : home != NULL     ? snprintf(out, cap, "%s%s.Xauthority", home, strcmp(home, "/") == 0 ? "" : "/")
                               : -1;
    return n >= 0 && (size_t)n < cap;
}

/* The authority lookup key: local sockets and loopback TCP use FamilyLocal with our host name. */
Xauth *cx11_cookie_for(const char *authority, const cx11_display_addr *addr, const struct sockaddr_storage *tcp) {
    if (addr->transport == CX11_TRANSPORT_TCP) {
        if (tcp->ss_family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)tcp;
            if ((ntohl(in->sin_addr.s_addr) >> 24) != 127)
                return find_cookie(authority, CX11_FAMILY_INTERNET, (const char *)&in->sin_addr, 4, addr->display);
        } else if (tcp->ss_family == AF_INET6) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)tcp;
            if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
                return find_cookie(authority, CX11_FAMILY_INTERNET6, (const char *)&in6->sin6_addr, 16, addr->display);
        }
    }
    char host[256];
    if (gethostname(host, sizeof host) != 0) return NULL;
    host[sizeof host - 1] = '\0';
    return find_cookie(authority, FamilyLocal, host, (unsigned short)strlen(host), addr->display);
}
