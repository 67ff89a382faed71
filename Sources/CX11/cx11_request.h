#ifndef USERDEBUG_CX11_REQUEST_H
#define USERDEBUG_CX11_REQUEST_H
/* Conversions (cx11_targets.c) and answering a SelectionRequest (cx11_request.c). */
#include "cx11_content.h"
#include "cx11_transfer.h"

/* The answer to one target: property type, format and bytes. */
typedef struct cx11_conversion {
    xcb_atom_t type;
    uint8_t format;       /* 8 or 32 */
    const void *data;
    size_t len;           /* in bytes */
    uint32_t scratch[24]; /* for TARGETS and TIMESTAMP */
} cx11_conversion;

/* Fill cv for target from src (content non-NULL); 0 when the target is refused. cv->data may
 * point into cv->scratch or into the content, which must outlive its use. */
int cx11_convert(const cx11_link *x, cx11_source src, xcb_atom_t target, cx11_conversion *cv);

/* The data targets of ct (no TARGETS/TIMESTAMP/MULTIPLE); out holds at least 8. Returns the count. */
size_t cx11_data_targets(const cx11_link *x, cx11_content *ct, xcb_atom_t *out);

/* Whether ct may be handed to a clipboard manager: CLIPBOARD only, never a secret. */
int cx11_can_hand_off(const cx11_link *x, const cx11_content *ct);

/*
 * Answer req from src: write the target (or each pair of a MULTIPLE) to the requestor's property,
 * by INCR through ts when it is larger than one request, then send the SelectionNotify that names
 * the property, or None when refused. src.content NULL refuses the request (it is not for us, or
 * stamped before we owned the selection).
 */
void cx11_answer_request(const cx11_link *x, cx11_transfers *ts, const xcb_selection_request_event_t *req,
                         cx11_source src);

#endif
