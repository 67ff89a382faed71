/*
 * The resident owner's socket: its name and the copy's side (the socket, the peer check and the
 * exchange are CShared's ud_resident.h, the same as CX11's).
 *
 * A copy that finds a serving process of ours for the same selection on the same compositor
 * hands it the payload instead of connecting and forking; the serving process makes a new data
 * source the selection, confirms it as cwl_own does, and answers. Abstract socket names carry no
 * permissions, so both sides check the other runs as our euid in our mount namespace
 * (ud_peer_is_us): a payload (maybe a secret) never goes to another user's process, and another user
 * never changes our content. The name carries the compositor socket's identity (dev:ino) and our
 * executable's, so another compositor or another build is never fed. Anything unexpected makes
 * the copy own as usual. The serving side is cwl_listener.c.
 */
#define _GNU_SOURCE
#include "cwl_resident.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cwl_resident_name(const char *display, const char *runtime_dir, cwl_selection selection, char *out,
                      size_t cap) {
    if (display == NULL || *display == '\0') display = getenv("WAYLAND_DISPLAY");
    if (runtime_dir == NULL || *runtime_dir == '\0') runtime_dir = getenv("XDG_RUNTIME_DIR");
    if (display == NULL || *display == '\0') return -1;
    char path[PATH_MAX];
    int n = display[0] == '/' ? snprintf(path, sizeof path, "%s", display)
                              : snprintf(path, sizeof path, "%s/%s", runtime_dir != NULL ? runtime_dir : "", display);
    struct stat sock, exe;
    if (n < 0 || (size_t)n >= sizeof path || stat(path, &sock) != 0 || stat("/proc/self/exe", &exe) != 0) return -1;
    n = snprintf(out, cap, "userdebug-wl-owner-%d/%u/%s/%lx:%lx/%lx:%lx", CWL_RESIDENT_VERSION, (unsigned)geteuid(),
                 selection == CWL_PRIMARY ? "PRIMARY" : "CLIPBOARD", (unsigned long)sock.st_dev,
                 (unsigned long)sock.st_ino, (unsigned long)exe.st_dev, (unsigned long)exe.st_ino);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

cwl_status cwl_resident_hand(const cwl_own_options *o, const uint8_t *bytes, size_t len, pid_t *owner_pid) {
    char name[UD_RESIDENT_NAME_CAP];
    if (len > CWL_RESIDENT_MAX_BYTES || cwl_resident_name(o->display, o->runtime_dir, o->selection, name, sizeof name) != 0)
        return CWL_FAILED;
    cwl_hand_header h = {.magic = CWL_RESIDENT_MAGIC, .kind = (uint32_t)o->kind, .offer_text = (uint32_t)o->offer_text,
                         .is_secret = (uint32_t)o->is_secret, .transfer_timeout = o->transfer_timeout,
                         .clear_after = o->clear_after, .lifetime = o->lifetime, .len = len};
    cwl_hand_reply reply = {.status = CWL_FAILED};
    double deadline = ud_now() + o->connect_timeout / 2;
    if (!ud_resident_call(name, &h, sizeof h, bytes, len, &reply, sizeof reply, deadline) || reply.status != CWL_OK ||
        reply.pid <= 0)
        return CWL_FAILED;
    *owner_pid = reply.pid;
    return CWL_OK;
}
