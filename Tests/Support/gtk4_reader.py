#!/usr/bin/python3
"""A native GTK4 application reading the clipboard, as the apps of a desktop do.

The clipboard contract (ClipboardContractTests) reads our copies with it: wl-paste reads through
data-control and xclip through X11, but a desktop's own apps read through GDK, which takes a
Wayland selection only while its window has the keyboard focus. It opens one small window and
then answers commands on standard input, one a line, with one JSON line on standard output:

    (at start)        {"ready": true}            once the window is mapped
    read clipboard    {"text": "..."}            or {"text": null} when the clipboard is empty,
    read primary      {"error": "..."}           or when GDK failed to read it
    formats clipboard {"formats": ["text/plain;charset=utf-8", ...]}

GDK_BACKEND in its environment picks Wayland or X11. It exits when standard input closes.
"""
import json
import sys
import threading

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


class Reader:
    def __init__(self, app):
        self.app = app
        self.window = None

    def activate(self, app):
        self.window = Gtk.ApplicationWindow(application=app, title="userdebug-gtk4-reader")
        self.window.set_default_size(200, 100)
        self.window.set_child(Gtk.Label(label="userdebug contract reader"))
        self.window.connect("map", lambda _w: GLib.idle_add(self.ready))
        self.window.present()
        threading.Thread(target=self.commands, daemon=True).start()

    def ready(self):
        say({"ready": True})
        return False

    def clipboard(self, name):
        display = Gdk.Display.get_default()
        return display.get_primary_clipboard() if name == "primary" else display.get_clipboard()

    def commands(self):
        for line in sys.stdin:
            words = line.split()
            if len(words) == 2 and words[0] in ("read", "formats") and words[1] in ("clipboard", "primary"):
                GLib.idle_add(self.run, words[0], words[1])
            else:
                say({"error": "unknown command %r" % line.strip()})
        GLib.idle_add(self.app.quit)

    def run(self, verb, name):
        clipboard = self.clipboard(name)
        if verb == "formats":
            say({"formats": list(clipboard.get_formats().get_mime_types() or [])})
            return False

        def done(source, result):
            try:
                say({"text": source.read_text_finish(result)})
            except GLib.Error as error:
                say({"error": error.message})

        clipboard.read_text_async(None, done)
        return False


def main():
    app = Gtk.Application(application_id=None)
    reader = Reader(app)
    app.connect("activate", reader.activate)
    app.hold()
    return app.run([sys.argv[0]])


if __name__ == "__main__":
    sys.exit(main())
