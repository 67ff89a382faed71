/* Which targets a payload is offered as, and the bytes for each. */
#define _GNU_SOURCE
#include "cx11_request.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Is ct offered as text: any text kind, or BINARY that is valid UTF-8? */
static int offers_text(cx11_content *ct) {
    if (ct->kind != CX11_KIND_BINARY) return 1;
    if (!ct->scanned) cx11_scan_text(ct);
    return ct->is_utf8;
}

/* Is ct offered as Latin-1 (STRING, TEXT): text whose every character is representable? */
static int offers_latin1(cx11_content *ct) {
    if (!offers_text(ct)) return 0;
    if (!ct->scanned) cx11_scan_text(ct);
    return ct->is_latin1;
}

/* Latin-1 bytes of a representable payload; ASCII needs no copy. NULL when out of memory. */
static const uint8_t *latin1_bytes(cx11_content *ct, size_t *len) {
    if (ct->is_ascii) {
        *len = ct->len;
        return ct->bytes;
    }
    if (ct->latin1 == NULL) {
        const uint8_t *p = ct->bytes;
        size_t n = ct->len, o = 0;
        ct->latin1 = malloc(n > 0 ? n : 1);
        if (ct->latin1 == NULL) return NULL;
        for (size_t i = 0; i < n;) {
            if (p[i] < 0x80) ct->latin1[o++] = p[i++];
            else { ct->latin1[o++] = (uint8_t)(((p[i] & 0x1F) << 6) | (p[i + 1] & 0x3F)); i += 2; }
        }
        ct->latin1_len = o;
    }
    *len = ct->latin1_len;
    return ct->latin1;
}

int cx11_can_hand_off(const cx11_link *x, const cx11_content *ct) {
    return x->selection == x->atoms[CX11_A_CLIPBOARD] && !ct->is_secret;
}

size_t cx11_data_targets(const cx11_link *x, cx11_content *ct, xcb_atom_t *out) {
    const xcb_atom_t *a = x->atoms;
    size_t n = 0;
    if (offers_text(ct)) {
        out[n++] = a[CX11_A_UTF8_STRING];
        out[n++] = a[CX11_A_TEXT_PLAIN_UTF8];
        if (offers_latin1(ct)) {
            out[n++] = XCB_ATOM_STRING;
            out[n++] = a[CX11_A_TEXT];
        }
    }
    if (ct->kind == CX11_KIND_JSON) out[n++] = a[CX11_A_JSON];
    if (ct->kind == CX11_KIND_BINARY) out[n++] = a[CX11_A_OCTET_STREAM];
    if (ct->is_secret) {
        out[n++] = a[CX11_A_KDE_HINT];
        out[n++] = a[CX11_A_COPYQ_HIDDEN];
    }
    return n;
}

/* The markers that make clipboard managers skip a secret: KDE's (Klipper; CopyQ 8 and later) is
 * "secret", CopyQ's own (the only one CopyQ 6.4, Debian 12's, honours) is "1". */
static int convert_secret_hint(const xcb_atom_t *a, xcb_atom_t target, cx11_conversion *cv) {
    static const char secret[] = "secret", hidden[] = "1";
    if (target == a[CX11_A_KDE_HINT]) {
        cv->data = (const uint8_t *)secret;
        cv->len = sizeof secret - 1;
        return 1;
    }
    if (target == a[CX11_A_COPYQ_HIDDEN]) {
        cv->data = (const uint8_t *)hidden;
        cv->len = sizeof hidden - 1;
        return 1;
    }
    return 0;
}

/* The 32-bit answers: TARGETS (every target we offer) and TIMESTAMP (when we took the selection). */
static int convert_meta(const cx11_link *x, cx11_source src, xcb_atom_t target, cx11_conversion *cv) {
    const xcb_atom_t *a = x->atoms;
    size_t n = 0;
    if (target == a[CX11_A_TARGETS]) {
        cv->scratch[n++] = a[CX11_A_TARGETS];
        cv->scratch[n++] = a[CX11_A_TIMESTAMP];
        cv->scratch[n++] = a[CX11_A_MULTIPLE];
        if (cx11_can_hand_off(x, src.content)) cv->scratch[n++] = a[CX11_A_SAVE_TARGETS];
        n += cx11_data_targets(x, src.content, cv->scratch + n);
        cv->type = XCB_ATOM_ATOM;
    } else {
        cv->scratch[n++] = src.acquired;
        cv->type = XCB_ATOM_INTEGER;
    }
    cv->format = 32;
    cv->data = cv->scratch;
    cv->len = n * 4;
    return 1;
}

int cx11_convert(const cx11_link *x, cx11_source src, xcb_atom_t target, cx11_conversion *cv) {
    const xcb_atom_t *a = x->atoms;
    cx11_content *ct = src.content;
    cv->type = target;
    cv->format = 8;
    cv->data = ct->bytes;
    cv->len = ct->len;
    if (target == a[CX11_A_TARGETS] || target == a[CX11_A_TIMESTAMP]) return convert_meta(x, src, target, cv);
    if (target == a[CX11_A_UTF8_STRING] || target == a[CX11_A_TEXT_PLAIN_UTF8]) return offers_text(ct);
    if (target == XCB_ATOM_STRING || target == a[CX11_A_TEXT]) {
        if (!offers_latin1(ct)) return 0;
        cv->type = XCB_ATOM_STRING;
        cv->data = latin1_bytes(ct, &cv->len);
        return cv->data != NULL;
    }
    if (target == a[CX11_A_JSON]) return ct->kind == CX11_KIND_JSON;
    if (target == a[CX11_A_OCTET_STREAM]) return ct->kind == CX11_KIND_BINARY;
    if (ct->is_secret) return convert_secret_hint(a, target, cv);
    return 0;
}
