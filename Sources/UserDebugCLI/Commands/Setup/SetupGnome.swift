import UserDebugKit

/// GNOME: one custom keybinding per key through `gsettings` (org.gnome.settings-daemon.plugins.
/// media-keys), added to the list next to the user's own, which stay.
enum SetupGnome {
    static let schema = "org.gnome.settings-daemon.plugins.media-keys"
    static let base = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings"

    static func plan(_ plan: inout SetupPlan, _ invocation: Invocation) throws {
        let environment = invocation.environment
        guard let listed = get([schema, "custom-keybindings"], environment) else {
            throw CommandError(
                .unavailable,
                "gsettings cannot read \(schema) custom-keybindings (is gsettings installed, and GNOME's settings "
                    + "schemas with it?)")
        }
        var list = strings(in: listed)
        var added: [String] = []
        for binding in plan.bindings {
            let id = "userdebug-" + String(binding.action.map { $0.isLetter || $0.isNumber ? $0 : "-" })
            let path = "\(base)/\(id)/"
            let relocatable = "\(schema).custom-keybinding:\(path)"
            let wanted = [
                ("name", "userdebug: \(binding.action)"), ("binding", KeySpelling.gnome(binding.key)),
                ("command", SetupPlanner.command(for: binding)),
            ]
            var changed = false
            for (key, value) in wanted {
                let now = get([relocatable, key], environment).flatMap(firstString)
                if now == value { continue }
                changed = true
                plan.steps.append(
                    .init(argv: ["gsettings", "set", relocatable, key, literal(value)], what: "\(binding.key): \(key)"))
            }
            if changed { plan.undo.append(["gsettings", "reset-recursively", relocatable]) }
            if !list.contains(path) {
                list.append(path)
                added.append(path)
            }
        }
        if !added.isEmpty {
            let value = "[" + list.map(literal).joined(separator: ", ") + "]"
            plan.steps.append(
                .init(
                    argv: ["gsettings", "set", schema, "custom-keybindings", value],
                    what: "the list of custom keybindings, yours kept"))
            plan.undo.append(["gsettings", "set", schema, "custom-keybindings", listed])
        }
        plan.commandOf = { SetupPlanner.command(for: $0) }
    }

    /// What `gsettings get ARGUMENTS` prints (without the newline), or nil when it fails.
    private static func get(_ arguments: [String], _ environment: [String: String]) -> String? {
        guard
            let result = try? ProcessRunner(timeout: 10).run(
                ["gsettings", "get"] + arguments, environment: environment),
            result.termination == .exited(0)
        else { return nil }
        return String(decoding: result.stdout, as: UTF8.self).trimmingNewlines
    }

    /// A GVariant string literal: single quotes, `\` and `'` escaped.
    static func literal(_ text: String) -> String {
        var out = "'"
        for character in text {
            if character == "\\" || character == "'" { out.append("\\") }
            out.append(character)
        }
        return out + "'"
    }

    /// The string literals of a GVariant text (`['/a/', "/b'/"]`, `@as []`), decoded.
    static func strings(in text: String) -> [String] {
        var found: [String] = []
        var current: String?
        var quote: Character = "'"
        var escaped = false
        for character in text {
            guard current != nil else {
                if character == "'" || character == "\"" {
                    quote = character
                    current = ""
                }
                continue
            }
            if escaped {
                current?.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == quote {
                found.append(current ?? "")
                current = nil
            } else {
                current?.append(character)
            }
        }
        return found
    }

    private static func firstString(_ text: String) -> String? { strings(in: text).first }
}
