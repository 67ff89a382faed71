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
    CWL_CONTENT_EMPTY = 2,       /* the marker type */
} cwl_content;

/* One `send`: its descriptor (non-blocking), how far it got, and since when it takes nothing. */
typedef struct cwl_transfer {
    int fd;
    cwl_content content;
    size_t offset;
    double idle_since;
} cwl_transfer;

typedef struct cwl_owner {
    cwl_session s;
    cwl_own_options o;
    const uint8_t *bytes;
    size_t len;
    uint32_t source;
    int cancelled;
    char marker[96];
    cwl_transfer transfers[CWL_MAX_TRANSFERS];
    size_t transfer_count;
} cwl_owner;

/* Handle an event of the source (send, cancelled), the device or an offer. */
cwl_status cwl_owner_event(void *owner, cwl_conn *c, cwl_msg *m, cwl_error *err);

/* Close every transfer's descriptor (the caller's copies after the fork). */
void cwl_owner_drop_transfers(cwl_owner *w);

/* The serving process's loop (see cwl_own in cwl.h); ends with _exit. */
__attribute__((noreturn)) void cwl_owner_serve(cwl_owner *w, int signal_fd);

#endif
