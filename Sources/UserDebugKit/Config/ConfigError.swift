/// Why a config file was refused: the file, where in it, which setting, and what is wrong, so
/// that the message reads like a compiler's and an editor can jump to it.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's path as given.
    public var file: String
    /// 1-based line, when the problem is at a place in the file.
    public var line: Int?
    /// 1-based byte column, when the problem is at a place in the file.
    public var column: Int?
    /// The setting's dotted path, e.g. `retention.maxResponses`, when one is at fault.
    public var key: String?
    /// What is wrong, e.g. `expected a positive integer, got a string`.
    public var message: String

    /// An error in `file`. A `column` is printed only with a `line`; `key` names the setting when
    /// one is at fault.
    public init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// `FILE:LINE:COL: retention.maxResponses: expected a positive integer, got a string`; the
    /// parts that are unknown are left out (`FILE: cannot read: Permission denied`).
    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if let key { text += key + ": " }
        return text + message
    }
}
