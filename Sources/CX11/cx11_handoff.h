#ifndef USERDEBUG_CX11_HANDOFF_H
#define USERDEBUG_CX11_HANDOFF_H
/* The clipboard-manager hand-off (cx11_handoff.c): asking the owner of CLIPBOARD_MANAGER to
 * SAVE_TARGETS, so the content outlives us. */
#include "cx11_content.h"

typedef struct cx11_handoff {
    int pending;       /* waiting for the clipboard manager's SAVE_TARGETS answer */
    int needs_time;    /* SAVE_TARGETS waits for the server time of our property change */
    double deadline;   /* the bound on that wait */
    double timeout;    /* the bound for the current copy's hand-off */
} cx11_handoff;

/*
 * Ask the clipboard manager to save ct, if there is one and ct may be handed to it (one round
 * trip, bounded by `deadline`, to find the manager); returns whether it was asked. The caller
 * makes sure we still own the selection. The answer (cx11_handoff_answered) or the bound
 * (cx11_handoff_expired) ends the hand-off.
 */
int cx11_handoff_ask(cx11_handoff *h, const cx11_link *x, cx11_content *ct, double deadline);

/* A PropertyNotify: when it is the change that gives SAVE_TARGETS its time, send SAVE_TARGETS.
 * Returns whether the event was that. */
int cx11_handoff_property(cx11_handoff *h, const cx11_link *x, const xcb_property_notify_event_t *pn);

/* A SelectionNotify: when it is the manager's answer, the hand-off ends and *saved says whether
 * the manager saved the content (it names our property). Returns whether the event was that. */
int cx11_handoff_answered(cx11_handoff *h, const cx11_link *x, const xcb_selection_notify_event_t *sn, int *saved);

/* Has a pending hand-off run past its bound? It then ends, unsaved. Otherwise *next is its
 * deadline (0: none pending). */
int cx11_handoff_expired(cx11_handoff *h, double now, double *next);

#endif
