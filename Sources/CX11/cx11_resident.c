/*
 * The resident owner: a serving process that takes the next copy's content over a local socket.
 *
 * A copy that finds a process of ours already serving the same selection on the same display
 * hands it the payload instead of connecting to X and forking: the serving process takes the
 * selection again with a fresh server timestamp, confirms it, and answers. Both sides check the
 * other's uid and mount namespace (ud_peer_is_us), since abstract socket names carry no permissions: a payload (maybe a
 * secret) never goes to another user's process, and another user can never change our content.
 * Anything unexpected on the client side (no listener, another uid, a refusal, a deadline) makes
 * the caller fall back to connecting and forking as usual; nothing is lost by trying.
 *
 * Here: the socket's name and the copy's side; the socket, the peer check and the exchange are
 * CShared's (ud_resident.h). The serving side (listening, receiving and answering an offer) is
 * cx11_listener.c.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The device and inode of the file at path, "%lx:%lx"-ready; 0 when it cannot be stat'ed. */
static int file_identity(const char *path, unsigned long *dev, unsigned long *ino) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    *dev = (unsigned long)st.st_dev;
    *ino = (unsigned long)st.st_ino;
    return 1;
}

cx11_status cx11_resident_name(const char *display, cx11_selection selection, const char *executable_path,
                               char *out, size_t cap, cx11_error *err) {
    if (display == NULL || *display == '\0') display = getenv("DISPLAY");
    cx11_display_addr parsed;
    cx11_status st = cx11_parse_display(display, &parsed, err);
    if (st != CX11_OK) return st;
    const char *sel = selection == CX11_PRIMARY ? "PRIMARY" : "CLIPBOARD";
    unsigned uid = (unsigned)geteuid();
    /* A local server is also named by its socket file's identity: abstract names are shared by
     * everyone in the network namespace, and two containers that share it may each run a server
     * with the same display number (only one of them holding the abstract X socket). */
    unsigned long dev = 0, ino = 0, exe_dev, exe_ino;
    if (parsed.transport != CX11_TRANSPORT_TCP) (void)file_identity(parsed.path, &dev, &ino);
    /* And by our executable file: an owner forked by another build (an upgrade installed while
     * it serves) speaks another protocol, and a copy must not keep feeding the old code. */
    const char *exe = executable_path != NULL ? executable_path : "/proc/self/exe";
    if (!file_identity(exe, &exe_dev, &exe_ino))
        return cx11_fail(err, CX11_FAILED, errno, "stat %.160s: %s", exe, ud_strerror(errno).text);
    int n;
    switch (parsed.transport) {
    case CX11_TRANSPORT_TCP:
        n = snprintf(out, cap, "userdebug-owner-%d/%u/%s/tcp/%s/%d/%lx:%lx", CX11_RESIDENT_VERSION, uid, sel,
                     parsed.host, parsed.display, exe_dev, exe_ino);
        break;
    case CX11_TRANSPORT_PATH:
        n = snprintf(out, cap, "userdebug-owner-%d/%u/%s/path/%s/%lx:%lx/%lx:%lx", CX11_RESIDENT_VERSION, uid,
                     sel, parsed.path, dev, ino, exe_dev, exe_ino);
        break;
    default:
        n = snprintf(out, cap, "userdebug-owner-%d/%u/%s/unix/%d/%lx:%lx/%lx:%lx", CX11_RESIDENT_VERSION, uid, sel,
                     parsed.display, dev, ino, exe_dev, exe_ino);
        break;
    }
    size_t abstract_room = sizeof((struct sockaddr_un *)0)->sun_path - 1;
    if (n < 0 || (size_t)n >= cap || (size_t)n >= abstract_room)
        return cx11_fail(err, CX11_UNSUPPORTED, 0, "the resident owner's socket name does not fit");
    return CX11_OK;
}

void cx11_offer_terms(const cx11_own_options *options, size_t len, double deadline, cx11_offer_header *h) {
    *h = (cx11_offer_header){
        .magic = CX11_OFFER_MAGIC,
        .kind = (uint32_t)options->kind,
        .is_secret = options->is_secret ? 1u : 0u,
        .deadline = deadline,
        .clear_after = options->clear_after,
        .lifetime = options->lifetime,
        .transfer_timeout = options->transfer_timeout,
        .handoff_timeout = options->handoff_timeout,
        .len = (uint64_t)len,
    };
}

int cx11_resident_offer(const cx11_own_options *options, const uint8_t *bytes, size_t len, double deadline,
                        pid_t *owner_pid) {
    if (len > CX11_RESIDENT_MAX_BYTES || options->handoff_at_once) return 0;
    char name[UD_RESIDENT_NAME_CAP];
    if (cx11_resident_name(options->display, options->selection, NULL, name, sizeof name, NULL) != CX11_OK)
        return 0; /* no display, or a name that does not fit: no resident owner */
    cx11_offer_header header;
    cx11_offer_terms(options, len, deadline, &header);
    cx11_offer_reply reply = {0};
    if (!ud_resident_call(name, &header, sizeof header, bytes, len, &reply, sizeof reply, deadline) ||
        reply.magic != CX11_OFFER_MAGIC || reply.status != CX11_OK || reply.pid <= 0)
        return 0;
    *owner_pid = (pid_t)reply.pid;
    return 1;
}
