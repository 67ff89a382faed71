/* X errors: the popup's own account of a request the server refused, instead of Xlib's default
 * handler, which prints and calls exit(1) from inside whatever Xlib call read the error. */
#include "udp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The free_private of our entry on the display's extension list: the udp_ui it points to is
 * freed by udp_close, not by XCloseDisplay. Its address also marks the entry as ours. */
static int udp_keep_ui(XExtData *entry) {
    (void)entry;
    return 0;
}

/* The udp_ui of `display`: the entry udp_catch_x_errors put on its extension list, or NULL.
 * Xlib's error handler is process-wide and takes no data, and this library keeps no globals. */
static udp_ui *udp_ui_of(Display *display) {
    XEDataObject object;
    object.display = display;
    for (XExtData *entry = *XEHeadOfExtensionList(object); entry != NULL; entry = entry->next)
        if (entry->free_private == udp_keep_ui) return (udp_ui *)entry->private_data;
    return NULL;
}

/* Xlib's handler of X errors: notes the first one for udp_next_event and returns. It runs inside
 * Xlib, so it makes no request; udp_x_error names the request later. */
static int udp_on_x_error(Display *display, XErrorEvent *event) {
    udp_ui *ui = udp_ui_of(display);
    if (ui == NULL || ui->x_error) return 0;
    ui->x_error = 1;
    ui->x_error_code = event->error_code;
    ui->x_request_code = event->request_code;
    ui->x_minor_code = event->minor_code;
    return 0;
}

int udp_catch_x_errors(udp_ui *ui) {
    XExtData *entry = calloc(1, sizeof *entry);
    if (entry == NULL) return -1;
    XExtCodes *codes = XAddExtension(ui->display);
    entry->number = codes != NULL ? codes->extension : 0;
    entry->free_private = udp_keep_ui;
    entry->private_data = (XPointer)ui;
    XEDataObject object;
    object.display = ui->display;
    XAddToExtensionList(XEHeadOfExtensionList(object), entry);
    XSetErrorHandler(udp_on_x_error);
    return 0;
}

/* The name of the extension whose major opcode is `major` into `name`; 0 when found. */
static int udp_extension_name(udp_ui *ui, int major, char *name, size_t size) {
    int count = 0, found = -1;
    char **names = XListExtensions(ui->display, &count);
    for (int i = 0; names != NULL && i < count && found != 0; i++) {
        int opcode, event_base, error_base;
        if (XQueryExtension(ui->display, names[i], &opcode, &event_base, &error_base) && opcode == major) {
            snprintf(name, size, "%s", names[i]);
            found = 0;
        }
    }
    if (names != NULL) XFreeExtensionList(names);
    return found;
}

/* The request's name from Xlib's error database (RenderCompositeGlyphs8), else its numbers. */
static void udp_request_name(udp_ui *ui, char *out, size_t size) {
    char key[96], extension[64];
    int major = ui->x_request_code, minor = ui->x_minor_code;
    if (major < 128) {
        snprintf(key, sizeof key, "%d", major);
        XGetErrorDatabaseText(ui->display, "XRequest", key, "", out, (int)size);
        if (*out == '\0') snprintf(out, size, "request %d", major);
        return;
    }
    if (udp_extension_name(ui, major, extension, sizeof extension) != 0) {
        snprintf(out, size, "request %d.%d of an unknown extension", major, minor);
        return;
    }
    snprintf(key, sizeof key, "%s.%d", extension, minor);
    char known[96];
    XGetErrorDatabaseText(ui->display, "XRequest", key, "", known, (int)sizeof known);
    if (*known == '\0')
        snprintf(out, size, "%s request %d", extension, minor);
    else
        snprintf(out, size, "%s (%s minor %d)", known, extension, minor);
}

int udp_x_error(udp_ui *ui, udp_error *err) {
    if (!ui->x_error) return 0;
    char request[160], error[120];
    udp_request_name(ui, request, sizeof request);
    XGetErrorText(ui->display, ui->x_error_code, error, (int)sizeof error);
    udp_fail(err, 0, "the X server refused %s: %s", request, error);
    return 1;
}
