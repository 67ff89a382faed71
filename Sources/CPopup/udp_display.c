#define _GNU_SOURCE /* pipe2 */
#include "udp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <X11/Xatom.h>
#include <X11/Xresource.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xinerama.h>
#include <X11/extensions/Xrandr.h>

void udp_fail(udp_error *err, int sys_errno, const char *format, ...) {
    if (err == NULL) return;
    err->sys_errno = sys_errno;
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
}

/* Xlib's process-wide IO error handler: silent (the popup says what happened, in one line). */
static int udp_quiet_io_error(Display *display) {
    (void)display;
    return 0;
}

/* Called by Xlib when the connection of `data` (a udp_ui) broke; returning instead of Xlib's
 * exit(1) leaves the display unusable but safe to call into, and udp_next_event then reports
 * UDP_EVENT_ERROR, so the popup ends by its own rules (exit 69, no perform). */
static void udp_io_exit(Display *display, void *data) {
    (void)display;
    ((udp_ui *)data)->broken = 1;
}

/* Whether the server is XWayland: it has the XWAYLAND extension (XWayland 23.1 and later), or
 * a RandR monitor named after XWayland's outputs (XWAYLAND0, XWAYLAND1, ...). */
static int udp_detect_xwayland(udp_ui *ui) {
    int opcode, event_base, error_base, count = 0;
    if (XQueryExtension(ui->display, "XWAYLAND", &opcode, &event_base, &error_base)) return 1;
    if (!XRRQueryExtension(ui->display, &event_base, &error_base)) return 0;
    XRRMonitorInfo *monitors = XRRGetMonitors(ui->display, ui->root, True, &count);
    if (monitors == NULL) return 0;
    int found = 0;
    for (int i = 0; i < count && !found; i++) {
        char *name = monitors[i].name != None ? XGetAtomName(ui->display, monitors[i].name) : NULL;
        found = name != NULL && strncmp(name, "XWAYLAND", 8) == 0;
        if (name != NULL) XFree(name);
    }
    XRRFreeMonitors(monitors);
    return found;
}

udp_ui *udp_open(const char *display_name, udp_error *err) {
    udp_ui *ui = calloc(1, sizeof *ui);
    if (ui == NULL) {
        udp_fail(err, errno, "out of memory");
        return NULL;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        udp_fail(err, errno, "cannot make the wake pipe: %s", strerror(errno));
        free(ui);
        return NULL;
    }
    ui->wake_read = fds[0];
    ui->wake_write = fds[1];
    ui->display = XOpenDisplay(display_name);
    if (ui->display == NULL) {
        const char *name = display_name ? display_name : getenv("DISPLAY");
        if (name == NULL || *name == '\0')
            udp_fail(err, 0, "no display: DISPLAY is not set (the popup needs an X server or XWayland)");
        else
            udp_fail(err, 0, "cannot open display '%s'", name);
        close(fds[0]);
        close(fds[1]);
        free(ui);
        return NULL;
    }
    (void)fcntl(ConnectionNumber(ui->display), F_SETFD, FD_CLOEXEC);
    XSetIOErrorHandler(udp_quiet_io_error);
    XSetIOErrorExitHandler(ui->display, udp_io_exit, ui);
    if (udp_catch_x_errors(ui) != 0) {
        udp_fail(err, ENOMEM, "out of memory");
        XCloseDisplay(ui->display);
        close(fds[0]);
        close(fds[1]);
        free(ui);
        return NULL;
    }
    ui->screen = DefaultScreen(ui->display);
    ui->root = RootWindow(ui->display, ui->screen);
    ui->visual = DefaultVisual(ui->display, ui->screen);
    ui->colormap = DefaultColormap(ui->display, ui->screen);
    ui->depth = DefaultDepth(ui->display, ui->screen);
    ui->xwayland = udp_detect_xwayland(ui);
    return ui;
}

void udp_close(udp_ui *ui) {
    if (ui == NULL) return;
    if (ui->grabbed) {
        XUngrabKeyboard(ui->display, CurrentTime);
        XUngrabPointer(ui->display, CurrentTime);
    }
    udp_release_drawing(ui);
    if (ui->buffer) XFreePixmap(ui->display, ui->buffer);
    if (ui->gc) XFreeGC(ui->display, ui->gc);
    if (ui->window) XDestroyWindow(ui->display, ui->window);
    XSync(ui->display, False);
    XCloseDisplay(ui->display);
    close(ui->wake_read);
    close(ui->wake_write);
    free(ui);
}

void udp_wake(udp_ui *ui) {
    char byte = 1;
    /* A full pipe already holds a wake-up: nothing is lost by dropping this one. */
    ssize_t written = write(ui->wake_write, &byte, 1);
    (void)written;
}

/* The XRandR monitor holding (x, y); 0 when found. */
static int udp_randr_monitor(udp_ui *ui, int x, int y, udp_rect *monitor) {
    int event_base, error_base, count = 0;
    if (!XRRQueryExtension(ui->display, &event_base, &error_base)) return -1;
    XRRMonitorInfo *monitors = XRRGetMonitors(ui->display, ui->root, True, &count);
    if (monitors == NULL) return -1;
    int found = -1;
    for (int i = 0; i < count && found != 0; i++) {
        XRRMonitorInfo *m = &monitors[i];
        if (x >= m->x && x < m->x + m->width && y >= m->y && y < m->y + m->height) {
            *monitor = (udp_rect){m->x, m->y, m->width, m->height};
            found = 0;
        }
    }
    XRRFreeMonitors(monitors);
    return found;
}

/* The Xinerama screen holding (x, y); 0 when found. */
static int udp_xinerama_monitor(udp_ui *ui, int x, int y, udp_rect *monitor) {
    int count = 0;
    if (!XineramaIsActive(ui->display)) return -1;
    XineramaScreenInfo *screens = XineramaQueryScreens(ui->display, &count);
    if (screens == NULL) return -1;
    int found = -1;
    for (int i = 0; i < count && found != 0; i++) {
        XineramaScreenInfo *s = &screens[i];
        if (x >= s->x_org && x < s->x_org + s->width && y >= s->y_org && y < s->y_org + s->height) {
            *monitor = (udp_rect){s->x_org, s->y_org, s->width, s->height};
            found = 0;
        }
    }
    XFree(screens);
    return found;
}

int udp_pointer(udp_ui *ui, int *x, int *y, udp_rect *monitor, udp_error *err) {
    Window root_return, child;
    int wx, wy;
    unsigned int mask;
    if (!XQueryPointer(ui->display, ui->root, &root_return, &child, x, y, &wx, &wy, &mask)) {
        udp_fail(err, 0, "the pointer is on another screen");
        return -1;
    }
    if (udp_randr_monitor(ui, *x, *y, monitor) == 0) return 0;
    if (udp_xinerama_monitor(ui, *x, *y, monitor) == 0) return 0;
    *monitor = (udp_rect){0, 0, DisplayWidth(ui->display, ui->screen), DisplayHeight(ui->display, ui->screen)};
    return 0;
}

double udp_resource_dpi(udp_ui *ui) {
    char *resources = XResourceManagerString(ui->display);
    if (resources == NULL) return 0;
    XrmInitialize();
    XrmDatabase database = XrmGetStringDatabase(resources);
    if (database == NULL) return 0;
    char *type = NULL;
    XrmValue value;
    double dpi = 0;
    if (XrmGetResource(database, "Xft.dpi", "Xft.Dpi", &type, &value) && value.addr != NULL) {
        dpi = strtod(value.addr, NULL);
    }
    XrmDestroyDatabase(database);
    return dpi > 0 && dpi < 1000 ? dpi : 0;
}

/* Names the window for xdotool, xwininfo and compositors: a popup menu of class userdebug-popup.
 * Under XWayland it is not typed a popup menu: wlroots compositors (sway) give the Wayland
 * keyboard focus to an override-redirect window unless its type is a menu, tooltip or the like,
 * and without that focus no key of the real keyboard reaches XWayland, grab or not. */
static void udp_name_window(udp_ui *ui) {
    XClassHint hint = {.res_name = "userdebug-popup", .res_class = "userdebug-popup"};
    XSetClassHint(ui->display, ui->window, &hint);
    XStoreName(ui->display, ui->window, "userdebug menu");
    if (ui->xwayland) return;
    Atom type = XInternAtom(ui->display, "_NET_WM_WINDOW_TYPE", False);
    Atom popup = XInternAtom(ui->display, "_NET_WM_WINDOW_TYPE_POPUP_MENU", False);
    XChangeProperty(ui->display, ui->window, type, XA_ATOM, 32, PropModeReplace, (unsigned char *)&popup, 1);
}

int udp_window_open(udp_ui *ui, udp_rect rect, udp_error *err) {
    XSetWindowAttributes attributes = {0};
    attributes.override_redirect = True;
    attributes.background_pixel = ui->pixels[0];
    attributes.event_mask = KeyPressMask | ButtonPressMask | PointerMotionMask | ExposureMask
                            | StructureNotifyMask | FocusChangeMask;
    ui->rect = rect;
    ui->window = XCreateWindow(ui->display, ui->root, rect.x, rect.y, (unsigned)rect.width, (unsigned)rect.height, 0,
                               ui->depth, InputOutput, ui->visual,
                               CWOverrideRedirect | CWBackPixel | CWEventMask, &attributes);
    if (!ui->window) {
        udp_fail(err, 0, "cannot create the popup window");
        return -1;
    }
    udp_name_window(ui);
    ui->buffer = XCreatePixmap(ui->display, ui->window, (unsigned)rect.width, (unsigned)rect.height,
                               (unsigned)ui->depth);
    ui->gc = XCreateGC(ui->display, ui->buffer, 0, NULL);
    if (ui->xft_font) ui->draw = XftDrawCreate(ui->display, ui->buffer, ui->visual, ui->colormap);
    XMapRaised(ui->display, ui->window);
    XSync(ui->display, False);
    return 0;
}

int udp_window_resize(udp_ui *ui, udp_rect rect, udp_error *err) {
    Pixmap buffer = XCreatePixmap(ui->display, ui->window, (unsigned)rect.width, (unsigned)rect.height,
                                  (unsigned)ui->depth);
    if (!buffer) {
        udp_fail(err, 0, "cannot make a %dx%d buffer", rect.width, rect.height);
        return -1;
    }
    if (ui->draw) XftDrawDestroy(ui->draw);
    ui->draw = NULL;
    XFreePixmap(ui->display, ui->buffer);
    ui->buffer = buffer;
    if (ui->xft_font) ui->draw = XftDrawCreate(ui->display, ui->buffer, ui->visual, ui->colormap);
    ui->rect = rect;
    XMoveResizeWindow(ui->display, ui->window, rect.x, rect.y, (unsigned)rect.width, (unsigned)rect.height);
    return 0;
}

int udp_is_xwayland(udp_ui *ui) {
    return ui->xwayland;
}

unsigned long udp_window_id(udp_ui *ui) {
    return ui->window;
}

static double udp_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int udp_grab(udp_ui *ui, double seconds, udp_error *err) {
    double deadline = udp_now() + seconds;
    int keyboard = !GrabSuccess, pointer = !GrabSuccess;
    unsigned int mask = ButtonPressMask | PointerMotionMask;
    for (;;) {
        if (keyboard != GrabSuccess)
            keyboard = XGrabKeyboard(ui->display, ui->window, True, GrabModeAsync, GrabModeAsync, CurrentTime);
        if (pointer != GrabSuccess)
            pointer = XGrabPointer(ui->display, ui->window, False, mask, GrabModeAsync, GrabModeAsync, None, None,
                                   CurrentTime);
        if (keyboard == GrabSuccess && pointer == GrabSuccess) {
            ui->grabbed = 1;
            return 0;
        }
        if (udp_now() >= deadline) break;
        struct timespec pause = {0, 2 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (keyboard == GrabSuccess) XUngrabKeyboard(ui->display, CurrentTime);
    if (pointer == GrabSuccess) XUngrabPointer(ui->display, CurrentTime);
    udp_fail(err, 0, "cannot grab the %s: another program holds it", keyboard != GrabSuccess ? "keyboard" : "pointer");
    return -1;
}
