/* The clear report (ud_clearreport.h). */
#define _GNU_SOURCE
#include "ud_clearreport.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

uint64_t ud_clear_hash(const uint8_t *bytes, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= bytes[i];
        h *= 1099511628211ULL;
    }
    return h;
}

int ud_clear_is_token(const uint8_t *bytes, size_t n, uint64_t hash, size_t len) {
    return n == len && n > 0 && ud_clear_hash(bytes, n) == hash;
}

void ud_clear_report_restored(const char *path, const char *selection, const char *who) {
    char line[256], tmp[PATH_MAX + 24];
    if (path == NULL || path[0] == 0) return;
    int n = snprintf(line, sizeof line, "restored\t%lld\t%s\t%s\n", (long long)time(NULL), selection, who);
    if (n <= 0 || (size_t)n >= sizeof line) return;
    for (int i = 0; i < n - 1; i++) /* a process name is the program's to choose */
        if ((unsigned char)line[i] < 0x20 && line[i] != '\t') line[i] = '?';
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid()) >= sizeof tmp) return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    int whole = write(fd, line, (size_t)n) == n;
    if (close(fd) != 0) whole = 0;
    if (!whole || rename(tmp, path) != 0) unlink(tmp);
}

void ud_clear_report_held(const char *path) {
    if (path != NULL && path[0] != 0) unlink(path);
}
