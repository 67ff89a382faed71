extension Config {
    /// The `menu.popup` section: how `userdebug menu --popup` looks.
    public struct Popup: Sendable, Equatable {
        /// The colour scheme the defaults come from.
        public enum Theme: String, Sendable, CaseIterable {
            /// Light text on a dark background (the default).
            case dark
            /// Dark text on a light background.
            case light
        }

        /// The colours the popup draws with, each `#rrggbb`.
        public struct Colors: Sendable, Equatable {
            /// The window's background.
            public var background: String
            /// Titles.
            public var foreground: String
            /// Subtitles, key hints, placeholders and section headers.
            public var dim: String
            /// The selected row's background.
            public var selectedBackground: String
            /// The selected row's text.
            public var selectedForeground: String
            /// The window's one-pixel border and separators.
            public var border: String
        }

        /// The colour names `menu.popup.colors` accepts.
        public static let colorNames = [
            "background", "foreground", "dim", "selectedBackground", "selectedForeground", "border",
        ]

        /// `dark` or `light`.
        public var theme: Theme
        /// A fontconfig pattern, e.g. `sans-serif:size=10` or `DejaVu Sans Mono:size=11`; sized by
        /// `Xft.dpi` on HiDPI screens.
        public var font: String
        /// Colours that replace the theme's, by name (see `colorNames`).
        public var colorOverrides: [String: String]

        /// The defaults: dark, `sans-serif:size=10`, no overrides.
        public init(theme: Theme = .dark, font: String = "sans-serif:size=10", colorOverrides: [String: String] = [:]) {
            self.theme = theme
            self.font = font
            self.colorOverrides = colorOverrides
        }

        /// The theme's colours with the overrides applied.
        public var colors: Colors {
            var colors =
                theme == .dark
                ? Colors(
                    background: "#1e2127", foreground: "#e6e6e6", dim: "#9da5b4", selectedBackground: "#3d6fb6",
                    selectedForeground: "#ffffff", border: "#4b5263")
                : Colors(
                    background: "#fafafa", foreground: "#1f2328", dim: "#59636e", selectedBackground: "#0969da",
                    selectedForeground: "#ffffff", border: "#c8ccd1")
            for (name, value) in colorOverrides {
                switch name {
                case "background": colors.background = value
                case "foreground": colors.foreground = value
                case "dim": colors.dim = value
                case "selectedBackground": colors.selectedBackground = value
                case "selectedForeground": colors.selectedForeground = value
                default: colors.border = value
                }
            }
            return colors
        }
    }

    /// Reads `menu.popup`, the popup's look.
    static func readPopup(_ config: inout Config, _ popup: JSONValue, _ reader: ConfigReader) throws(ConfigError) {
        let members = try reader.members(popup, at: "menu.popup", known: ["theme", "font", "colors"])
        if let value = members["theme"] {
            config.popup.theme = try reader.choice(value, at: "menu.popup.theme", as: Popup.Theme.self)
        }
        if let value = members["font"] {
            guard let font = value.stringValue, !font.isEmpty else {
                throw reader.error("menu.popup.font", "expected a fontconfig pattern such as \"sans-serif:size=10\"")
            }
            config.popup.font = font
        }
        if let value = members["colors"] {
            let colors = try reader.members(value, at: "menu.popup.colors", known: Popup.colorNames)
            for member in colors.members {
                let key = "menu.popup.colors." + member.key
                guard let text = member.value.stringValue, isHexColor(text) else {
                    throw reader.error(key, "expected a colour as \"#rrggbb\"")
                }
                config.popup.colorOverrides[member.key] = text
            }
        }
    }

    private static func isHexColor(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#")
            && bytes.dropFirst().allSatisfy { hexDigitValue($0) != nil }
    }
}
