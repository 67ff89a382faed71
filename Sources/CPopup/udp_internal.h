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
};

/* Fills `err` with `sys_errno` and a printf-style message. */
void udp_fail(udp_error *err, int sys_errno, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Frees the font, the colours and the drawing of `ui` (udp_draw.c). */
void udp_release_drawing(udp_ui *ui);

#endif
