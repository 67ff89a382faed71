/// When a debug action tells the desktop what it did (config `notifications`).
public enum NotificationMode: String, Sendable, CaseIterable {
    /// After an action started from a key: the hotkey daemon, the popup, a launcher, or the
    /// command line when neither stdout nor stderr is a terminal (and stdout is no pipe).
    case auto
    /// After every action.
    case always
    /// Never.
    case never
}

extension Config {
    /// The `menu` section: how `userdebug menu --dmenu` shows the menu.
    public struct Menu: Sendable, Equatable {
        /// The launcher's argv (`menu.launcher`); nil: the first of dmenu, rofi, fuzzel, wofi,
        /// bemenu found in PATH. A string in the file is split at whitespace, no shell.
        public var launcher: [String]?

        /// The defaults: the launcher is found in PATH.
        public init(launcher: [String]? = nil) {
            self.launcher = launcher
        }
    }

    static func readNotifications(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader)
        throws(ConfigError)
    {
        guard case .object = value else {
            config.notifications = try reader.choice(value, at: "notifications", as: NotificationMode.self)
            return
        }
        // The long form: {"when": "auto", "failureTimeoutSeconds": 30} (null: until dismissed).
        let object = try reader.members(value, at: "notifications", known: ["when", "failureTimeoutSeconds"])
        if let when = object["when"] {
            config.notifications = try reader.choice(when, at: "notifications.when", as: NotificationMode.self)
        }
        if let seconds = object["failureTimeoutSeconds"] {
            config.failureNotificationSeconds = try reader.positiveSeconds(
                seconds, at: "notifications.failureTimeoutSeconds", allowsNull: true)
        }
    }

    /// Reads the `menu` section: `menu.launcher` (here) and `menu.popup` (the popup's look).
    static func readMenu(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader) throws(ConfigError) {
        let object = try reader.members(value, at: "menu", known: ["launcher", "popup"])
        if let popup = object["popup"] { try readPopup(&config, popup, reader) }
        guard let launcher = object["launcher"] else { return }
        if case .null = launcher {
            config.menu.launcher = nil
        } else if let text = launcher.stringValue {
            let argv = Config.splitCommand(text)
            guard !argv.isEmpty else { throw reader.error("menu.launcher", "expected a command, got an empty string") }
            config.menu.launcher = argv
        } else {
            guard launcher.arrayValue != nil else {
                throw reader.error("menu.launcher", "expected an argv array or a string, got \(launcher.kindName)")
            }
            config.menu.launcher = try reader.names(launcher, at: "menu.launcher")
            if config.menu.launcher?.isEmpty == true {
                throw reader.error("menu.launcher", "expected a command, got an empty array")
            }
        }
    }

    /// A launcher given as one string (`menu.launcher`, `--launcher`): its words, split at
    /// whitespace; no quoting, no shell (the argv array form takes an argument with spaces).
    public static func splitCommand(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
    }
}
