#ifndef USERDEBUG_UD_RESIDENT_H
#define USERDEBUG_UD_RESIDENT_H
/*
 * The resident owner's local socket, for every backend: a serving process listens on an
 * abstract Unix socket name, and a copy that finds it there hands it its content instead of
 * connecting to the display and forking. The backend makes the name (what it serves: user,
 * selection, display, executable) and the header (its options); the exchange is the same:
 *
 *     copy -> owner: header (fixed size), then header-announced bytes
 *     owner -> copy: reply (fixed size)
 *
 * Abstract names carry no permissions and are shared by the whole network namespace, so both
 * ends check the other (ud_peer_is_us): our effective uid and our mount namespace. A sandboxed
 * app (Flatpak, bubblewrap, a rootless container with the host's network) may run as our uid
 * without access to our files or our display; it must neither receive a payload (maybe a
 * secret) nor replace our content. Every socket is non-blocking and every step has a deadline.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a name: sun_path less the leading NUL of an abstract address. */
#define UD_RESIDENT_NAME_CAP (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

/* The abstract address (sun_path[0] NUL, no file to clean up) for `name`: 1, or 0 when the name
 * is empty or does not fit. */
int ud_abstract_address(const char *name, struct sockaddr_un *addr, socklen_t *addr_len);

/* The credentials of the process at the other end of the Unix socket `fd` (SO_PEERCRED: as they
 * were when it called listen() or connect()). Returns 0, or -1 with errno set. */
struct ucred;
int ud_peer_credentials(int fd, struct ucred *cred);

/* Is the peer of a connected Unix socket one of ours: our effective uid and our mount namespace?
 * 1 (with *peer_pid when not NULL), or 0; fails closed when /proc cannot tell, and for pid 0 (a
 * pid namespace we cannot see). */
int ud_peer_is_us(int fd, pid_t *peer_pid);

/* Read exactly len bytes from a non-blocking fd before the deadline: 1, or 0 on EOF, error or
 * timeout. */
int ud_read_exact(int fd, void *buffer, size_t len, double deadline);

/* Write exactly len bytes to a non-blocking socket before the deadline (no SIGPIPE): 1, or 0. */
int ud_write_exact(int fd, const void *buffer, size_t len, double deadline);

/* The copy's side: connect to the resident owner at `name` (non-blocking: a full backlog fails
 * at once, nothing listening is ECONNREFUSED), check it is one of ours, send the header and the
 * bytes, read the reply, all before `deadline`. 1 with *reply filled; 0 in every other case, and
 * the copy then owns the selection itself. */
int ud_resident_call(const char *name, const void *header, size_t header_len, const void *bytes, size_t len,
                     void *reply, size_t reply_len, double deadline);

/* The owner's side: bind and listen on `name`. The non-blocking, close-on-exec fd, or -1 with
 * *in_use set when another process still holds the name (the owner being replaced). */
int ud_resident_listen(const char *name, int backlog, int *in_use);

/* Accept one copy on `listener` and check it is one of ours: its non-blocking connection, or -1
 * (none waiting, or another user's: that connection is closed unread). */
int ud_resident_accept(int listener);

#ifdef __cplusplus
}
#endif
#endif
