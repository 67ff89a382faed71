/* Forking and detaching a serving process: the rules are in ud_owner.h. */
#define _GNU_SOURCE
#include "ud_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Fork once; the child starts its own session. See ud_owner_fork for the SIGHUP. */
static ud_owner_status fork_once(pid_t *server_pid, int *err_no) {
    /* The child runs in the caller's process group until its setsid(); a terminal closing in
     * that moment (script(1) ending, a terminal window closed right after a copy) sends the
     * group SIGHUP. Ignore it before the fork so the child is never born killable by it; the
     * caller is about to exit, so its own disposition no longer matters. */
    signal(SIGHUP, SIG_IGN);
    pid_t server = fork();
    if (server < 0) {
        *err_no = errno;
        return UD_OWNER_FORK_FAILED;
    }
    if (server == 0) {
        setsid();
        return UD_OWNER_IN_SERVER;
    }
    *server_pid = server;
    return UD_OWNER_OK;
}

/* The first child of fork_twice: a new session, the server forked into it, its pid (or -1 and
 * the fork's errno) written to `report`, then gone. Returns only in the server. */
static void first_child(int report[2]) {
    /* C only from here. */
    close(report[0]);
    setsid();
    pid_t server = fork();
    if (server == 0) {
        close(report[1]);
        return;
    }
    /* server < 0 is reported as pid -1 with errno. */
    int32_t message[2] = {(int32_t)server, server < 0 ? errno : 0};
    ssize_t ignored = write(report[1], message, sizeof message);
    (void)ignored;
    _exit(0);
}

/* Read the first child's report: 1 when complete. */
static int read_report(int fd, int32_t message[2]) {
    size_t got = 0, want = 2 * sizeof message[0];
    while (got < want) {
        ssize_t n = read(fd, (char *)message + got, want - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got == want;
}

/* Fork twice: the server is the first child's child, reparented once the first child exits. */
static ud_owner_status fork_twice(pid_t *server_pid, int *err_no) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        *err_no = errno;
        return UD_OWNER_PIPE_FAILED;
    }
    pid_t first = fork();
    if (first < 0) {
        *err_no = errno;
        close(report[0]);
        close(report[1]);
        return UD_OWNER_FORK_FAILED;
    }
    if (first == 0) {
        first_child(report);
        return UD_OWNER_IN_SERVER;
    }
    close(report[1]);
    int32_t message[2] = {-1, 0};
    int complete = read_report(report[0], message);
    close(report[0]);
    while (waitpid(first, NULL, 0) < 0 && errno == EINTR) {}
    if (!complete || message[0] <= 0) {
        *err_no = complete ? message[1] : EPIPE;
        return UD_OWNER_SERVER_FORK_FAILED;
    }
    *server_pid = (pid_t)message[0];
    return UD_OWNER_OK;
}

ud_owner_status ud_owner_fork(ud_owner_fork_mode mode, pid_t *server_pid, int *err_no) {
    *err_no = 0;
    return mode == UD_OWNER_FORK_ONCE ? fork_once(server_pid, err_no) : fork_twice(server_pid, err_no);
}

/* Is fd one of the `count` descriptors in keep? */
static int kept(int fd, const int *keep, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (keep[i] == fd) return 1;
    return 0;
}

/* Close [from, to] (to may be ~0U); close_range when the kernel has it, else one by one up to a
 * sane bound. */
static void close_span(unsigned from, unsigned to) {
    if (from > to || close_range(from, to, 0) == 0) return;
    long max = sysconf(_SC_OPEN_MAX);
    unsigned bound = max > 0 && max < 65536 ? (unsigned)max : 65536;
    for (unsigned fd = from; fd <= to && fd < bound; fd++) close((int)fd);
}

/* Close every descriptor from 3 up except the kept ones: the spans between them, in order. */
static void close_inherited(const int *keep, size_t count) {
    unsigned from = 3;
    for (;;) {
        /* The smallest kept descriptor at or above `from`. */
        long next = -1;
        for (size_t i = 0; i < count; i++)
            if (keep[i] >= 0 && (unsigned)keep[i] >= from && (next < 0 || keep[i] < next)) next = keep[i];
        if (next < 0) break;
        if ((unsigned)next > from) close_span(from, (unsigned)next - 1);
        from = (unsigned)next + 1;
    }
    close_span(from, ~0U);
}

/* Put back the default action of every signal the caller caught: its handlers (the Swift
 * runtime's crash and SIGQUIT backtracer, an app's own) belong to code the server never runs,
 * and one that returns would keep a crashed or SIGQUIT-ed server alive. Ignored ones stay so. */
static void default_caught_signals(void) {
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction current;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &current) != 0) continue;
        int caught = (current.sa_flags & SA_SIGINFO) ? current.sa_sigaction != NULL
                                                      : current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
        if (caught) signal(sig, SIG_DFL);
    }
}

/* What `ps` shows of the serving process: it would keep the argv of the command that forked it
 * (`userdebug menu --dmenu` long after the menu closed). The name (comm, 15 bytes) becomes
 * "userdebug-owner" and the argument area, argv[0] to the end of the last argument (the bytes
 * /proc/self/cmdline holds), is overwritten with OWNER_TITLE (OWNER_NAME where the area is
 * shorter) and NULs. The area is touched only when it starts at program_invocation_name (glibc's
 * argv[0]) and holds exactly what cmdline says, so a runtime that moved argv is left alone. */
#define OWNER_TITLE "userdebug clipboard owner"
#define OWNER_NAME "userdebug-owner"
static void retitle(void) {
    (void)prctl(PR_SET_NAME, OWNER_NAME, 0, 0, 0);
    char area[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, area, sizeof area);
    close(fd);
    char *start = program_invocation_name;
    if (n <= 1 || (size_t)n >= sizeof area || start == NULL || memcmp(start, area, (size_t)n) != 0) return;
    const char *title = sizeof OWNER_TITLE <= (size_t)n ? OWNER_TITLE : OWNER_NAME;
    size_t length = strlen(title) < (size_t)n - 1 ? strlen(title) : (size_t)n - 1;
    memset(start, 0, (size_t)n);
    memcpy(start, title, length);
}

ud_owner_status ud_owner_detach(const int *keep, size_t keep_count, int *signal_fd, int *err_no) {
    *err_no = 0;
    retitle();
    default_caught_signals();
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigprocmask(SIG_SETMASK, &signals, NULL); /* also unblocks whatever the forking thread blocked */
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        for (int fd = 0; fd <= 2; fd++)
            if (!kept(fd, keep, keep_count)) dup2(null_fd, fd);
    }
    close_inherited(keep, keep_count); /* /dev/null's own descriptor too, when above 2 */
    if (chdir("/") != 0) { /* keep going: only a mount point stays busy */ }
    *signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
    if (*signal_fd >= 0) return UD_OWNER_OK;
    *err_no = errno;
    return UD_OWNER_SIGNALFD_FAILED;
}
