#ifndef USERDEBUG_UD_OWNER_H
#define USERDEBUG_UD_OWNER_H
/*
 * ud_owner: the rules for a detached owner process, written once for every clipboard backend
 * (X11 today, Wayland later). A backend takes the selection in the caller, forks a process that
 * serves it, and returns; the serving process outlives the caller and must hold nothing of it.
 * No display protocol in here, no globals, no output.
 *
 * The rules, and why:
 * - Fork before any thread or Dispatch use: the caller must be single-threaded at the fork. A
 *   fork copies only the calling thread; a lock another thread held (malloc's, Dispatch's, the
 *   Swift runtime's) stays locked forever in the child.
 * - The child is C only and ends with _exit: the Swift runtime and Foundation are not safe to
 *   enter after a fork, and exit() would run the caller's atexit handlers and flush its stdio
 *   buffers a second time.
 * - Flush stdout (every buffered stream) before the fork: the child inherits the buffers; it never
 *   flushes them (_exit), but flushing first keeps the order of what the caller printed.
 * - Fork once (UD_OWNER_FORK_ONCE) only for a caller about to exit: the child is reparented when
 *   the caller exits, so no zombie is left, and the hotkey path saves a fork and a pipe round trip.
 *   The caller's SIGHUP is set to ignored before the fork (see ud_owner_fork).
 * - Fork twice (UD_OWNER_FORK_TWICE) for a long-lived caller: the first child starts a new
 *   session, forks the server, reports its pid over a pipe and exits at once, so the caller reaps
 *   it right away and the server is reparented (to init or a subreaper) rather than left as the
 *   caller's zombie.
 * - Detach in the serving process (ud_owner_detach): no terminal, no inherited descriptors, no
 *   stdio, no working directory, no inherited signal handler (the caller's runtime caught
 *   SIGSEGV or SIGQUIT for itself), and SIGTERM/SIGINT read from a signalfd (no handler, no
 *   global).
 *
 * Errors: every function returns a ud_owner_status; when it reports a failure, *err_no holds the
 * errno of the system call that failed.
 */
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of a call. */
typedef enum ud_owner_status {
    UD_OWNER_OK = 0,                 /* done; after a fork: this is the caller */
    UD_OWNER_IN_SERVER = 1,          /* after a fork: this is the new serving process */
    UD_OWNER_PIPE_FAILED = 2,        /* fork twice: the pipe for the server's pid */
    UD_OWNER_FORK_FAILED = 3,        /* the caller's fork */
    UD_OWNER_SERVER_FORK_FAILED = 4, /* fork twice: the first child's fork, or its report was lost
                                        (*err_no EPIPE then) */
    UD_OWNER_SIGNALFD_FAILED = 5,    /* detach: detached, but no signalfd (signal_fd -1) */
} ud_owner_status;

/* How the serving process is forked; see the rules above. */
typedef enum ud_owner_fork_mode {
    UD_OWNER_FORK_ONCE = 0,  /* for a caller about to exit */
    UD_OWNER_FORK_TWICE = 1, /* for a long-lived caller: it keeps no zombie */
} ud_owner_fork_mode;

/*
 * ud_owner_fork: fork the serving process; it starts a new session (setsid), so a terminal that
 * closes no longer reaches it through the caller's process group.
 * With UD_OWNER_FORK_ONCE the caller's SIGHUP disposition is set to ignored first (a terminal
 * closing before the child's setsid() must not kill it; see fork_once).
 * With UD_OWNER_FORK_TWICE the caller waits for the first child (it exits at once) and reads the
 * server's pid from it; no disposition of the caller's changes.
 * Expects a single-threaded caller with flushed stdio (see the rules above); err_no non-NULL.
 * Returns, in the caller, UD_OWNER_OK with *server_pid set, or UD_OWNER_PIPE_FAILED,
 * UD_OWNER_FORK_FAILED or UD_OWNER_SERVER_FORK_FAILED with *err_no (no serving process then);
 * in the serving process, UD_OWNER_IN_SERVER (C only from there on, ending with _exit).
 */
ud_owner_status ud_owner_fork(ud_owner_fork_mode mode, pid_t *server_pid, int *err_no);

/*
 * ud_owner_detach: make the calling (serving) process hold nothing of the caller's. Every signal
 * the caller caught back to its default action; SIGHUP and SIGPIPE ignored; SIGTERM and SIGINT
 * blocked and every other signal unblocked (also whatever the forking thread had blocked); stdin,
 * stdout and stderr on /dev/null (except a descriptor to keep); every other inherited descriptor
 * closed except the `keep_count` ones in `keep`; cwd "/" (only a mount point would stay busy
 * otherwise; a failure is ignored); its name in `ps` "userdebug-owner" and its command line
 * "userdebug clipboard owner", not the forking command's.
 * Each step is best effort: none of them failing leaves the process unusable.
 * Returns UD_OWNER_OK with *signal_fd a non-blocking, close-on-exec signalfd that reads SIGTERM
 * and SIGINT, or UD_OWNER_SIGNALFD_FAILED with *signal_fd -1 and *err_no (detached all the same;
 * the signals then stay blocked and pending). keep: any order, may be NULL when keep_count is 0.
 */
ud_owner_status ud_owner_detach(const int *keep, size_t keep_count, int *signal_fd, int *err_no);

#ifdef __cplusplus
}
#endif
#endif
