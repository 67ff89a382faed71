#ifndef USERDEBUG_UDPOPUP_H
#define USERDEBUG_UDPOPUP_H
/*
 * udpopup: the popup debug menu's window over Xlib, Xft and fontconfig.
 *
 * One udp_ui per popup: a display connection, one override-redirect window with a back buffer,
 * one font, a small table of colours, and a wake pipe that another thread writes to (udp_wake)
 * so the event loop redraws when a deferred menu entry has resolved. Only the thread that
 * opened the udp_ui calls into Xlib; udp_wake is the one call safe from any thread.
 *
 * No globals, no exit(), no output on stdout or stderr. Errors: a function that can fail
 * returns 0 on success and -1 on failure, and fills the caller's udp_error with the errno (0
 * when no system call failed) and a one-line message naming what failed.
 */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What went wrong. */
typedef struct udp_error {
    int sys_errno;      /* errno of the failing system call, or 0 */
    char message[240];  /* NUL-terminated, one line */
} udp_error;

/* A rectangle in root-window pixels. */
typedef struct udp_rect {
    int x, y, width, height;
} udp_rect;

/* The kinds of udp_event. */
typedef enum udp_event_kind {
    UDP_EVENT_TIMEOUT = 0, /* nothing arrived before the timeout */
    UDP_EVENT_KEY = 1,     /* a key press: keysym, state, text */
    UDP_EVENT_BUTTON = 2,  /* a button press: button, x, y, inside */
    UDP_EVENT_MOTION = 3,  /* the pointer moved: x, y, inside */
    UDP_EVENT_EXPOSE = 4,  /* the window needs its contents again */
    UDP_EVENT_WAKE = 5,    /* udp_wake was called */
    UDP_EVENT_LOST = 6,    /* the window was unmapped or lost the focus or grab: close */
    UDP_EVENT_ERROR = 7,   /* the connection broke (poll failed or the server went away) */
} udp_event_kind;

/* LOST: what was lost, in udp_event.button. */
#define UDP_LOST_UNMAPPED 1 /* another client unmapped or destroyed the window */
#define UDP_LOST_GRAB 2     /* the server ended our keyboard grab (FocusOut, mode NotifyUngrab) */

/* Number of colour slots (see udp_set_color). */
#define UDP_COLOR_SLOTS 8

/* One event, translated. Coordinates are relative to the window. */
typedef struct udp_event {
    udp_event_kind kind;
    unsigned long keysym;   /* KEY: the keysym (shift applied, as XLookupString gives it) */
    unsigned int state;     /* KEY, BUTTON: modifier mask (ShiftMask 1, ControlMask 4, Mod1Mask 8) */
    char text[32];          /* KEY: the character(s) typed, UTF-8, NUL-terminated ("" for none) */
    int button;             /* BUTTON: 1 left, 2 middle, 3 right, 4/5 wheel up/down; LOST: UDP_LOST_* */
    int x, y;               /* BUTTON, MOTION: pointer position in the window */
    int inside;             /* BUTTON, MOTION: nonzero when the pointer is inside the window */
} udp_event;

typedef struct udp_ui udp_ui;

/* Connects to `display_name` (NULL: $DISPLAY) and makes the wake pipe. NULL on failure. When the
 * connection breaks later, Xlib's exit(1) is replaced: udp_next_event returns UDP_EVENT_ERROR.
 * So is Xlib's default handler of X errors (a message and exit 1): the first error the server
 * sends makes udp_next_event return UDP_EVENT_ERROR too, and udp_x_error says which it was. */
udp_ui *udp_open(const char *display_name, udp_error *err);
/* Whether the server sent an X error: 1 with `err` naming the error and the request it answered
 * (e.g. "the X server refused RenderCompositeGlyphs8 (RENDER minor 23): BadLength ..."), else 0.
 * Makes requests of its own (to name an extension's request): not for an Xlib error handler. */
int udp_x_error(udp_ui *ui, udp_error *err);
/* Ungrabs, destroys the window, closes the connection and the pipe; NULL is ignored. */
void udp_close(udp_ui *ui);
/* Makes the event loop return UDP_EVENT_WAKE; safe from any thread, never blocks. */
void udp_wake(udp_ui *ui);

/* The pointer's position on the root window, and the monitor that holds it (XRandR monitors,
 * else Xinerama screens, else the whole screen). 0, or -1 when the pointer is on another screen. */
int udp_pointer(udp_ui *ui, int *x, int *y, udp_rect *monitor, udp_error *err);
/* Xft.dpi from the RESOURCE_MANAGER property of the root window; 0 when it does not say. */
double udp_resource_dpi(udp_ui *ui);

/* Loads the font: the fontconfig `pattern` (e.g. "sans-serif:size=10") through Xft at `dpi`,
 * else the core font "fixed" (when Xft or the pattern fails, or `pattern` is NULL). Returns 1 for
 * an Xft font, 0 for the core fallback, -1 when neither loads. */
int udp_load_font(udp_ui *ui, const char *pattern, double dpi, udp_error *err);
/* The loaded font's ascent and descent in pixels. */
void udp_font_metrics(udp_ui *ui, int *ascent, int *descent);
/* The most bytes of UTF-8 that udp_text draws and udp_text_width measures: more is cut at a
 * character boundary. A title is a few hundred characters at most by then (the caller cuts it
 * to the width); this bounds the requests sent whatever it passes (300,000 characters in one
 * RenderCompositeGlyphs8 is BadLength, and Xft's 16-bit advance wraps long before). */
#define UDP_TEXT_MAX_BYTES 2048

/* Width in pixels of `len` bytes of UTF-8 text in the loaded font. */
int udp_text_width(udp_ui *ui, const char *utf8, int len);
/* Sets colour `slot` (0 .. UDP_COLOR_SLOTS-1) to `spec` ("#rrggbb" or an X colour name). */
int udp_set_color(udp_ui *ui, int slot, const char *spec, udp_error *err);

/* Creates and maps the override-redirect window at `rect`, with its back buffer. */
int udp_window_open(udp_ui *ui, udp_rect rect, udp_error *err);
/* Moves and resizes the window to `rect` (a deferred section brought more rows). */
int udp_window_resize(udp_ui *ui, udp_rect rect, udp_error *err);
/* Nonzero when the server is XWayland (the window is then not typed a popup menu, so that the
 * compositor gives it the keyboard focus). */
int udp_is_xwayland(udp_ui *ui);
/* The X id of the window, 0 before udp_window_open. */
unsigned long udp_window_id(udp_ui *ui);
/* Grabs the keyboard and the pointer, retrying for up to `seconds` (a hotkey's own grab may
 * still be active right after the key press). */
int udp_grab(udp_ui *ui, double seconds, udp_error *err);

/* Draws into the back buffer: a filled rectangle, and text with its baseline at `y`.
 * udp_present copies the buffer to the window and flushes; udp_sync waits until the server has
 * handled every request. */
void udp_fill(udp_ui *ui, int slot, int x, int y, int width, int height);
void udp_text(udp_ui *ui, int slot, int x, int y, const char *utf8, int len);
void udp_present(udp_ui *ui);
void udp_sync(udp_ui *ui);

/* Waits up to `timeout_ms` (negative: forever) for the next event that matters. */
void udp_next_event(udp_ui *ui, int timeout_ms, udp_event *event);

#ifdef __cplusplus
}
#endif
#endif
