/*
 * Finding the session's compositor when WAYLAND_DISPLAY is not set (see cwl_discover in cwl.h).
 *
 * A hotkey tool, or a terminal started before the session exported WAYLAND_DISPLAY, runs
 * without it while a compositor of ours listens in the runtime directory. Only a socket that is
 * ours twice counts: the file is owned by our euid, and the process listening on it runs as our
 * euid (SO_PEERCRED gives the listener's credentials as they were at listen()). Another user's
 * socket, or one of ours that someone else's process listens on, is never taken: what we copy
 * may be a secret. Kept apart from cwl_connect.c, which connects to a named WAYLAND_DISPLAY.
 */
#define _GNU_SOURCE
#include "cwl_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* N of a name "wayland-N" (N decimal digits, at most 6), or -1 for any other name. */
static long socket_number(const char *name) {
    if (strncmp(name, "wayland-", 8) != 0) return -1;
    const char *digits = name + 8;
    size_t n = strspn(digits, "0123456789");
    if (n == 0 || n > 6 || digits[n] != '\0') return -1;
    return strtol(digits, NULL, 10);
}

/* Whether the process listening on the socket at `path` runs as our euid. Connects without
 * blocking (a full listen queue, a stale socket: no), sends nothing, and closes. */
static int listener_is_ours(const char *path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return 0;
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return 0;
    struct ucred cred;
    int ours = connect(fd, (const struct sockaddr *)&addr, sizeof addr) == 0 &&
               ud_peer_credentials(fd, &cred) == 0 && cred.uid == geteuid();
    close(fd);
    return ours;
}

/* Insert `path` numbered `number` into the found list, kept in ascending order of N. */
static void keep(cwl_found *out, long *numbers, long number, const char *path) {
    size_t at = out->count;
    while (at > 0 && numbers[at - 1] > number) at--;
    if (at >= CWL_FOUND_MAX) return;
    size_t last = out->count < CWL_FOUND_MAX ? out->count : CWL_FOUND_MAX - 1;
    for (size_t i = last; i > at; i--) {
        numbers[i] = numbers[i - 1];
        memcpy(out->paths[i], out->paths[i - 1], sizeof out->paths[i]);
    }
    numbers[at] = number;
    snprintf(out->paths[at], sizeof out->paths[at], "%s", path);
    if (out->count < CWL_FOUND_MAX) out->count++;
}

void cwl_discover(const char *runtime_dir, cwl_found *out) {
    memset(out, 0, sizeof *out);
    char fallback[64];
    if (runtime_dir == NULL || *runtime_dir == '\0') runtime_dir = getenv("XDG_RUNTIME_DIR");
    if (runtime_dir == NULL || *runtime_dir == '\0') {
        snprintf(fallback, sizeof fallback, "/run/user/%u", (unsigned)geteuid());
        runtime_dir = fallback;
    }
    DIR *dir = opendir(runtime_dir);
    if (dir == NULL) return;
    long numbers[CWL_FOUND_MAX];
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        long number = socket_number(entry->d_name);
        if (number < 0) continue;
        struct stat st;
        if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        out->seen++;
        char path[sizeof out->paths[0]];
        int n = snprintf(path, sizeof path, "%s/%s", runtime_dir, entry->d_name);
        if (n > 0 && (size_t)n < sizeof path && listener_is_ours(path)) keep(out, numbers, number, path);
    }
    closedir(dir);
}
