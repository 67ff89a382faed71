/*
 * After a secret's clear on a data-control compositor (sway, KWin): read the selection back for
 * UD_CLEAR_CHECK_SECONDS, as the X11 owner does (cx11_clearcheck.c), each look a paste of its own
 * through data-control, which needs no focus. The token's bytes, offered without the secret
 * markers, mean a program put it back (the compositor does not say which); other content, or
 * nothing until the end, mean the clear held. The report is written or removed accordingly
 * (ud_clearreport.h).
 */
#define _GNU_SOURCE
#include "cwl_internal.h"
#include "cwl_owner.h"
#include "ud_clearreport.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* How often the selection is read while the check runs. */
#define CWL_CLEAR_CHECK_EVERY 0.2

typedef enum { LOOK_NOTHING, LOOK_TOKEN, LOOK_OTHER, LOOK_LOST } look_result;

/* Whether a TARGETS answer (one type a line) lists the secret marker. */
static int lists_marker(const uint8_t *types, size_t n) {
    static const char marker[] = "x-kde-passwordManagerHint";
    size_t m = sizeof marker - 1;
    for (size_t at = 0; at + m <= n; at++)
        if ((at == 0 || types[at - 1] == '\n') && memcmp(types + at, marker, m) == 0 &&
            (at + m == n || types[at + m] == '\n'))
            return 1;
    return 0;
}

/* One paste of `target`: its bytes (free with cwl_free), or the status that stopped it. */
static cwl_status paste(const cwl_owner *w, const char *target, uint8_t **out, size_t *len) {
    cwl_error err;
    *out = NULL;
    *len = 0;
    return cwl_paste(w->o.display, w->o.runtime_dir, w->o.selection, target, 1.0, 2.0, -1, out, len, &err);
}

/* What the selection holds now, as far as the check goes. */
static look_result look(const cwl_owner *w) {
    uint8_t *bytes = NULL;
    size_t n = 0;
    cwl_status st = paste(w, "TARGETS", &bytes, &n);
    if (st == CWL_NO_OWNER) return LOOK_NOTHING;
    if (st != CWL_OK) return LOOK_LOST;
    int marked = lists_marker(bytes, n);
    cwl_free(bytes);
    if (marked) return LOOK_OTHER; /* a secret's copy (ours again, a password manager's) */
    st = paste(w, "UTF8_STRING", &bytes, &n);
    look_result got = LOOK_NOTHING; /* gone, or no text: nothing to compare */
    if (st == CWL_OK && n > 0) got = ud_clear_is_token(bytes, n, w->check_hash, w->check_len) ? LOOK_TOKEN : LOOK_OTHER;
    else if (st != CWL_OK && st != CWL_NO_OWNER && st != CWL_NO_CONTENT) got = LOOK_LOST;
    cwl_free(bytes);
    return got;
}

int cwl_clear_check_token_shown(const cwl_owner *w) { return w->check_armed && look(w) == LOOK_TOKEN; }

void cwl_clear_check_arm(cwl_owner *w) {
    if (w->o.clear_report == NULL || w->o.clear_report[0] == 0 || w->content == NULL) return;
    w->check_hash = ud_clear_hash(w->content->data, w->content->len);
    w->check_len = w->content->len;
    w->check_armed = 1;
}

void cwl_clear_check_run(cwl_owner *w) {
    if (!w->check_armed) return;
    w->check_armed = 0;
    /* Our connection goes first, and our source with it: KWin 5.27 keeps a source the selection
     * after its set_selection(null), and one we no longer serve would hang every reader (the
     * pastes below too) until the check ended. */
    cwl_close(&w->s.conn);
    double until = ud_now() + UD_CLEAR_CHECK_SECONDS;
    look_result got = LOOK_NOTHING;
    while (got == LOOK_NOTHING && ud_now() < until) {
        got = look(w);
        if (got == LOOK_NOTHING) poll(NULL, 0, ud_poll_ms(CWL_CLEAR_CHECK_EVERY));
    }
    const char *selection = w->o.selection == CWL_PRIMARY ? "PRIMARY" : "CLIPBOARD";
    if (got == LOOK_TOKEN)
        ud_clear_report_restored(w->o.clear_report, selection, "a Wayland client (the compositor does not say which)");
    else if (got != LOOK_LOST)
        ud_clear_report_held(w->o.clear_report);
}
