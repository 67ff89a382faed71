/// The help texts, built from the command specs so they never drift from what is accepted.
enum Help {
    static func overview(_ commands: [CommandSpec]) -> String {
        var text = """
            userdebug \(CLI.version) — debug actions on the user records of the app you are building.

            Usage: userdebug COMMAND [OPTIONS]

            Commands:

            """
        let width = commands.map { $0.path.joined(separator: " ").count }.max() ?? 0
        for command in commands {
            let name = command.path.joined(separator: " ")
            text += "  \(name)\(String(repeating: " ", count: width - name.count + 2))\(command.summary)\n"
        }
        text += """

            Global options: --session NAME, --reveal, --quiet, --help.
            Output (--to auto, the default): a pipe or a file gets the result; a terminal gets it
            shown and copied to the CLIPBOARD (one stderr line says so); a hotkey should say
            --to clipboard. --to clipboard+stdout (alias both) always does both.
            Clipboard backend (--backend auto|wayland|x11, clipboard.backend): Wayland when
            WAYLAND_DISPLAY answers and offers data-control, else X11 when DISPLAY answers (GNOME,
            weston: through XWayland), else standard output; 'userdebug doctor' shows which and why.
            Exit status: 0 ok, 1 nothing chosen (menu --dmenu), 64 usage, 65 bad input data,
            66 nothing found (no session, response or store), 69 clipboard unavailable, 74 I/O error
            or damaged store, 75 store locked, 77 not permitted (read-only store), 78 bad config.
            Run 'userdebug COMMAND --help' for a command's options and an example.

            """
        return text
    }

    static func group(_ name: String, _ commands: [CommandSpec]) -> String {
        var text = "Usage: userdebug \(name) SUBCOMMAND [OPTIONS]\n\nSubcommands:\n"
        for command in commands where command.path.first == name {
            text += "  userdebug \(command.usage)\n      \(command.summary)\n"
        }
        return text
    }

    static func page(_ spec: CommandSpec) -> String {
        var text = "Usage: userdebug \(spec.usage)\n\n\(spec.summary)\n\n\(spec.discussion)\n\nOptions:\n"
        let options = spec.options + GlobalOptions.all
        let labels = options.map { option -> String in
            let short = option.short.map { "-\($0), " } ?? ""
            return short + "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
        }
        let width = labels.map(\.count).max() ?? 0
        for (label, option) in zip(labels, options) {
            text += "  \(label)\(String(repeating: " ", count: width - label.count + 2))\(option.help)\n"
        }
        return text
    }
}
