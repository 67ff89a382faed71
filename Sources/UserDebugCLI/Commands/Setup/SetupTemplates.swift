/// The files `setup` writes that also ship in the repository, so a setup writes what an install
/// and a reader of `config/` see: SetupTests checks each against its file byte for byte.
enum SetupTemplates {
    /// `config/config.json`: every setting at its default, each explained; setup writes it, with
    /// the chosen `hotkeys`, where there is no config yet.
    static let config = #"""
        // userdebug configuration: $XDG_CONFIG_HOME/userdebug/config.json (default ~/.config/userdebug/),
        // or $USERDEBUG_HOME/config/config.json. JSON with // and # line comments.
        // Every setting is optional; a missing file means exactly these defaults.
        // Unknown keys are errors, so a misspelt setting is reported, not ignored.
        {
          // How much of the captured response log is kept; the oldest go first.
          "retention": {
            "maxResponses": 10000,      // a positive integer, or null for no limit
            "maxBytes": 268435456       // total stored bytes (256 MiB), or null for no limit;
                                        // one response larger than this is refused (exit 65)
          },

          // Names to redact on top of the built-in list (Authorization, Cookie, Set-Cookie,
          // X-Api-Key, fields named like token/secret/password/apiKey/privateKey, query items
          // like access_token/api_key/code/sig, URL passwords). The built-in list cannot be
          // reduced here; use --reveal to see a secret once.
          "redaction": {
            "headers": [],              // e.g. ["X-Internal-Auth"], matched case-insensitively
            "fields": [],               // whole JSON/form field names, e.g. ["ssn"] (also matches
                                        // "SSN"; case, "_" and "-" are ignored)
            "fieldPatterns": [],        // substrings of field names, e.g. ["iban"] also matches
                                        // "customerIban"
            "queryParameters": []       // URL query parameter names, e.g. ["tenant_sig"]
          },

          // Where output goes when --to is not given:
          //   "auto"      stdout when it is a pipe or a file, else the clipboard when a display
          //               answers (on a terminal also shown there), else stdout with a notice on stderr
          //   "stdout", "clipboard", "primary", "clipboard+stdout" (the selection and stdout; "both"
          //               is its older name)
          "output": {
            "defaultTarget": "auto",
            "selection": "clipboard"    // the selection "auto" writes: "clipboard", "primary" or "both"
          },

          // Clipboard ownership; all values in seconds (fractions allowed).
          "clipboard": {
            "secretClearSeconds": 30,       // clear a copied secret after this (if still ours); null: never
            "lifetimeSeconds": null,        // stop serving ordinary content after this; null: until replaced
            "transferTimeoutSeconds": 10,   // give up on one stalled reader after this
            "connectTimeoutSeconds": 1,     // fall back to stdout when the X server has not answered by then
            "pasteDeadlineSeconds": 30,     // a paste (and --from-clipboard) gives up after this, plus 1 s per
                                            // 256 KiB received: an owner trickling its content (exit 75)
            "handOffAtOnce": false,         // true: with a clipboard manager running, hand it the content
                                            // at once and stop serving (without one, serve as usual)
            "reuseOwner": true,             // a copy hands its content to our process already serving the
                                            // selection (no new X connection, no fork); false: a new
                                            // process per copy (--new-owner does that for one copy)
            "backend": "auto"               // "auto": Wayland when WAYLAND_DISPLAY answers and offers
                                            // data-control (sway, KDE), else X11 on DISPLAY (GNOME and
                                            // weston through XWayland), else stdout; "wayland" or "x11"
                                            // forces one (--backend does that for one command);
                                            // `userdebug doctor` shows which one applies and why
          },

          // Debug actions of your own, shown after the built-in ones and run with
          // `userdebug run ID`. Each: "id" (a-z, 0-9, . _ -), "title", and a "template", a
          // "command", or both. Template placeholders: {{user.identifier}}, {{user.name}},
          // {{user.FIELD}}, {{session.name}}, {{session.token}}, {{session.baseURL}},
          // {{session.environment}}, {{response.id|status|method|url|body}} (the last
          // response, redacted unless --reveal); "{{NAME | url}}" percent-encodes.
          // A template that uses a secret ({{session.token}}, {{user.apiKey}}, …) needs
          // "secret": true. "command" is an argv array run without a shell; its stdout is the
          // result and the template is its stdin; "timeoutSeconds" (default 10) limits it.
          // Every local user can read a command's arguments, so they may only use
          // {{user.identifier}}, {{user.id}}, {{user.name}}, {{session.name}},
          // {{session.environment}}, {{response.id}}, {{response.status}} and
          // {{response.method}}; anything else goes in the template (stdin). The program (and
          // backend.curl) must belong to you or root and be writable by no one else.
          // Optional per action: "subtitle", "keyHint", "secret", "timeoutSeconds".
          //   {"id": "admin-url", "title": "Open in Admin",
          //    "template": "https://admin.example.com/users/{{user.identifier | url}}"}
          "actions": [],

          // The deferred "From the backend" menu section: GET {session.baseURL}{path} with the
          // session's token, made by curl when a menu is shown. null path: no such section.
          "backend": {
            "path": null,               // e.g. "/me"
            "timeoutSeconds": 5,        // then the section shows "timed out"
            "curl": "curl",             // the curl program (a name in PATH, or a path); run as
                                        // curl -q --globoff: no ~/.curlrc, no redirect followed
            // More deferred sections, each its own request, each filled in as soon as it answers;
            // actions backend.NAME.body, backend.NAME.field.KEY. e.g.
            //   [{"name": "orders", "title": "Recent orders", "path": "/orders", "timeoutSeconds": 3}]
            "sections": []
          },

          // A desktop notification (freedesktop notification service, on the session bus) after an
          // action: "Copied user id usr_8f14e45f", "Copied the token (clears in 30 s)" (never the
          // secret), or a critical one with the error and what to do.
          //   "auto"    after an action started from a key: the hotkey daemon, the popup,
          //             `menu --dmenu`, `userdebug rofi`, or any command run with neither stdout nor
          //             stderr a terminal and stdout no pipe (what sxhkd, xbindkeys, i3, GNOME do)
          //   "always", "never"
          // Without a session bus nothing is tried (no delay); a bus that does not answer within
          // 0.2 s is given up, with one line on stderr.
          "notifications": "auto",

          // The debug menu on the desktop.
          "menu": {
            // `userdebug menu --dmenu`: the menu's entries as lines on a launcher's stdin, the line it
            // prints back is copied. Esc (nothing chosen) exits 1, as dmenu does; no launcher: 69.
            "launcher": null,           // null: the first of dmenu, rofi -dmenu, fuzzel --dmenu,
                                        // wofi --dmenu, bemenu in PATH (on Wayland the last three
                                        // first); or an argv array, e.g. ["rofi", "-dmenu", "-i"], or
                                        // a string split at spaces (no shell); --launcher CMD wins
            // `userdebug menu --popup` (and a hotkey bound to "menu"): a window at the pointer.
            "popup": {
              "theme": "dark",                // "dark" or "light": where the colours come from
              "font": "sans-serif:size=10",   // a fontconfig pattern (fc-list shows the families);
                                              // scaled by Xft.dpi (xrdb) on HiDPI screens; the core
                                              // font "fixed" when Xft finds none
              "colors": {}                    // "#rrggbb" overrides of the theme: "background",
                                              // "foreground", "dim", "selectedBackground",
                                              // "selectedForeground", "border"
            }
          },

          // Global keys for `userdebug daemon` (X11): key combination → an action id as
          // `userdebug run` takes it, or "menu" for the popup menu. Modifiers Super, Alt, Ctrl,
          // Shift, Hyper and a keysym name (i, F5, space, Return, XF86AudioPlay, U+20AC),
          // case-insensitive. `userdebug daemon --check` shows what it would grab. The daemon
          // reloads this file when it changes. X11 grabs do not see keys pressed in
          // Wayland-native windows: use the compositor's shortcuts there (config/hotkeys/).
          //   {"Super+Alt+I": "copy-id", "Super+Alt+J": "dump-json", "Super+Alt+M": "menu"}
          "hotkeys": {},

          // Login rules: a response whose request matches "match" ("METHOD /path" or "/path"; "*"
          // in the path matches anything, "/" included; the query is ignored) and whose status is
          // 2xx is a login. Its JSON body gives the user and the token, and the session is saved and
          // made current, wherever responses come in: `capture -- curl`, `response record`,
          // `response import` of a HAR, and an app's URLSession capture. One stderr line names the
          // session and the response; the token is never shown. Per rule, all optional but "match":
          //   "user"        a JSON path or an array of them, tried in order (default
          //                 ["$.user", "$.data.user"]); an object with an id/identifier/userId/
          //                 user_id/uid, or a bare string or integer id
          //   "token"       the same for the token (default ["$.token", "$.access_token",
          //                 "$.accessToken", "$.data.token", "$.data.access_token"])
          //   "session"     the session's name (default IDENTIFIER@HOST[:PORT], e.g. usr_1@api.example;
          //                 --session NAME on the command line wins)
          //   "environment", "baseURL"  (default: the existing session's, else the login's
          //                 scheme://host:port)
          //   [{"match": "POST /v1/login"},
          //    {"match": "POST */oauth/token", "user": "$.profile", "token": "$.access_token"}]
          "login": []
        }

        """#

    /// `config/autostart/userdebug.desktop`, whose `@BINDIR@` becomes the binary's directory (as
    /// `Scripts/install.sh --enable-daemon` renders it).
    static let autostart = #"""
        [Desktop Entry]
        Type=Application
        Name=userdebug hotkeys
        Comment=Global hotkeys for userdebug's debug actions (userdebug daemon; see the hotkeys section of its config)
        Exec="@BINDIR@/userdebug" daemon
        TryExec=@BINDIR@/userdebug
        Terminal=false
        NoDisplay=true
        X-GNOME-Autostart-enabled=true

        """#
}
