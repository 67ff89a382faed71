/*
 * The floor of the hotkey benchmark (Scripts/bench.sh hotkey): the least a hotkey copy can do.
 * One Xlib process grabs Super+Alt+KEY (KEY a keysym name, default i) on the root window; on each
 * press it reads the value file (the benchmark writes a new value before every press), takes
 * CLIPBOARD with the press's
 * timestamp and answers TARGETS and UTF8_STRING requests itself. No fork, no new connection.
 *   cc -O2 -o grabcopy grabcopy.c -lX11 && grabcopy VALUE-FILE [KEY]
 * Prints "ready" once its grab is in place.
 */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int grabcopy_read(const char *path, char *buffer, int size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buffer, (size_t)size - 1);
    close(fd);
    return n > 0 ? (int)n : 0;
}

static void grabcopy_answer(Display *d, XSelectionRequestEvent *req, const char *value, int len, Atom targets,
                            Atom utf8) {
    XSelectionEvent ev = {.type = SelectionNotify, .requestor = req->requestor, .selection = req->selection,
                          .target = req->target, .time = req->time, .property = req->property};
    if (req->target == targets) {
        Atom offered[2] = {targets, utf8};
        XChangeProperty(d, req->requestor, req->property, XA_ATOM, 32, PropModeReplace, (unsigned char *)offered, 2);
    } else if (req->target == utf8 || req->target == XA_STRING) {
        XChangeProperty(d, req->requestor, req->property, req->target, 8, PropModeReplace, (const unsigned char *)value,
                        len);
    } else {
        ev.property = None;
    }
    XSendEvent(d, req->requestor, False, 0, (XEvent *)&ev);
    XFlush(d);
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) return 64;
    KeySym key = argc == 3 ? XStringToKeysym(argv[2]) : XK_i;
    if (key == NoSymbol) return 64;
    Display *d = XOpenDisplay(NULL);
    if (d == NULL) return 69;
    Window root = DefaultRootWindow(d);
    Window w = XCreateSimpleWindow(d, root, 0, 0, 1, 1, 0, 0, 0);
    Atom clipboard = XInternAtom(d, "CLIPBOARD", False), targets = XInternAtom(d, "TARGETS", False);
    Atom utf8 = XInternAtom(d, "UTF8_STRING", False);
    XGrabKey(d, XKeysymToKeycode(d, key), Mod4Mask | Mod1Mask, root, False, GrabModeAsync, GrabModeAsync);
    XSync(d, False);
    printf("ready\n");
    fflush(stdout);
    char value[4096];
    int len = 0;
    for (;;) {
        XEvent ev;
        XNextEvent(d, &ev);
        if (ev.type == KeyPress) {
            len = grabcopy_read(argv[1], value, sizeof value);
            XSetSelectionOwner(d, clipboard, w, ev.xkey.time);
            XFlush(d);
        } else if (ev.type == SelectionRequest) {
            grabcopy_answer(d, &ev.xselectionrequest, value, len, targets, utf8);
        }
    }
}
