/// Where an action's result goes, spelled as users type it: `--to` on the command line and
/// `output.defaultTarget` in the config file.
public enum OutputTarget: String, Sendable, Equatable, CaseIterable {
    /// Stdout when it is a pipe or a file of its own (not a desktop log it shares with stderr);
    /// else the selections `output.selection` names when a display answers; else stdout with a
    /// notice.
    case auto
    /// Always standard output.
    case stdout
    /// The CLIPBOARD selection (Ctrl+V).
    case clipboard
    /// The PRIMARY selection (middle click).
    case primary
    /// The selections `output.selection` names, and standard output.
    case both
}

/// The selections `auto` and `both` write: `output.selection` in the config file.
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
