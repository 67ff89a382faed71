/* Which targets a payload is offered as, and the bytes for each. */
#define _GNU_SOURCE
#include "cx11_serve.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One pass over the bytes, resumable: is it valid UTF-8, ASCII, and representable in Latin-1?
 * Stops after about max bytes at a character boundary; 1 once the payload is classified. */
int cx11_scan_text_step(cx11_content *ct, size_t max) {
    if (ct->scanned) return 1;
    const uint8_t *p = ct->bytes;
    size_t n = ct->len, i = ct->scan_pos;
    size_t stop = n - i > max ? i + max : n;
    int ascii = !ct->scan_non_ascii, utf8 = 1, latin1 = !ct->scan_non_latin1;
    while (i < stop) {
        /* ASCII runs eight bytes at a time: a 128 MiB payload is scanned at memory speed. */
        while (i + 8 <= stop) {
            uint64_t word;
            memcpy(&word, p + i, sizeof word);
            if (word & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= stop) break;
        uint8_t b = p[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        ascii = 0;
        uint32_t cp;
        size_t need;
        if (b >= 0xC2 && b <= 0xDF) { cp = b & 0x1F; need = 1; }
        else if (b >= 0xE0 && b <= 0xEF) { cp = b & 0x0F; need = 2; }
        else if (b >= 0xF0 && b <= 0xF4) { cp = b & 0x07; need = 3; }
        else { utf8 = 0; break; }
        if (i + need >= n) { utf8 = 0; break; } /* truncated sequence */
        for (size_t k = 1; k <= need; k++) {
            uint8_t c = p[i + k];
            if ((c & 0xC0) != 0x80) { utf8 = 0; break; }
            cp = (cp << 6) | (c & 0x3F);
        }
        if (!utf8) break;
        /* Overlong, surrogate and out-of-range forms. */
        if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) {
            utf8 = 0;
            break;
        }
        if (cp > 0xFF) latin1 = 0;
        i += need + 1;
    }
    ct->scan_pos = i;
    ct->scan_non_ascii = !ascii;
    ct->scan_non_latin1 = !latin1;
    if (utf8 && i < n) return 0;
    ct->scanned = 1;
    ct->is_utf8 = utf8;
    ct->is_ascii = ascii && utf8;
    ct->is_latin1 = utf8 && latin1;
    return 1;
}

void cx11_scan_text(cx11_content *ct) { (void)cx11_scan_text_step(ct, SIZE_MAX); }

static int offers_text(cx11_content *ct) {
    if (ct->kind != CX11_KIND_BINARY) return 1;
    if (!ct->scanned) cx11_scan_text(ct);
    return ct->is_utf8;
}

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

int cx11_can_hand_off(const cx11_server *sv) {
    return sv->selection == sv->atoms[CX11_A_CLIPBOARD] && !sv->content->is_secret;
}

size_t cx11_data_targets(cx11_server *sv, xcb_atom_t *out) {
    const xcb_atom_t *a = sv->atoms;
    cx11_kind kind = sv->content->kind;
    size_t n = 0;
    if (offers_text(sv->content)) {
        out[n++] = a[CX11_A_UTF8_STRING];
        out[n++] = a[CX11_A_TEXT_PLAIN_UTF8];
        if (offers_latin1(sv->content)) {
            out[n++] = XCB_ATOM_STRING;
            out[n++] = a[CX11_A_TEXT];
        }
    }
    if (kind == CX11_KIND_JSON) out[n++] = a[CX11_A_JSON];
    if (kind == CX11_KIND_BINARY) out[n++] = a[CX11_A_OCTET_STREAM];
    if (sv->content->is_secret) out[n++] = a[CX11_A_KDE_HINT];
    return n;
}

int cx11_convert(cx11_server *sv, xcb_atom_t target, cx11_conversion *cv) {
    const xcb_atom_t *a = sv->atoms;
    cx11_kind kind = sv->content->kind;
    cv->type = target;
    cv->format = 8;
    cv->data = sv->content->bytes;
    cv->len = sv->content->len;
    if (target == a[CX11_A_TARGETS]) {
        size_t n = 0;
        cv->scratch[n++] = a[CX11_A_TARGETS];
        cv->scratch[n++] = a[CX11_A_TIMESTAMP];
        cv->scratch[n++] = a[CX11_A_MULTIPLE];
        if (cx11_can_hand_off(sv)) cv->scratch[n++] = a[CX11_A_SAVE_TARGETS];
        n += cx11_data_targets(sv, cv->scratch + n);
        cv->type = XCB_ATOM_ATOM;
        cv->format = 32;
        cv->data = cv->scratch;
        cv->len = n * 4;
        return 1;
    }
    if (target == a[CX11_A_TIMESTAMP]) {
        cv->scratch[0] = sv->acquired;
        cv->type = XCB_ATOM_INTEGER;
        cv->format = 32;
        cv->data = cv->scratch;
        cv->len = 4;
        return 1;
    }
    if (target == a[CX11_A_UTF8_STRING] || target == a[CX11_A_TEXT_PLAIN_UTF8]) return offers_text(sv->content);
    if (target == XCB_ATOM_STRING || target == a[CX11_A_TEXT]) {
        if (!offers_latin1(sv->content)) return 0;
        cv->type = XCB_ATOM_STRING;
        cv->data = latin1_bytes(sv->content, &cv->len);
        return cv->data != NULL;
    }
    if (target == a[CX11_A_JSON]) return kind == CX11_KIND_JSON;
    if (target == a[CX11_A_OCTET_STREAM]) return kind == CX11_KIND_BINARY;
    if (target == a[CX11_A_KDE_HINT] && sv->content->is_secret) {
        static const char secret[] = "secret";
        cv->data = (const uint8_t *)secret;
        cv->len = sizeof secret - 1;
        return 1;
    }
    return 0;
}
