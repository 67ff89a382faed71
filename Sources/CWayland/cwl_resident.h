#ifndef USERDEBUG_CWL_RESIDENT_H
#define USERDEBUG_CWL_RESIDENT_H
/*
 * The resident owner on Wayland: a serving process that takes the next copy's content over a
 * local socket (as CX11's resident owner does on X11; see cwl_resident.c).
 */
#include "cwl_internal.h"
#include "ud_resident.h"

/* Bumped whenever the exchange below changes. */
#define CWL_RESIDENT_VERSION 1
/* The largest payload handed over; a larger copy starts a serving process of its own. */
#define CWL_RESIDENT_MAX_BYTES ((size_t)4 << 20)
#define CWL_RESIDENT_MAGIC 0x4c575755u /* "UWWL" */

/* What a copy sends before its bytes (both ends are the same executable on the same host). */
typedef struct cwl_hand_header {
    uint32_t magic;
    uint32_t kind, offer_text, is_secret;
    double transfer_timeout, clear_after, lifetime;
    uint64_t len;
} cwl_hand_header;

/* The answer: status CWL_OK with the serving pid, or a refusal. */
typedef struct cwl_hand_reply {
    uint32_t status;
    int32_t pid;
} cwl_hand_reply;

/*
 * The abstract socket name (without its leading NUL) of our resident owner of `selection` on the
 * compositor at `display`/`runtime_dir` (resolved as cwl_probe says), for our euid and this
 * executable: 0 with the name in out, or -1 (unset display, unstattable socket or executable).
 */
int cwl_resident_name(const char *display, const char *runtime_dir, cwl_selection selection, char *out,
                      size_t cap);

/*
 * Hand `bytes` to a resident owner, if one listens: CWL_OK with *owner_pid once it confirmed the
 * selection; anything else (no listener, another uid, a refusal, the deadline) means "own as
 * usual", with nothing changed.
 */
cwl_status cwl_resident_hand(const cwl_own_options *o, const uint8_t *bytes, size_t len, pid_t *owner_pid);

#endif
