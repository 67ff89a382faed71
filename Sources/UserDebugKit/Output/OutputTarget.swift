/// Where an action's result goes, spelled as users type it: `--to` on the command line and
/// `output.defaultTarget` in the config file.
public enum OutputTarget: Sendable, Equatable, CaseIterable, RawRepresentable {
    /// Stdout when it is a pipe or a file of its own (not a desktop log it shares with stderr);
    /// else the selections `output.selection` names when a display answers, and on a terminal
    /// the result shown there too; else stdout with a notice.
    case auto
    /// Always standard output.
    case stdout
    /// The CLIPBOARD selection (Ctrl+V).
    case clipboard
    /// The PRIMARY selection (middle click).
    case primary
    /// The selections `output.selection` names, and standard output: `clipboard+stdout`, also
    /// spelled `both` (its first name, still accepted).
    case clipboardAndStdout

    /// The names users type, in the order help lists them (`both` is an alias, not listed).
    public static let allCases: [OutputTarget] = [.auto, .stdout, .clipboard, .primary, .clipboardAndStdout]

    /// The target named `rawValue`: one of `allCases`' names, or `both` for `clipboard+stdout`.
    public init?(rawValue: String) {
        if rawValue == "both" {
            self = .clipboardAndStdout
            return
        }
        guard let found = OutputTarget.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = found
    }

    /// The target's name as `--to` takes it.
    public var rawValue: String {
        switch self {
        case .auto: "auto"
        case .stdout: "stdout"
        case .clipboard: "clipboard"
        case .primary: "primary"
        case .clipboardAndStdout: "clipboard+stdout"
        }
    }
}

/// The selections `auto` and `clipboard+stdout` write: `output.selection` in the config file.
public enum OutputSelection: String, Sendable, Equatable, CaseIterable {
    /// CLIPBOARD (Ctrl+V).
    case clipboard
    /// PRIMARY (middle click).
    case primary
    /// CLIPBOARD, then PRIMARY.
    case both

    /// The selections to copy to, in order.
    public var names: [SelectionName] {
        switch self {
        case .clipboard: [.clipboard]
        case .primary: [.primary]
        case .both: [.clipboard, .primary]
        }
    }
}
