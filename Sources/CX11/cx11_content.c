/* What the selection holds: refcounted content, the current and previous one, and its text facts. */
#define _GNU_SOURCE
#include "cx11_content.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

cx11_content *cx11_content_received(uint8_t *bytes, size_t len, cx11_kind kind, int is_secret) {
    cx11_content *ct = calloc(1, sizeof *ct);
    if (ct == NULL) return NULL;
    ct->refs = 1;
    ct->on_heap = 1;
    ct->bytes = ct->received = bytes;
    ct->len = len;
    ct->kind = kind;
    ct->is_secret = is_secret != 0;
    return ct;
}

void cx11_content_hold(cx11_content *ct) { ct->refs++; }

void cx11_content_release(cx11_content *ct) {
    if (ct == NULL || --ct->refs > 0) return;
    if (ct->is_secret && ct->latin1 != NULL) explicit_bzero(ct->latin1, ct->latin1_len);
    free(ct->latin1);
    ct->latin1 = NULL;
    if (ct->received != NULL) {
        if (ct->is_secret) explicit_bzero(ct->received, ct->len);
        free(ct->received);
    } else if (ct->len > 0) {
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t lo = ((uintptr_t)ct->bytes + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
        uintptr_t hi = ((uintptr_t)ct->bytes + ct->len) & ~((uintptr_t)page - 1);
        if (page > 0 && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
    if (ct->on_heap) free(ct);
}

/* Is X time a at or after b, across the 32-bit wrap? */
static int time_not_before(xcb_timestamp_t a, xcb_timestamp_t b) { return (int32_t)(a - b) >= 0; }

void cx11_holding_take(cx11_holding *h, cx11_content *ct, xcb_timestamp_t acquired, double now) {
    cx11_content_release(h->previous.content);
    h->previous = h->current;
    h->previous_until = now + 1.0;
    h->current = (cx11_source){.content = ct, .acquired = acquired};
}

cx11_source cx11_holding_answering(const cx11_holding *h, xcb_timestamp_t time) {
    if (time == XCB_CURRENT_TIME || time_not_before(time, h->current.acquired)) return h->current;
    /* Asked before our last re-take: the content we owned then answers it. */
    if (h->previous.content != NULL && time_not_before(time, h->previous.acquired)) return h->previous;
    return (cx11_source){.content = NULL, .acquired = 0};
}

double cx11_holding_expire(cx11_holding *h, double now) {
    if (h->previous.content != NULL && now >= h->previous_until) {
        cx11_content_release(h->previous.content);
        h->previous = (cx11_source){.content = NULL, .acquired = 0};
    }
    return h->previous.content != NULL ? h->previous_until : 0;
}

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
