#ifndef USERDEBUG_CX11_KEYS_H
#define USERDEBUG_CX11_KEYS_H
/*
 * cx11_keys: global hotkeys over the raw X protocol (no Xlib): one connection that grabs key
 * combinations on the root window and reads their presses. For a long-lived caller (the daemon).
 *
 * Keysym to keycodes comes from GetKeyboardMapping; which ModN is Alt, Super, Hyper, NumLock and
 * ScrollLock from GetModifierMapping (Lock is CapsLock). A combination is grabbed once for every
 * combination of CapsLock, NumLock and ScrollLock, so it works with those on. Errors follow cx11.h.
 */
#include "cx11.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The modifiers a hotkey names; the same bits as Swift's Hotkey.Modifiers. */
enum {
    CX11_MOD_SHIFT = 1,
    CX11_MOD_CONTROL = 2,
    CX11_MOD_ALT = 4,
    CX11_MOD_SUPER = 8,
    CX11_MOD_HYPER = 16,
};

/* A connection that grabs keys (opaque). */
typedef struct cx11_keys cx11_keys;

/* One key combination resolved against the keyboard's current maps. */
typedef struct cx11_grab {
    uint8_t keycodes[8]; /* every keycode that carries the keysym (in any column) */
    uint32_t count;
    uint16_t mask;       /* the X modifier mask (Shift, Control, Mod1..Mod5) */
} cx11_grab;

/* What cx11_keys_next found. */
typedef enum cx11_key_kind {
    CX11_KEY_NONE = 0,    /* nothing queued */
    CX11_KEY_PRESS = 1,   /* a grabbed key went down: keycode and mask (locks removed); the
                             autorepeat of a key held down is not reported */
    CX11_KEY_MAPPING = 2, /* the keyboard or modifier map changed: the maps are read again; the
                             grabs stay as they were: resolve again, grab again if they moved */
} cx11_key_kind;

typedef struct cx11_key_event {
    cx11_key_kind kind;
    uint8_t keycode;
    uint16_t mask;
    uint32_t time; /* a press: its server time (what a copy it causes may take the selection with) */
} cx11_key_event;

/* Connect (within timeout seconds) and read the keyboard and modifier maps. display NULL or "":
 * $DISPLAY; authority NULL: $XAUTHORITY, else ~/.Xauthority. *out: release with cx11_keys_close. */
cx11_status cx11_keys_open(const char *display, const char *authority, double timeout, cx11_keys **out,
                           cx11_error *err);

/* Disconnect and free (NULL is fine). */
void cx11_keys_close(cx11_keys *k);

/* The connection's descriptor, to poll for readability beside other descriptors. */
int cx11_keys_fd(const cx11_keys *k);

/* Resolve keysym and CX11_MOD_* bits: CX11_UNSUPPORTED naming what is missing when no key
 * carries the keysym or a modifier is on no ModN. */
cx11_status cx11_keys_resolve(const cx11_keys *k, uint32_t keysym, unsigned mods, cx11_grab *g, cx11_error *err);

/* GrabKey (asynchronous, on the root window) for each keycode of g with each lock combination,
 * and learn within timeout seconds whether the server refused: CX11_NOT_OWNER when another
 * client holds one of them (BadAccess; this combination's other grabs are released again),
 * CX11_NO_DISPLAY when the connection is gone, CX11_TIMED_OUT. */
cx11_status cx11_keys_grab(cx11_keys *k, const cx11_grab *g, double timeout, cx11_error *err);

/* Release every grab of this connection. */
void cx11_keys_ungrab_all(cx11_keys *k);

/* The next key event without blocking (ev->kind CX11_KEY_NONE when none is queued). Other events
 * are dropped. CX11_NO_DISPLAY when the X server went away. */
cx11_status cx11_keys_next(cx11_keys *k, cx11_key_event *ev, cx11_error *err);

#ifdef __cplusplus
}
#endif
#endif
