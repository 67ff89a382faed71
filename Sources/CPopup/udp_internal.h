#ifndef USERDEBUG_UDP_INTERNAL_H
#define USERDEBUG_UDP_INTERNAL_H
/* Shared by the udpopup sources; not part of the module's public header. */
#include "udpopup.h"

#include <X11/Xft/Xft.h>
#include <X11/Xlib.h>

struct udp_ui {
    Display *display;
    int screen;
    Window root;
    Window window;
    Pixmap buffer;
    GC gc;
    Visual *visual;
    Colormap colormap;
    int depth;
    udp_rect rect;
    XftFont *xft_font;
    XFontStruct *core_font;
    XftDraw *draw;
    XftColor xft_colors[UDP_COLOR_SLOTS];
    int xft_allocated[UDP_COLOR_SLOTS];
    unsigned long pixels[UDP_COLOR_SLOTS];
    int wake_read;
    int wake_write;
    int grabbed;
    int broken;   /* the connection failed: Xlib called udp_io_exit */
    int xwayland; /* the server is XWayland (it has the XWAYLAND extension) */
    /* The first X error the server sent (udp_on_x_error), 0 when none: the popup closes on it. */
    int x_error;
    unsigned char x_error_code, x_request_code, x_minor_code;
};

/* Fills `err` with `sys_errno` and a printf-style message. */
void udp_fail(udp_error *err, int sys_errno, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Makes X errors on `ui`'s display ui->x_error instead of Xlib's default (a message and exit 1). */
int udp_catch_x_errors(udp_ui *ui);
/* Frees the font, the colours and the drawing of `ui` (udp_draw.c). */
void udp_release_drawing(udp_ui *ui);

#endif
