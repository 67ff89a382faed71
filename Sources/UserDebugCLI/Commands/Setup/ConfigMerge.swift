import UserDebugKit

/// One key setup binds: the config's spelling (`Super+Alt+I`) and the action it runs.
struct SetupBinding: Sendable, Equatable {
    var key: String
    var action: String

    /// The keys setup binds unless `--keys` says otherwise.
    static let defaults = [
        SetupBinding(key: "Super+Alt+I", action: "copy-id"),
        SetupBinding(key: "Super+Alt+J", action: "dump-json"),
        SetupBinding(key: "Super+Alt+R", action: "print-response"),
        SetupBinding(key: "Super+Alt+M", action: HotkeyBinding.menuAction),
    ]

    /// `--keys KEY=ACTION,…` (`Super+Alt+I=copy-id,Super+Alt+M=menu`), each key and action checked
    /// as the config file's `hotkeys` are.
    static func parse(_ text: String) throws(CommandError) -> [SetupBinding] {
        var bindings: [SetupBinding] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingSpaces
            guard parts.count == 2, !key.isEmpty, !parts[1].trimmingSpaces.isEmpty else {
                throw CommandError(
                    .usage, "--keys: expected KEY=ACTION[,KEY=ACTION…] (e.g. Super+Alt+I=copy-id), got '\(item)'")
            }
            bindings.append(SetupBinding(key: key, action: parts[1].trimmingSpaces))
        }
        // The config's own reader judges them: a key that names no keysym, an unknown action, the
        // same keys twice are refused with its words.
        do throws(ConfigError) {
            _ = try Config.parse(Array(ConfigMerge.hotkeysObject(bindings, indent: "").utf8), file: "--keys")
        } catch {
            let key = error.key.map { $0.hasPrefix("hotkeys.") ? String($0.dropFirst(8)) : $0 }
            throw CommandError(.usage, "--keys: " + (key.map { "\($0): " } ?? "") + error.message)
        }
        return bindings
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

/// Writes the chosen hotkeys into the config text and nothing else: the user's settings, keys,
/// comments and layout stay byte for byte; the result is read back and compared before it is used.
enum ConfigMerge {
    /// Why the text cannot be merged safely; the command shows this and the diff it would need.
    struct Refusal: Error {
        var reason: String
        /// The text the merge would have written (for the diff), when there is one.
        var proposed: [UInt8]?
    }

    /// `{"hotkeys": {…}}` members as setup writes them, one a line.
    static func hotkeysObject(_ bindings: [SetupBinding], indent: String) -> String {
        "{\n\(indent)  \"hotkeys\": " + members(bindings, indent: indent + "  ") + "\n\(indent)}\n"
    }

    /// `{ "K": "A", … }` with each member on its own line, indented one level past `indent`.
    static func members(_ bindings: [SetupBinding], indent: String) -> String {
        let lines = bindings.map { indent + "  " + member($0) }
        return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
    }

    private static func member(_ binding: SetupBinding) -> String {
        var out = ""
        JSONWriter.appendQuoted(binding.key, to: &out)
        out += ": "
        JSONWriter.appendQuoted(binding.action, to: &out)
        return out
    }

    /// The config text with `bindings` in its `hotkeys`: `existing` nil (no file) gives the shipped
    /// default config with them; otherwise they are added to what is there. Returns `existing`
    /// itself when every binding is already there.
    /// - Throws: `ConfigError` for a config that does not parse; `Refusal` when a chosen key is
    ///   bound to another action, or the result would not read back as the same settings.
    static func merge(_ existing: [UInt8]?, _ bindings: [SetupBinding], file: String) throws -> [UInt8] {
        guard let existing else {
            let text = SetupTemplates.config.replacingFirst(
                "\"hotkeys\": {}", with: "\"hotkeys\": " + members(bindings, indent: "  "))
            return try checked(Array(text.utf8), against: nil, bindings, file: file)
        }
        if JSONTextScanner(bytes: existing).significant(from: 0) == existing.count {
            // Only comments: they stay, the object comes after them.
            var text = existing
            if let last = text.last, last != 0x0A { text.append(0x0A) }
            text += Array(hotkeysObject(bindings, indent: "").utf8)
            return try checked(text, against: existing, bindings, file: file)
        }
        let config = try Config.parse(existing, file: file)
        let parsed = try JSONParser(allowsComments: true).parseWithSourceMap(existing)
        var missing: [SetupBinding] = []
        for binding in bindings {
            guard case .success(let wanted) = Hotkey.parse(binding.key) else { continue }
            if let there = config.hotkeys.first(where: { $0.key == wanted }) {
                guard there.action == binding.action else {
                    let proposed = replacingAction(existing, parsed.sourceMap, there.written, with: binding.action)
                    throw Refusal(
                        reason: "\(file) binds \(there.written) to \"\(there.action)\", and setup would bind it to "
                            + "\"\(binding.action)\"; nothing was changed. Choose other keys (--keys), or change it "
                            + "yourself",
                        proposed: proposed)
                }
                continue
            }
            missing.append(binding)
        }
        if missing.isEmpty { return existing }
        var scanner = JSONTextScanner(bytes: existing)
        let text: [UInt8]
        if let location = parsed.sourceMap.locations["hotkeys"] {
            guard parsed.value.objectValue?["hotkeys"]?.objectValue != nil else {
                throw Refusal(reason: "\(file): \"hotkeys\" is not an object", proposed: nil)
            }
            text = scanner.addingMembers(missing, toObjectAt: location.valueOffset, keyOffset: location.keyOffset ?? 0)
        } else {
            text = scanner.addingHotkeys(missing)
        }
        return try checked(text, against: existing, bindings, file: file)
    }

    /// `text` when it reads back as `original`'s settings plus every binding; else a refusal.
    private static func checked(_ text: [UInt8], against original: [UInt8]?, _ bindings: [SetupBinding], file: String)
        throws -> [UInt8]
    {
        let merged: Config
        do throws(ConfigError) {
            merged = try Config.parse(text, file: file)
        } catch {
            throw Refusal(reason: "the merged \(file) would not read back (\(error.message))", proposed: text)
        }
        // No file: the shipped text's own settings (it writes out some the defaults leave unset).
        let before = try Config.parse(original ?? Array(SetupTemplates.config.utf8), file: file)
        for binding in bindings {
            guard case .success(let key) = Hotkey.parse(binding.key),
                merged.hotkeys.contains(where: { $0.key == key && $0.action == binding.action })
            else {
                throw Refusal(reason: "the merged \(file) would not bind \(binding.key)", proposed: text)
            }
        }
        for old in before.hotkeys
        where !merged.hotkeys.contains(where: { $0.key == old.key && $0.action == old.action }) {
            throw Refusal(reason: "the merged \(file) would lose \(old.written)", proposed: text)
        }
        var otherBefore = before
        var otherAfter = merged
        otherBefore.hotkeys = []
        otherAfter.hotkeys = []
        // Every byte of the file is still there, in order: comments and layout are kept.
        guard otherBefore == otherAfter, isSubsequence(original ?? [], of: text) else {
            throw Refusal(reason: "the merged \(file) would change more than its hotkeys", proposed: text)
        }
        return text
    }

    private static func isSubsequence(_ small: [UInt8], of large: [UInt8]) -> Bool {
        var index = 0
        for byte in large where index < small.count && small[index] == byte { index += 1 }
        return index == small.count
    }

    /// `text` with the value of `hotkeys.KEY` replaced by `action` (for the refusal's diff).
    private static func replacingAction(_ text: [UInt8], _ map: JSONSourceMap, _ key: String, with action: String)
        -> [UInt8]?
    {
        guard let location = map.locations["hotkeys." + key] else { return nil }
        var scanner = JSONTextScanner(bytes: text)
        let end = scanner.valueEnd(from: location.valueOffset)
        var quoted = ""
        JSONWriter.appendQuoted(action, to: &quoted)
        return Array(text[..<location.valueOffset]) + Array(quoted.utf8) + Array(text[end...])
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8)
        let needle = Array(target.utf8)
        guard needle.count <= bytes.count else { return self }
        for start in 0...(bytes.count - needle.count) where Array(bytes[start..<(start + needle.count)]) == needle {
            let after = Array(bytes[(start + needle.count)...])
            return String(decoding: Array(bytes[..<start]) + Array(replacement.utf8) + after, as: UTF8.self)
        }
        return self
    }
}

/// Finds places in config text (JSON with `//` and `#` line comments) by its tokens, never inside
/// a string or a comment.
struct JSONTextScanner {
    let bytes: [UInt8]

    /// The offset of the next byte at or after `offset` that is not whitespace or a comment.
    func significant(from offset: Int) -> Int {
        var index = offset
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "#"): index = lineEnd(index)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                index = lineEnd(index)
            default: return index
            }
        }
        return index
    }

    private func lineEnd(_ offset: Int) -> Int {
        var index = offset
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        return index
    }

    /// Just past the string starting at `offset` (its opening quote).
    private func stringEnd(_ offset: Int) -> Int {
        var index = offset + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        return index
    }

    /// Just past the value starting at `offset`.
    mutating func valueEnd(from offset: Int) -> Int {
        var index = offset
        var depth = 0
        repeat {
            index = significant(from: index)
            guard index < bytes.count else { return index }
            switch bytes[index] {
            case UInt8(ascii: "\""): index = stringEnd(index)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
            default:
                if depth == 0 {
                    while index < bytes.count, !Self.ends(bytes[index]) { index += 1 }
                    return index
                }
                index += 1
            }
        } while depth > 0
        return index
    }

    private static func ends(_ byte: UInt8) -> Bool {
        [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "/")]
            .contains(byte)
    }

    /// The offset just past the last significant byte before `end` (its value's or member's last
    /// byte), searching from `start`.
    private mutating func lastSignificantEnd(from start: Int, before end: Int) -> Int {
        var index = start
        var last = start
        while true {
            index = significant(from: index)
            if index >= end { return last }
            let next = bytes[index] == UInt8(ascii: "\"") ? stringEnd(index) : index + 1
            last = next
            index = next
        }
    }

    /// The indentation of the line holding `offset`.
    private func indentation(at offset: Int) -> String {
        var start = offset
        while start > 0, bytes[start - 1] != 0x0A { start -= 1 }
        var end = start
        while end < bytes.count, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The text with `bindings` added as the last members of the object whose `{` is at `open`
    /// (the member's key at `keyOffset` gives the indentation): each on a line of its own when the
    /// object's `}` is on a line of its own, else inline.
    mutating func addingMembers(_ bindings: [SetupBinding], toObjectAt open: Int, keyOffset: Int) -> [UInt8] {
        let close = valueEnd(from: open) - 1
        let lastEnd = lastSignificantEnd(from: open + 1, before: close)
        let empty = lastEnd == open + 1
        let needsComma = !empty && bytes[lastEnd - 1] != UInt8(ascii: ",")
        let indent = indentation(at: keyOffset)
        if empty {
            let object = ConfigMerge.members(bindings, indent: indent)
            return Array(bytes[..<open]) + Array(object.utf8) + Array(bytes[(close + 1)...])
        }
        let closeOnOwnLine = indentation(at: close).utf8.count == close - lineStart(close)
        var out = Array(bytes[..<lastEnd])
        if needsComma { out.append(UInt8(ascii: ",")) }
        if closeOnOwnLine {
            out += bytes[lastEnd..<lineStart(close)]
            let lines = bindings.map { indent + "  " + memberText($0) }
            out += Array((lines.joined(separator: ",\n") + "\n").utf8)
            out += bytes[lineStart(close)...]
        } else {
            out += Array((" " + bindings.map(memberText).joined(separator: ", ")).utf8)
            out += bytes[lastEnd...]
        }
        return out
    }

    private func lineStart(_ offset: Int) -> Int {
        var start = offset
        while start > 0, bytes[start - 1] != 0x0A { start -= 1 }
        return start
    }

    private func memberText(_ binding: SetupBinding) -> String {
        var out = ""
        JSONWriter.appendQuoted(binding.key, to: &out)
        out += ": "
        JSONWriter.appendQuoted(binding.action, to: &out)
        return out
    }

    /// The text with a `"hotkeys"` member holding `bindings` as the root object's first member.
    mutating func addingHotkeys(_ bindings: [SetupBinding]) -> [UInt8] {
        let open = significant(from: 0)
        let next = significant(from: open + 1)
        let empty = next >= bytes.count || bytes[next] == UInt8(ascii: "}")
        let member =
            "\n  \"hotkeys\": " + ConfigMerge.members(bindings, indent: "  ")
            + (empty ? "\n" : open + 1 < bytes.count && bytes[open + 1] == 0x0A ? "," : ", ")
        return Array(bytes[...open]) + Array(member.utf8) + Array(bytes[(open + 1)...])
    }
}
