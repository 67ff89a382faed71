public enum X11ClipboardPlaceholder {}
