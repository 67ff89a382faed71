#include "udp_internal.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <X11/Xutil.h>

/* Latin-1 bytes (what XLookupString gives) as UTF-8 in `out` (at least 2 * len + 1 bytes). */
static void udp_utf8_from_latin1(const char *in, int len, char *out, size_t capacity) {
    size_t n = 0;
    for (int i = 0; i < len && n + 3 <= capacity; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c < 0x80) {
            out[n++] = (char)c;
        } else {
            out[n++] = (char)(0xC0 | (c >> 6));
            out[n++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[n] = '\0';
}

static void udp_translate_key(XKeyEvent *key, udp_event *event) {
    char latin[8];
    KeySym keysym = NoSymbol;
    int len = XLookupString(key, latin, (int)sizeof latin, &keysym, NULL);
    event->kind = UDP_EVENT_KEY;
    event->keysym = keysym;
    event->state = key->state;
    /* Control characters (Return, Escape, BackSpace, Ctrl+letter) are keys, not text. */
    if (len == 1 && ((unsigned char)latin[0] < 0x20 || latin[0] == 0x7F)) len = 0;
    udp_utf8_from_latin1(latin, len, event->text, sizeof event->text);
}

static void udp_pointer_event(udp_ui *ui, udp_event *event, udp_event_kind kind, int x, int y) {
    event->kind = kind;
    event->x = x;
    event->y = y;
    event->inside = x >= 0 && y >= 0 && x < ui->rect.width && y < ui->rect.height;
}

/* Translates one X event; 0 when it is one the menu does not care about. */
static int udp_translate(udp_ui *ui, XEvent *xevent, udp_event *event) {
    switch (xevent->type) {
    case KeyPress:
        udp_translate_key(&xevent->xkey, event);
        return 1;
    case ButtonPress:
        udp_pointer_event(ui, event, UDP_EVENT_BUTTON, xevent->xbutton.x, xevent->xbutton.y);
        event->button = (int)xevent->xbutton.button;
        event->state = xevent->xbutton.state;
        return 1;
    case MotionNotify:
        udp_pointer_event(ui, event, UDP_EVENT_MOTION, xevent->xmotion.x, xevent->xmotion.y);
        return 1;
    case MappingNotify:
        /* The keymap changed (a layout switch; under XWayland, every new Wayland keyboard such as
         * a virtual one brings its own): without this, keys would be looked up in the old map. */
        XRefreshKeyboardMapping(&xevent->xmapping);
        return 0;
    case Expose:
        if (xevent->xexpose.count != 0) return 0;
        event->kind = UDP_EVENT_EXPOSE;
        return 1;
    case UnmapNotify:
    case DestroyNotify:
        event->kind = UDP_EVENT_LOST;
        event->button = UDP_LOST_UNMAPPED;
        return 1;
    case FocusOut:
        /* Our grab ended without us (the server released it): the menu ends. Taking the grab
         * sends a FocusOut of mode NotifyGrab to the window that had the focus (ours, when the
         * focus follows the pointer): that one is ours and is ignored. */
        if (!ui->grabbed || xevent->xfocus.mode != NotifyUngrab || xevent->xfocus.detail == NotifyPointer) return 0;
        event->kind = UDP_EVENT_LOST;
        event->button = UDP_LOST_GRAB;
        return 1;
    default:
        return 0;
    }
}

/* Drains the wake pipe; nonzero when it held anything. */
static int udp_drain_wake(udp_ui *ui) {
    char bytes[64];
    int woken = 0;
    while (read(ui->wake_read, bytes, sizeof bytes) > 0) woken = 1;
    return woken;
}

/* Waits for the next event that matters (udpopup.h). */
void udp_next_event(udp_ui *ui, int timeout_ms, udp_event *event) {
    memset(event, 0, sizeof *event);
    for (;;) {
        while (!ui->broken && !ui->x_error && XPending(ui->display) > 0) {
            XEvent xevent;
            XNextEvent(ui->display, &xevent);
            if (udp_translate(ui, &xevent, event)) return;
        }
        /* A refused request (ui->x_error) ends the popup too: what it drew is not what it meant. */
        if (ui->broken || ui->x_error) {
            event->kind = UDP_EVENT_ERROR;
            return;
        }
        if (udp_drain_wake(ui)) {
            event->kind = UDP_EVENT_WAKE;
            return;
        }
        struct pollfd fds[2] = {
            {.fd = ConnectionNumber(ui->display), .events = POLLIN},
            {.fd = ui->wake_read, .events = POLLIN},
        };
        int ready = poll(fds, 2, timeout_ms);
        if (ready == 0) {
            event->kind = UDP_EVENT_TIMEOUT;
            return;
        }
        if (ready < 0 && errno != EINTR) {
            event->kind = UDP_EVENT_ERROR;
            return;
        }
        if (fds[0].revents & (POLLHUP | POLLERR)) {
            event->kind = UDP_EVENT_ERROR;
            return;
        }
    }
}
