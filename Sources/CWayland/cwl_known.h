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

/*
 * Own with the known names in one round trip (probed, if not NULL, filled from the globals that
 * came in it). *fall_back set: nothing stands (no names known, or they did not hold; the
 * connection is closed, the owner's transfers dropped): use the usual path. Clear: the result
 * is final, as cwl_session_open's and cwl_owner_take's would be (a silent compositor is
 * CWL_NO_DISPLAY); close the session after it as after them.
 */
cwl_status cwl_known_own(cwl_owner *w, const cwl_known *k, double deadline, cwl_probe_result *probed, int *fall_back,
                         cwl_error *err);

#endif
