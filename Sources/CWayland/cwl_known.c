/*
 * A cold copy in one round trip (see cwl_known.h). The names a compositor gives its globals stay
 * the same while it runs, so the names of the seat and of the data-control manager that the last
 * copy on this compositor found are kept in a small file of ours beside the compositor's socket.
 * With them, the next copy sends get_registry, both binds, the device, the source, its offers and
 * set_selection in one flush and one sync: the registry's globals come back in that same round
 * trip and must show those names with the interfaces bound (binding a name whose interface
 * differs is a protocol error, which ends the attempt). Anything unexpected (no file, another
 * compositor, a protocol error, other names) falls back to the usual two round trips, which then
 * keep the names for the next copy.
 */
#define _GNU_SOURCE
#include "cwl_known.h"
#include "ud_disable.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CWL_KNOWN_MAGIC 0x4b4c5755u /* "UWLK" */

/* The file's content (both ends are this executable on this host). */
typedef struct cwl_known_record {
    uint32_t magic;
    uint32_t seat_name, manager_name, manager_version, is_ext;
    uint32_t reserved; /* 0 */
    uint64_t socket_dev, socket_ino;
} cwl_known_record;
_Static_assert(sizeof(cwl_known_record) == 40, "cwl_known_record has padding");

void cwl_known_locate(cwl_known *k, const char *display, const char *runtime_dir) {
    memset(k, 0, sizeof *k);
    if (ud_disabled(UD_MECH_GLOBALS_CACHE)) return; /* not located: neither read nor written */
    if (display == NULL || *display == '\0') display = getenv("WAYLAND_DISPLAY");
    if (runtime_dir == NULL || *runtime_dir == '\0') runtime_dir = getenv("XDG_RUNTIME_DIR");
    if (display == NULL || *display == '\0') return;
    char socket[PATH_MAX];
    int n = display[0] == '/' ? snprintf(socket, sizeof socket, "%s", display)
                              : snprintf(socket, sizeof socket, "%s/%s", runtime_dir != NULL ? runtime_dir : "",
                                         display);
    struct stat st;
    if (n < 0 || (size_t)n >= sizeof socket || stat(socket, &st) != 0) return;
    n = snprintf(k->path, sizeof k->path, "%s.userdebug-globals-%u", socket, (unsigned)geteuid());
    if (n < 0 || (size_t)n >= sizeof k->path) return;
    k->socket_dev = (uint64_t)st.st_dev;
    k->socket_ino = (uint64_t)st.st_ino;
    k->located = 1;
    cwl_known_record r;
    /* The file sits beside the socket, maybe in a shared directory (/tmp) where another user
     * may have put anything under its name: a FIFO would block open() without O_NONBLOCK (and
     * read() after it), a link of theirs to a file of ours would feed us its bytes. Only a
     * regular file of ours with one link is read. */
    int fd = open(k->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return;
    struct stat own;
    ssize_t got = -1;
    if (fstat(fd, &own) == 0 && S_ISREG(own.st_mode) && own.st_uid == geteuid() && own.st_nlink == 1 &&
        (own.st_mode & 022) == 0)
        got = read(fd, &r, sizeof r);
    close(fd);
    if (got != (ssize_t)sizeof r || r.magic != CWL_KNOWN_MAGIC || r.socket_dev != k->socket_dev ||
        r.socket_ino != k->socket_ino || r.seat_name == 0 || r.manager_name == 0)
        return;
    k->seat_name = r.seat_name;
    k->manager_name = r.manager_name;
    k->manager_version = r.manager_version;
    k->is_ext = (int)r.is_ext;
    k->valid = 1;
}

void cwl_known_keep(cwl_known *k, const cwl_session *s) {
    const cwl_conn *c = &s->conn;
    uint32_t manager = s->is_ext ? c->ext_name : c->wlr_name;
    if (!k->located || (k->valid && k->seat_name == c->seat_name && k->manager_name == manager &&
                        k->manager_version == s->manager_version && k->is_ext == s->is_ext))
        return;
    /* No padding in the record (reserved fills it), so every byte written is set. */
    cwl_known_record r = {.magic = CWL_KNOWN_MAGIC, .seat_name = c->seat_name, .manager_name = manager,
                          .manager_version = s->manager_version, .is_ext = (uint32_t)s->is_ext,
                          .socket_dev = k->socket_dev, .socket_ino = k->socket_ino};
    char tmp[PATH_MAX + 16];
    int n = snprintf(tmp, sizeof tmp, "%s.%d", k->path, (int)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    int ok = write(fd, &r, sizeof r) == (ssize_t)sizeof r;
    close(fd);
    if (!ok || rename(tmp, k->path) != 0) unlink(tmp);
}

/* Whether the globals the registry sent in the round trip show the names bound, as the usual
 * path would have chosen them (the first seat; ext where offered). */
static int names_hold(const cwl_known *k, const cwl_conn *c) {
    uint32_t manager = c->ext_name != 0 ? c->ext_name : c->wlr_name;
    return c->seat_name == k->seat_name && manager == k->manager_name && (c->ext_name != 0) == k->is_ext;
}

cwl_status cwl_known_own(cwl_owner *w, const cwl_known *k, double deadline, cwl_probe_result *probed, int *fall_back,
                         cwl_error *err) {
    *fall_back = 1;
    cwl_session *s = &w->s;
    if (!k->valid || (w->o.selection == CWL_PRIMARY && !k->is_ext && k->manager_version < CWL_WLR_PRIMARY_SINCE))
        return CWL_FAILED;
    cwl_status st = cwl_session_begin(s, w->o.display, w->o.runtime_dir, w->o.selection, deadline, err);
    *fall_back = 0;
    if (st != CWL_OK) return st; /* nothing answers: the usual path would say the same */
    const cwl_conn *c = &s->conn;
    st = cwl_session_bind(s, k->seat_name, k->manager_name, k->is_ext, k->manager_version, err);
    if (st == CWL_OK) st = cwl_owner_take(w, deadline, err);
    int answered = c->seat_name != 0 || c->ext_name != 0 || c->wlr_name != 0;
    int late = st == CWL_NOT_OWNER && err != NULL && err->sys_errno == ETIMEDOUT;
    if (late && !answered) return cwl_silent(&s->conn, err);
    if (late) return st; /* the deadline is spent */
    if (st == CWL_FAILED || !names_hold(k, c)) {
        cwl_owner_drop_transfers(w);
        cwl_session_close(s);
        w->cancelled = 0;
        *fall_back = 1;
        return CWL_FAILED;
    }
    if (probed != NULL) cwl_describe(c, probed);
    return st;
}
