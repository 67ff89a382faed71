#ifndef USERDEBUG_CWL_OWNER_H
#define USERDEBUG_CWL_OWNER_H
/* The owner of a selection: its data source, its pending transfers, and the serving loop. */
#include "cwl_device.h"

/* Transfers served at once; a `send` beyond them is refused (its descriptor closed at once). */
#define CWL_MAX_TRANSFERS 64

/* What one transfer writes. */
typedef enum cwl_content {
    CWL_CONTENT_PAYLOAD = 0,
    CWL_CONTENT_SECRET_HINT = 1, /* "secret" */
    CWL_CONTENT_COPYQ_HIDDEN = 3, /* "1" */
} cwl_content;

/* A payload being served: the caller's bytes (not owned), or bytes handed over later (owned);
 * freed once it is neither the current content nor read by a transfer. */
typedef struct cwl_buffer {
    const uint8_t *data;
    size_t len;
    int owned;
    int refs;
} cwl_buffer;

/* One `send`: its descriptor (non-blocking), what it writes, how far it got, and since when it
 * takes nothing. */
typedef struct cwl_transfer {
    int fd;
    cwl_content content;
    cwl_buffer *buffer; /* the payload it writes (CWL_CONTENT_PAYLOAD), referenced */
    size_t offset;
    double idle_since;
} cwl_transfer;

typedef struct cwl_owner {
    cwl_session s;
    cwl_own_options o;
    cwl_buffer *content;
    uint32_t source;
    int cancelled;
    int leaving;
    uint32_t fence; /* the wl_callback of the sync sent just before set_selection */
    cwl_transfer transfers[CWL_MAX_TRANSFERS];
    size_t transfer_count;
    double lifetime_at, clear_at; /* ud_now() times; INFINITY: never */
    int listener;                 /* the resident owner's socket, or -1 */
    double listen_until;          /* retry binding it until then (an owner we replace may hold it) */
    int check_armed;              /* a secret was cleared: read the selection back before leaving */
    int watching;                 /* a secret's source was cancelled before its clear: wait for it */
    uint64_t check_hash;          /* the cleared token's hash and length (not its bytes) */
    size_t check_len;
} cwl_owner;

/* Create a source with the current content's types, make it the selection, and confirm it
 * (see cwl_own): CWL_OK, or CWL_NOT_OWNER and the other failures with err filled.
 * Confirmed means: in the round trip, after the done of a sync sent just before set_selection,
 * the device announced as the current selection an offer of exactly our types, and our source
 * was not cancelled. The fence tells our offer from the selection shown before (an earlier copy
 * of ours has the same types), with no type of our own in the list that every application sees. */
cwl_status cwl_owner_take(cwl_owner *w, double deadline, cwl_error *err);

/* Restart the lifetime and secret-clearing timers from now, by w->o. */
void cwl_owner_restart_timers(cwl_owner *w);

/* Drop a reference to `b` taken by a transfer; frees it when unreferenced and not current. */
void cwl_buffer_release(cwl_owner *w, cwl_buffer *b);

/* The read-back after a secret's clear (cwl_clearcheck.c): arm it as the clear begins (a no-op
 * without options.clear_report); run it once no transfer is left, before leaving (blocks up to
 * UD_CLEAR_CHECK_SECONDS and one paste's bounds). */
void cwl_clear_check_arm(cwl_owner *w);
void cwl_clear_check_run(cwl_owner *w);

/* Whether the selection holds the armed token now, offered without the secret markers (a keeper
 * that took our copy over at once, as clipman does, serves it so). Blocks for at most two pastes. */
int cwl_clear_check_token_shown(const cwl_owner *w);

/* The resident owner's socket (cwl_listener.c): bind and listen (w->listener stays -1 when the
 * name is taken), close, and take one copy handed over. */
void cwl_listener_open(cwl_owner *w);
void cwl_listener_close(cwl_owner *w);
void cwl_listener_accept(cwl_owner *w);

/* Handle an event of the source (send, cancelled), the device or an offer. */
cwl_status cwl_owner_event(void *owner, cwl_conn *c, cwl_msg *m, cwl_error *err);

/* Close every transfer's descriptor (the caller's copies after the fork). */
void cwl_owner_drop_transfers(cwl_owner *w);

/* The serving process's loop (see cwl_own in cwl.h); ends with _exit. */
__attribute__((noreturn)) void cwl_owner_serve(cwl_owner *w, int signal_fd);

#endif
