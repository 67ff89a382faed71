#ifndef USERDEBUG_CWL_DEVICE_H
#define USERDEBUG_CWL_DEVICE_H
/*
 * A data-control device on the first seat, shared by the owner and the reader: binding the
 * manager (ext where offered, else wlr), the device, and the offers the compositor announces
 * on it (their types, and which one is the current selection).
 */
#include "cwl_internal.h"

/* Offers remembered at once; the compositor announces at most one per selection at a time. */
#define CWL_MAX_OFFERS 8
/* The most types our source offers (cwl_own in cwl.h lists them). */
#define CWL_MAX_OURS 12

typedef struct cwl_offer {
    uint32_t id;
    int late;        /* announced after the session's fence: caused by our set_selection or later */
    uint32_t type_count; /* every type it offered, counted */
    uint32_t ours_seen;  /* bit i: it offered the session's ours[i] */
    char *types;     /* with keep_types: every type offered, each followed by '\n' (malloc'd) */
    size_t types_len;
} cwl_offer;

typedef struct cwl_session {
    cwl_conn conn;
    cwl_selection selection;
    int is_ext;
    uint32_t manager_version; /* the version the manager was bound at */
    uint32_t seat, manager, device;
    /* Our own source's types (the owner), to recognise its offer without a type of our own
     * in the list: see cwl_owner_take. */
    const char *ours[CWL_MAX_OURS];
    uint32_t ours_count;
    int fenced;          /* the fence sync sent just before set_selection is done */
    int keep_types;      /* remember each offer's types (the reader) */
    int drop_offers;     /* destroy each offer as soon as it is announced (the serving owner) */
    cwl_offer offers[CWL_MAX_OFFERS];
    uint32_t current;    /* the offer of the selection, 0 when empty */
    int finished;        /* the device went away (its seat was removed) */
} cwl_session;

/*
 * Connect, bind the seat and the manager, and create the device (not waiting for its events):
 * CWL_UNSUPPORTED when the compositor offers no data-control, no seat, or (for CWL_PRIMARY) no
 * primary selection through it. `probed` (may be NULL) gets what the registry showed once it is
 * read (see cwl_own_options). On failure the connection is closed.
 */
cwl_status cwl_session_open(cwl_session *s, const char *display, const char *runtime_dir, cwl_selection selection,
                            double deadline, cwl_probe_result *probed, cwl_error *err);

/* Connect and queue get_registry only (cwl_open_begin); bind with cwl_session_bind. */
cwl_status cwl_session_begin(cwl_session *s, const char *display, const char *runtime_dir, cwl_selection selection,
                             double deadline, cwl_error *err);

/* Queue the binds of the seat and the manager (`is_ext`: ext, else wlr, at `version`) by their
 * global names, and the device's creation. */
cwl_status cwl_session_bind(cwl_session *s, uint32_t seat_name, uint32_t manager_name, int is_ext, uint32_t version,
                            cwl_error *err);

/* Close the connection and free the remembered types. */
void cwl_session_close(cwl_session *s);

/* Handle an event of the device or of an offer: 1 when it was one, 0 when it is another object's. */
int cwl_session_event(cwl_session *s, cwl_msg *m, cwl_error *err);

/* Destroy and forget every remembered offer. */
void cwl_session_forget_offers(cwl_session *s);

/* The remembered offer with `id`, or NULL. */
cwl_offer *cwl_session_offer(cwl_session *s, uint32_t id);

/* Whether offer `o` is our own source's: announced after the fence and offering exactly the
 * types in s->ours, no more, no fewer. */
int cwl_session_offer_is_ours(const cwl_session *s, const cwl_offer *o);

#endif
