/// A key combination as xbindkeys and sxhkd users write it: modifiers and one keysym name joined by
/// `+` (`Super+Alt+I`, `ctrl+shift+F5`, `Super+XF86AudioPlay`), case-insensitive.
public struct Hotkey: Sendable, Hashable, CustomStringConvertible {
    /// The modifiers a hotkey may hold; each stands for the X modifier (Mod1…Mod5, Shift,
    /// Control) that the keyboard's modifier map gives its keys.
    public struct Modifiers: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt32
        /// Modifiers from raw bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Shift.
        public static let shift = Modifiers(rawValue: 1)
        /// Control (`Ctrl`).
        public static let control = Modifiers(rawValue: 2)
        /// Alt (the modifier of Alt_L, Alt_R or Meta_L).
        public static let alt = Modifiers(rawValue: 4)
        /// Super (the modifier of Super_L or Super_R; the Windows key).
        public static let superKey = Modifiers(rawValue: 8)
        /// Hyper (the modifier of Hyper_L or Hyper_R).
        public static let hyper = Modifiers(rawValue: 16)

        /// Every modifier with its name, in the order they are printed.
        public static let named: [(name: String, modifier: Modifiers)] = [
            ("Super", .superKey), ("Hyper", .hyper), ("Ctrl", .control), ("Alt", .alt), ("Shift", .shift),
        ]

        /// The names a modifier may be written with, lowercased.
        static let spellings: [String: Modifiers] = [
            "super": .superKey, "hyper": .hyper, "ctrl": .control, "control": .control, "alt": .alt,
            "shift": .shift,
        ]
    }

    /// The modifiers held.
    public var modifiers: Modifiers
    /// The keysym of the key (X11 keysym value).
    public var keysym: UInt32
    /// The keysym's name as the table spells it (`i`, `F5`, `XF86AudioPlay`), or `U+20AC`.
    public var keyName: String

    /// A hotkey.
    public init(modifiers: Modifiers, keysym: UInt32, keyName: String) {
        self.modifiers = modifiers
        self.keysym = keysym
        self.keyName = keyName
    }

    /// The canonical spelling: modifiers in a fixed order, then the key (`Super+Alt+i`).
    public var description: String {
        (Modifiers.named.filter { modifiers.contains($0.modifier) }.map(\.name) + [keyName]).joined(separator: "+")
    }

    /// Parses `Super+Alt+I`; the error says what is wrong with it.
    public static func parse(_ text: String) -> Result<Hotkey, HotkeyError> {
        var parts = text.split(separator: "+", omittingEmptySubsequences: false).map {
            $0.trimmingSpaces()
        }
        // `Super+U+20AC`: the last two parts are one Unicode keysym name.
        if parts.count >= 3, parts[parts.count - 2].lowercased() == "u", let digits = parts.last, !digits.isEmpty,
            digits.allSatisfy(\.isHexDigit)
        {
            parts.replaceSubrange((parts.count - 2)..., with: ["U+" + digits])
        }
        guard let key = parts.last, !key.isEmpty, !parts.dropLast().contains(where: \.isEmpty) else {
            return .failure(
                HotkeyError("\"\(text)\" is not a key combination: write modifiers and a key joined by '+'"))
        }
        var modifiers: Modifiers = []
        for part in parts.dropLast() {
            guard let modifier = Modifiers.spellings[part.lowercased()] else {
                return .failure(HotkeyError("\"\(part)\" is not a modifier; expected Super, Alt, Ctrl, Shift or Hyper"))
            }
            modifiers.insert(modifier)
        }
        guard let found = Keysym.named(key) else {
            return .failure(HotkeyError("\"\(key)\" is not a keysym name (e.g. i, F5, space, Return, XF86AudioPlay)"))
        }
        return .success(Hotkey(modifiers: modifiers, keysym: found.value, keyName: found.name))
    }
}

/// Why a hotkey's text was refused.
public struct HotkeyError: Error, Sendable, Equatable {
    /// What is wrong, naming the part.
    public var message: String
    init(_ message: String) { self.message = message }
}

/// One entry of the `hotkeys` section: a key combination and what it runs.
public struct HotkeyBinding: Sendable, Equatable {
    /// The key combination.
    public var key: Hotkey
    /// The text the file used for it (messages name it as the user wrote it).
    public var written: String
    /// An action id as `userdebug run` takes it, or `menu` (the popup menu).
    public var action: String

    /// A binding.
    public init(key: Hotkey, written: String, action: String) {
        self.key = key
        self.written = written
        self.action = action
    }

    /// The action that opens the popup menu instead of running an action.
    public static let menuAction = "menu"
}

/// Keysym names (X11's keysymdef.h and XF86keysym.h, generated into `keysymTable`).
public enum Keysym {
    /// The keysym named `name`: its lowercase form when that is a keysym (`I` is `i`: the same
    /// key, so `Super+I` and `super+i` are one binding), else the exact spelling, else
    /// case-insensitively, then `U+20AC`/`U20AC` as a Unicode keysym. Nil when it names none.
    public static func named(_ name: String) -> (name: String, value: UInt32)? {
        let lower = name.lowercased()
        if let value = table.exact[lower] { return (lower, value) }
        if let value = table.exact[name] { return (name, value) }
        if let found = table.folded[lower] { return found }
        return unicode(name)
    }

    private static func unicode(_ name: String) -> (name: String, value: UInt32)? {
        var digits = Substring(name)
        if digits.hasPrefix("U+") || digits.hasPrefix("u+") {
            digits = digits.dropFirst(2)
        } else if digits.hasPrefix("U") || digits.hasPrefix("u") {
            digits = digits.dropFirst()
        } else {
            return nil
        }
        guard (1...6).contains(digits.count), let code = UInt32(digits, radix: 16), code <= 0x10FFFF else { return nil }
        // Latin-1 characters have their own keysyms (the code point itself).
        let value = code < 0x100 ? code : 0x0100_0000 + code
        return ("U+" + String(code, radix: 16, uppercase: true), value)
    }

    /// The table parsed once: exact names, and lowercased names preferring the lowercase spelling.
    private static let table: (exact: [String: UInt32], folded: [String: (name: String, value: UInt32)]) = {
        var exact: [String: UInt32] = [:]
        var folded: [String: (name: String, value: UInt32)] = [:]
        for line in keysymTable.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let value = UInt32(fields[1], radix: 16) else { continue }
            let name = String(fields[0])
            exact[name] = value
            let lower = name.lowercased()
            if folded[lower] == nil || lower == name { folded[lower] = (name, value) }
        }
        return (exact, folded)
    }()
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
