#ifndef USERDEBUG_CX11_LISTENER_H
#define USERDEBUG_CX11_LISTENER_H
/* The resident owner's serving side (cx11_listener.c): listening for the next copy and receiving
 * its content. The copy's side and the socket's name are in cx11_resident.c. */
#include "cx11_content.h"

typedef struct cx11_listener {
    const cx11_own_options *options; /* the display and selection the socket is named after */
    int fd;                 /* takes the next copy's content; -1 when not listening */
    double retry_at;        /* the name was still held by the previous owner: try again then (0: never) */
    double give_up;         /* stop retrying then */
} cx11_listener;

/* A copy's content, received and waiting for our answer. */
typedef struct cx11_offer {
    int fd;                 /* the copy's connection */
    double deadline;        /* answer before this: the earlier of our bound and the copy's own */
    cx11_content *content;  /* NULL once adopted */
    cx11_offer_header terms;
} cx11_offer;

/* Not listening (fd -1); cx11_listener_start begins. */
void cx11_listener_init(cx11_listener *l, const cx11_own_options *options);

/* Listen for the next copy's content; while the previous owner still holds the name, retry for
 * up to 2 s from `now`. */
void cx11_listener_start(cx11_listener *l, double now);

/* Stop listening and retrying: the next copy must own the selection itself. */
void cx11_listener_stop(cx11_listener *l);

/* Is it listening, or about to retry? */
int cx11_listener_active(const cx11_listener *l);

/* Retry listening when its time has come. Returns the next retry time (0: none). */
double cx11_listener_retry(cx11_listener *l, double now);

/* Accept one copy and read its offer (peer checked, header validated, bytes read, bounded by
 * 0.5 s and the copy's deadline). 1 with *o filled; 0 when there was none or it was invalid (its
 * connection is then closed). */
int cx11_offer_receive(cx11_listener *l, cx11_offer *o);

/* Is the copy still waiting for our answer (connected, before its deadline)? */
int cx11_offer_waits(const cx11_offer *o);

/* Adopt the offer's content: the reference passes to the caller. */
cx11_content *cx11_offer_adopt(cx11_offer *o);

/* Answer the copy (status, our pid, the time we took the selection with its content), close its
 * connection, and release the content unless it was adopted. */
void cx11_offer_answer(cx11_offer *o, cx11_status status, xcb_timestamp_t time);

#endif
