#include "udp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int udp_load_font(udp_ui *ui, const char *pattern, double dpi, udp_error *err) {
    if (pattern != NULL && *pattern != '\0') {
        char name[512];
        if (dpi > 0)
            snprintf(name, sizeof name, "%s:dpi=%.0f", pattern, dpi);
        else
            snprintf(name, sizeof name, "%s", pattern);
        ui->xft_font = XftFontOpenName(ui->display, ui->screen, name);
        if (ui->xft_font != NULL) return 1;
    }
    ui->core_font = XLoadQueryFont(ui->display, "fixed");
    if (ui->core_font != NULL) return 0;
    udp_fail(err, 0, "no font: neither '%s' (Xft) nor the core font 'fixed' loads", pattern ? pattern : "");
    return -1;
}

void udp_font_metrics(udp_ui *ui, int *ascent, int *descent) {
    if (ui->xft_font) {
        *ascent = ui->xft_font->ascent;
        *descent = ui->xft_font->descent;
    } else if (ui->core_font) {
        *ascent = ui->core_font->ascent;
        *descent = ui->core_font->descent;
    } else {
        *ascent = 10;
        *descent = 3;
    }
}

/* UTF-8 as Latin-1 for a core font: each code point above U+00FF becomes '?'. Returns the length. */
static int udp_latin1(const char *utf8, int len, char *out, int capacity) {
    int n = 0;
    for (int i = 0; i < len && n < capacity; n++) {
        unsigned char c = (unsigned char)utf8[i];
        int width = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (c < 0x80) {
            out[n] = (char)c;
        } else if (width == 2 && i + 1 < len && c <= 0xC3) {
            out[n] = (char)(((c & 0x1F) << 6) | ((unsigned char)utf8[i + 1] & 0x3F));
        } else {
            out[n] = '?';
        }
        i += width;
    }
    return n;
}

/* `len` cut to UDP_TEXT_MAX_BYTES at the start of a UTF-8 character (udpopup.h says why). */
static int udp_clamp(const char *utf8, int len) {
    if (len <= UDP_TEXT_MAX_BYTES) return len;
    int n = UDP_TEXT_MAX_BYTES;
    while (n > 0 && ((unsigned char)utf8[n] & 0xC0) == 0x80) n--;
    return n;
}

int udp_text_width(udp_ui *ui, const char *utf8, int len) {
    len = udp_clamp(utf8, len);
    if (ui->xft_font) {
        XGlyphInfo extents;
        XftTextExtentsUtf8(ui->display, ui->xft_font, (const FcChar8 *)utf8, len, &extents);
        return extents.xOff;
    }
    if (ui->core_font) {
        char latin[1024];
        int n = udp_latin1(utf8, len, latin, (int)sizeof latin);
        return XTextWidth(ui->core_font, latin, n);
    }
    return 0;
}

/* "#rrggbb" (or any X colour name) as an XRenderColor. */
static int udp_parse_color(udp_ui *ui, const char *spec, XRenderColor *color, unsigned long *pixel) {
    XColor exact, screen;
    if (!XAllocNamedColor(ui->display, ui->colormap, spec, &screen, &exact)) return -1;
    *color = (XRenderColor){screen.red, screen.green, screen.blue, 0xFFFF};
    *pixel = screen.pixel;
    return 0;
}

int udp_set_color(udp_ui *ui, int slot, const char *spec, udp_error *err) {
    if (slot < 0 || slot >= UDP_COLOR_SLOTS) {
        udp_fail(err, 0, "colour slot %d out of range", slot);
        return -1;
    }
    XRenderColor render;
    unsigned long pixel;
    if (udp_parse_color(ui, spec, &render, &pixel) != 0) {
        udp_fail(err, 0, "unknown colour '%s'", spec);
        return -1;
    }
    ui->pixels[slot] = pixel;
    if (ui->xft_allocated[slot]) {
        XftColorFree(ui->display, ui->visual, ui->colormap, &ui->xft_colors[slot]);
        ui->xft_allocated[slot] = 0;
    }
    if (XftColorAllocValue(ui->display, ui->visual, ui->colormap, &render, &ui->xft_colors[slot]))
        ui->xft_allocated[slot] = 1;
    return 0;
}

void udp_release_drawing(udp_ui *ui) {
    if (ui->draw) XftDrawDestroy(ui->draw);
    ui->draw = NULL;
    for (int slot = 0; slot < UDP_COLOR_SLOTS; slot++) {
        if (ui->xft_allocated[slot]) XftColorFree(ui->display, ui->visual, ui->colormap, &ui->xft_colors[slot]);
        ui->xft_allocated[slot] = 0;
    }
    if (ui->xft_font) XftFontClose(ui->display, ui->xft_font);
    ui->xft_font = NULL;
    if (ui->core_font) XFreeFont(ui->display, ui->core_font);
    ui->core_font = NULL;
}

void udp_fill(udp_ui *ui, int slot, int x, int y, int width, int height) {
    if (!ui->buffer || slot < 0 || slot >= UDP_COLOR_SLOTS || width <= 0 || height <= 0) return;
    XSetForeground(ui->display, ui->gc, ui->pixels[slot]);
    XFillRectangle(ui->display, ui->buffer, ui->gc, x, y, (unsigned)width, (unsigned)height);
}

void udp_text(udp_ui *ui, int slot, int x, int y, const char *utf8, int len) {
    if (!ui->buffer || slot < 0 || slot >= UDP_COLOR_SLOTS || len <= 0) return;
    len = udp_clamp(utf8, len);
    if (ui->draw && ui->xft_allocated[slot]) {
        XftDrawStringUtf8(ui->draw, &ui->xft_colors[slot], ui->xft_font, x, y, (const FcChar8 *)utf8, len);
        return;
    }
    if (ui->core_font) {
        char latin[1024];
        int n = udp_latin1(utf8, len, latin, (int)sizeof latin);
        XSetForeground(ui->display, ui->gc, ui->pixels[slot]);
        XSetFont(ui->display, ui->gc, ui->core_font->fid);
        XDrawString(ui->display, ui->buffer, ui->gc, x, y, latin, n);
    }
}

void udp_present(udp_ui *ui) {
    if (!ui->buffer) return;
    XCopyArea(ui->display, ui->buffer, ui->window, ui->gc, 0, 0, (unsigned)ui->rect.width,
              (unsigned)ui->rect.height, 0, 0);
    XFlush(ui->display);
}

void udp_sync(udp_ui *ui) {
    XSync(ui->display, False);
}
