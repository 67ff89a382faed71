/*
 * Global hotkeys (cx11_keys.h): the keyboard and modifier maps, grabs on the root window for every
 * lock combination with BadAccess learned per combination, and the presses that arrive.
 */
#define _GNU_SOURCE
#include "cx11_internal.h"
#include "cx11_keys.h"

#include <xcb/xcbext.h> /* xcb_send_request: the two XKB requests below, without libxcb-xkb */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Keysyms of the modifier keys (keysymdef.h). */
enum {
    CX11_XK_NUM_LOCK = 0xff7f,
    CX11_XK_SCROLL_LOCK = 0xff14,
    CX11_XK_META_L = 0xffe7,
    CX11_XK_META_R = 0xffe8,
    CX11_XK_ALT_L = 0xffe9,
    CX11_XK_ALT_R = 0xffea,
    CX11_XK_SUPER_L = 0xffeb,
    CX11_XK_SUPER_R = 0xffec,
    CX11_XK_HYPER_L = 0xffed,
    CX11_XK_HYPER_R = 0xffee,
};

struct cx11_keys {
    xcb_connection_t *c;
    xcb_window_t root;
    uint8_t min_keycode;
    uint8_t per_keycode;    /* keysyms per keycode */
    uint32_t keycode_count;
    xcb_keysym_t *keysyms;  /* keycode_count * per_keycode */
    uint16_t alt, meta, super, hyper, num_lock, scroll_lock; /* X masks; 0 when on no modifier */
    int detectable;         /* XKB's DetectableAutoRepeat is on for this connection: see `is_repeat` */
    uint8_t held[32];       /* with it, the keycodes pressed and not yet released */
    uint8_t released_code;  /* without it, the last grabbed key released, and when: a press of the */
    uint32_t released_time; /* same key at the same time is the server's autorepeat */
};

/* Does `keycode` carry `keysym` in any column? */
static int carries(const cx11_keys *k, uint32_t keycode, uint32_t keysym) {
    if (keycode < k->min_keycode || keycode - k->min_keycode >= k->keycode_count) return 0;
    const xcb_keysym_t *row = k->keysyms + (size_t)(keycode - k->min_keycode) * k->per_keycode;
    for (uint32_t i = 0; i < k->per_keycode; i++)
        if (row[i] == keysym) return 1;
    return 0;
}

static cx11_status lost(cx11_wait why, const char *what, cx11_error *err) {
    if (why == CX11_WAIT_TIMED_OUT) return cx11_fail(err, CX11_TIMED_OUT, ETIMEDOUT, "the X server did not answer %s in time", what);
    if (why == CX11_WAIT_CLOSED) return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
    return cx11_fail(err, CX11_FAILED, 0, "X error while %s", what);
}

static cx11_status read_keyboard_map(cx11_keys *k, double deadline, cx11_error *err) {
    const xcb_setup_t *setup = xcb_get_setup(k->c);
    k->min_keycode = setup->min_keycode;
    uint8_t count = (uint8_t)(setup->max_keycode - setup->min_keycode + 1);
    xcb_get_keyboard_mapping_cookie_t ck = xcb_get_keyboard_mapping(k->c, setup->min_keycode, count);
    cx11_wait why;
    xcb_get_keyboard_mapping_reply_t *r = cx11_reply(k->c, ck.sequence, deadline, &why);
    if (r == NULL) return lost(why, "GetKeyboardMapping", err);
    int n = xcb_get_keyboard_mapping_keysyms_length(r);
    xcb_keysym_t *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
    if (copy == NULL) {
        free(r);
        return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory for the keyboard map");
    }
    memcpy(copy, xcb_get_keyboard_mapping_keysyms(r), (size_t)n * sizeof *copy);
    free(k->keysyms);
    k->keysyms = copy;
    k->per_keycode = r->keysyms_per_keycode;
    k->keycode_count = r->keysyms_per_keycode > 0 ? (uint32_t)n / r->keysyms_per_keycode : 0;
    free(r);
    return CX11_OK;
}

/* Which ModN holds a keysym of the pair: its mask, or 0. */
static uint16_t modifier_of(const cx11_keys *k, const xcb_keycode_t *codes, int per_mod, uint32_t a, uint32_t b) {
    for (int mod = 3; mod < 8; mod++) /* Mod1..Mod5; Shift, Lock and Control are fixed */
        for (int i = 0; i < per_mod; i++) {
            xcb_keycode_t code = codes[mod * per_mod + i];
            if (code != 0 && (carries(k, code, a) || carries(k, code, b))) return (uint16_t)(1u << mod);
        }
    return 0;
}

static cx11_status read_modifier_map(cx11_keys *k, double deadline, cx11_error *err) {
    xcb_get_modifier_mapping_cookie_t ck = xcb_get_modifier_mapping(k->c);
    cx11_wait why;
    xcb_get_modifier_mapping_reply_t *r = cx11_reply(k->c, ck.sequence, deadline, &why);
    if (r == NULL) return lost(why, "GetModifierMapping", err);
    const xcb_keycode_t *codes = xcb_get_modifier_mapping_keycodes(r);
    int per = r->keycodes_per_modifier;
    k->alt = modifier_of(k, codes, per, CX11_XK_ALT_L, CX11_XK_ALT_R);
    k->meta = modifier_of(k, codes, per, CX11_XK_META_L, CX11_XK_META_R);
    k->super = modifier_of(k, codes, per, CX11_XK_SUPER_L, CX11_XK_SUPER_R);
    k->hyper = modifier_of(k, codes, per, CX11_XK_HYPER_L, CX11_XK_HYPER_R);
    k->num_lock = modifier_of(k, codes, per, CX11_XK_NUM_LOCK, CX11_XK_NUM_LOCK);
    k->scroll_lock = modifier_of(k, codes, per, CX11_XK_SCROLL_LOCK, CX11_XK_SCROLL_LOCK);
    free(r);
    return CX11_OK;
}

/* A raw XKEYBOARD request (no libxcb-xkb): byte 0 the extension's opcode, byte 1 the XKB request,
 * then `body` (a multiple of 4 bytes, at most 28); its reply within the deadline. */
static void *xkb_request(cx11_keys *k, uint8_t opcode, uint8_t minor, const void *body, size_t bytes,
                         double deadline) {
    uint32_t request[8] = {0};
    ((uint8_t *)request)[1] = minor;
    memcpy(request + 1, body, bytes);
    struct iovec parts[3] = {{0}, {request, bytes + 4}, {NULL, 0}};
    xcb_protocol_request_t how = {.count = 2, .ext = NULL, .opcode = opcode, .isvoid = 0};
    unsigned int sequence = xcb_send_request(k->c, 0, parts + 1, &how);
    cx11_wait why;
    return cx11_reply(k->c, sequence, deadline, &why);
}

/* Asks the server to send a held key's autorepeat as presses without releases (XKB's per-client
 * DetectableAutoRepeat), so that a repeat is told from a new press by the release between them,
 * not by equal times: XTEST and fast typists press the same key again within one millisecond of
 * its release. Without XKB (or when the server declines) `detectable` stays 0 and the time rule
 * is used. UseExtension 1.0 (XKB request 0), then PerClientFlags (request 21) on the core keyboard
 * (device 0x100), changing and setting bit 0, DetectableAutoRepeat; its reply's `value` (bytes
 * 12-15) says whether it is on. Fields are in the client's byte order, as xcb sends them. */
static void detect_autorepeat(cx11_keys *k, double deadline) {
    xcb_query_extension_cookie_t ck = xcb_query_extension(k->c, 9, "XKEYBOARD");
    cx11_wait why;
    xcb_query_extension_reply_t *ext = cx11_reply(k->c, ck.sequence, deadline, &why);
    if (ext == NULL) return;
    uint8_t opcode = ext->present ? ext->major_opcode : 0;
    free(ext);
    if (opcode == 0) return;
    const uint16_t version[2] = {1, 0};
    uint8_t *used = xkb_request(k, opcode, 0, version, sizeof version, deadline);
    int supported = used != NULL && used[1] != 0;
    free(used);
    if (!supported) return;
    struct { uint16_t device, pad; uint32_t change, value, controls, auto_controls, auto_values; } flags = {
        .device = 0x100, .change = 1, .value = 1};
    uint8_t *set = xkb_request(k, opcode, 21, &flags, sizeof flags, deadline);
    uint32_t value = 0;
    if (set != NULL) memcpy(&value, set + 12, sizeof value);
    free(set);
    k->detectable = (value & 1u) != 0;
}

cx11_status cx11_keys_open(const char *display, const char *authority, double timeout, cx11_keys **out,
                           cx11_error *err) {
    *out = NULL;
    cx11_keys *k = calloc(1, sizeof *k);
    if (k == NULL) return cx11_fail(err, CX11_FAILED, ENOMEM, "out of memory");
    double deadline = ud_now() + timeout;
    int screen = 0;
    cx11_status st = cx11_connect(display, authority, deadline, &k->c, &screen, err);
    if (st != CX11_OK) {
        free(k);
        return st;
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(k->c));
    for (int i = 0; i < screen && it.rem > 0; i++) xcb_screen_next(&it);
    if (it.rem == 0) {
        st = cx11_fail(err, CX11_NO_DISPLAY, 0, "the display has no screen %d", screen);
    } else {
        k->root = it.data->root;
        st = read_keyboard_map(k, deadline, err);
        if (st == CX11_OK) st = read_modifier_map(k, deadline, err);
        if (st == CX11_OK) detect_autorepeat(k, deadline);
    }
    if (st != CX11_OK) {
        cx11_keys_close(k);
        return st;
    }
    *out = k;
    return CX11_OK;
}

void cx11_keys_close(cx11_keys *k) {
    if (k == NULL) return;
    if (k->c != NULL) xcb_disconnect(k->c);
    free(k->keysyms);
    free(k);
}

int cx11_keys_fd(const cx11_keys *k) { return xcb_get_file_descriptor(k->c); }

/* The X mask of one named modifier, or 0 with err filled when no ModN holds its keys. */
static uint16_t mask_of(const cx11_keys *k, unsigned mod, cx11_error *err) {
    switch (mod) {
    case CX11_MOD_SHIFT: return XCB_MOD_MASK_SHIFT;
    case CX11_MOD_CONTROL: return XCB_MOD_MASK_CONTROL;
    case CX11_MOD_ALT:
        if (k->alt | k->meta) return k->alt ? k->alt : k->meta;
        cx11_fail(err, CX11_UNSUPPORTED, 0, "no modifier holds Alt_L, Alt_R or Meta_L on this keyboard");
        return 0;
    case CX11_MOD_SUPER:
        if (k->super) return k->super;
        cx11_fail(err, CX11_UNSUPPORTED, 0, "no modifier holds Super_L or Super_R on this keyboard");
        return 0;
    default:
        if (k->hyper) return k->hyper;
        cx11_fail(err, CX11_UNSUPPORTED, 0, "no modifier holds Hyper_L or Hyper_R on this keyboard");
        return 0;
    }
}

cx11_status cx11_keys_resolve(const cx11_keys *k, uint32_t keysym, unsigned mods, cx11_grab *g, cx11_error *err) {
    memset(g, 0, sizeof *g);
    for (unsigned bit = CX11_MOD_SHIFT; bit <= CX11_MOD_HYPER; bit <<= 1) {
        if (!(mods & bit)) continue;
        uint16_t mask = mask_of(k, bit, err);
        if (mask == 0) return CX11_UNSUPPORTED;
        g->mask |= mask;
    }
    for (uint32_t i = 0; i < k->keycode_count && g->count < 8; i++)
        if (carries(k, k->min_keycode + i, keysym)) g->keycodes[g->count++] = (uint8_t)(k->min_keycode + i);
    if (g->count == 0) return cx11_fail(err, CX11_UNSUPPORTED, 0, "no key of this keyboard carries keysym 0x%x", keysym);
    return CX11_OK;
}

/* The lock masks (CapsLock, NumLock, ScrollLock), each once: their 2^n combinations are grabbed. */
static int lock_masks(const cx11_keys *k, uint16_t locks[3]) {
    int n = 0;
    locks[n++] = XCB_MOD_MASK_LOCK;
    if (k->num_lock) locks[n++] = k->num_lock;
    if (k->scroll_lock && k->scroll_lock != k->num_lock) locks[n++] = k->scroll_lock;
    return n;
}

/* Send GrabKey (or UngrabKey) for every keycode and lock combination; cookies, when given, get
 * the checked grabs' cookies (at most 64). Returns how many requests were sent. */
static int send_grabs(cx11_keys *k, const cx11_grab *g, int grab, xcb_void_cookie_t *cookies) {
    uint16_t locks[3];
    int n = lock_masks(k, locks), sent = 0;
    for (uint32_t i = 0; i < g->count; i++)
        for (unsigned combo = 0; combo < (1u << n); combo++) {
            uint16_t mask = g->mask;
            for (int b = 0; b < n; b++)
                if (combo & (1u << b)) mask |= locks[b];
            if (!grab) {
                xcb_ungrab_key(k->c, g->keycodes[i], k->root, mask);
                continue;
            }
            cookies[sent++] = xcb_grab_key_checked(k->c, 0, k->root, mask, g->keycodes[i], XCB_GRAB_MODE_ASYNC,
                                                   XCB_GRAB_MODE_ASYNC);
        }
    return sent;
}

cx11_status cx11_keys_grab(cx11_keys *k, const cx11_grab *g, double timeout, cx11_error *err) {
    xcb_void_cookie_t cookies[64];
    int sent = send_grabs(k, g, 1, cookies);
    /* A reply to a later request means every grab before it has been processed. */
    xcb_get_input_focus_cookie_t sync = xcb_get_input_focus(k->c);
    cx11_wait why;
    void *reply = cx11_reply(k->c, sync.sequence, ud_now() + timeout, &why);
    if (reply == NULL) return lost(why, "GrabKey", err);
    free(reply);
    int refused = 0;
    for (int i = 0; i < sent; i++) {
        xcb_generic_error_t *e = xcb_request_check(k->c, cookies[i]);
        if (e != NULL && e->error_code == XCB_ACCESS) refused = 1;
        free(e);
    }
    if (!refused) return CX11_OK;
    send_grabs(k, g, 0, NULL);
    xcb_flush(k->c);
    return cx11_fail(err, CX11_NOT_OWNER, 0, "another client has grabbed this key combination");
}

void cx11_keys_ungrab_all(cx11_keys *k) {
    xcb_ungrab_key(k->c, XCB_GRAB_ANY, k->root, XCB_MOD_MASK_ANY);
    xcb_flush(k->c);
}

/* The maps changed: read them again (bounded). The grabs stay: releasing them would lose a press
 * that arrives before they are made again (clients such as xdotool change the map while they type);
 * the caller resolves its keys again and changes only the grabs that moved. */
static cx11_status remap(cx11_keys *k, cx11_key_event *ev, cx11_error *err) {
    double deadline = ud_now() + 2.0;
    cx11_status st = read_keyboard_map(k, deadline, err);
    if (st == CX11_OK) st = read_modifier_map(k, deadline, err);
    if (st == CX11_TIMED_OUT) err->status = st = CX11_NO_DISPLAY; /* a server this slow is gone for us */
    if (st != CX11_OK) return st;
    ev->kind = CX11_KEY_MAPPING;
    return CX11_OK;
}

/* Notes a press or release and says whether a press is the server's autorepeat of a held key. */
static int is_repeat(cx11_keys *k, const xcb_key_press_event_t *key) {
    uint8_t type = key->response_type & 0x7f, bit = (uint8_t)(1u << (key->detail & 7));
    uint8_t *held = &k->held[key->detail >> 3];
    if (type == XCB_KEY_RELEASE) {
        *held &= (uint8_t)~bit;
        k->released_code = key->detail;
        k->released_time = key->time;
        return 0;
    }
    if (type != XCB_KEY_PRESS) return 0;
    if (!k->detectable) return key->detail == k->released_code && key->time == k->released_time;
    int repeat = (*held & bit) != 0;
    *held |= bit;
    return repeat;
}

cx11_status cx11_keys_next(cx11_keys *k, cx11_key_event *ev, cx11_error *err) {
    memset(ev, 0, sizeof *ev);
    xcb_flush(k->c);
    for (;;) {
        xcb_generic_event_t *e = xcb_poll_for_event(k->c);
        if (e == NULL) {
            if (xcb_connection_has_error(k->c)) return cx11_fail(err, CX11_NO_DISPLAY, 0, "the X server closed the connection");
            return CX11_OK;
        }
        uint8_t type = e->response_type & 0x7f;
        const xcb_key_press_event_t *key = (const xcb_key_press_event_t *)e; /* press and release alike */
        int repeat = (type == XCB_KEY_PRESS || type == XCB_KEY_RELEASE) && is_repeat(k, key);
        if (type == XCB_KEY_PRESS && !repeat) {
            const xcb_key_press_event_t *press = key;
            uint16_t ignored = (uint16_t)(XCB_MOD_MASK_LOCK | k->num_lock | k->scroll_lock);
            ev->kind = CX11_KEY_PRESS;
            ev->keycode = press->detail;
            ev->mask = (uint16_t)(press->state & 0xff & ~ignored);
            ev->time = press->time;
        }
        free(e);
        if (type == XCB_MAPPING_NOTIFY) return remap(k, ev, err);
        if (ev->kind != CX11_KEY_NONE) return CX11_OK;
    }
}
