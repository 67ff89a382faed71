#ifndef USERDEBUG_CWL_KNOWN_H
#define USERDEBUG_CWL_KNOWN_H
/* The names of the globals a copy binds, kept from the last copy on the same compositor, so a
 * cold copy takes one round trip instead of two (see cwl_known.c). */
#include "cwl_owner.h"

#include <limits.h>

typedef struct cwl_known {
    char path[PATH_MAX + 48]; /* the file beside the compositor's socket */
    int located;              /* path and socket identity found */
    int valid;                /* the names below were read for this very socket */
    uint32_t seat_name, manager_name, manager_version;
    int is_ext;
    uint64_t socket_dev, socket_ino;
} cwl_known;

/* Find the file for this compositor socket and read the names it holds, if any (k->valid). */
void cwl_known_locate(cwl_known *k, const char *display, const char *runtime_dir);

/* Keep the names session `s` bound (after the usual path) for the next copy, unless unchanged. */
void cwl_known_keep(cwl_known *k, const cwl_session *s);

/* Whether the kept names serve a copy to `selection` (wlr before version 2 has no primary). */
int cwl_known_applies(const cwl_known *k, cwl_selection selection);

/*
 * Connect and send, with the kept names, everything a copy sends (get_registry, the binds, the
 * device, the source, its offers, set_selection, the sync) in one flush; w->via_known is set on
 * CWL_OK. A failure to connect is final, as the usual path would report it; the connection is
 * closed on any failure.
 */
cwl_status cwl_known_send(cwl_owner *w, const cwl_known *k, double deadline, cwl_error *err);

/*
 * After cwl_owner_confirm of a copy sent with the kept names (its status `st`): the final status
 * (a silent compositor is CWL_NO_DISPLAY; probed, if not NULL, filled from the globals that came
 * in the round trip), or *fall_back set when the names did not hold (a protocol error, other
 * names): the connection is then closed and the owner's transfers dropped; use the usual path.
 */
cwl_status cwl_known_settle(cwl_owner *w, const cwl_known *k, cwl_status st, cwl_probe_result *probed, int *fall_back,
                            cwl_error *err);

#endif
