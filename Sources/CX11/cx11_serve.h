#ifndef USERDEBUG_CX11_SERVE_H
#define USERDEBUG_CX11_SERVE_H
/*
 * The serving process, split by concern, each with its own state:
 *   cx11_serve.c     the loop: the connection, the poll, the timers, ownership and leaving
 *   cx11_content.c   what is served (refcounted content, current and previous) and its text facts
 *   cx11_targets.c   which targets a content is offered as, and the bytes for each
 *   cx11_request.c   answering a SelectionRequest (MULTIPLE included)
 *   cx11_transfer.c  INCR transfers
 *   cx11_handoff.c   the clipboard-manager hand-off (SAVE_TARGETS)
 *   cx11_listener.c  the resident owner's side: listening for and receiving the next copy
 * They share only this: how to reach the X server.
 */
#include "cx11_internal.h"

/* The serving process's X side, fixed from the fork on. */
typedef struct cx11_link {
    xcb_connection_t *c;
    const xcb_atom_t *atoms; /* cx11_session.atoms */
    xcb_window_t window;     /* ours: the selection owner */
    xcb_atom_t selection;    /* the one we serve */
} cx11_link;

#endif
