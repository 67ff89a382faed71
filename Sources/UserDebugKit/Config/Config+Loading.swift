import Glibc

extension Config {
    /// Largest config file read; anything bigger is not a hand-written config (or is
    /// `/dev/zero`), and reading it whole would be the bug.
    static let maxFileSize = 1 << 20

    /// Loads `path`. A missing file, or one holding only comments and whitespace, gives
    /// `defaults`; anything present but wrong is an error naming the file, line, column and key.
    /// `skipping` names sections left unread (see `parse`).
    public static func load(path: String, skipping: [String] = []) throws(ConfigError) -> Config {
        guard let bytes = try readFile(path) else { return .defaults }
        return try parse(bytes, file: path, skipping: skipping)
    }

    /// The sections that only a few commands read (`hotkeys`: the daemon, `daemon --check`,
    /// `doctor`, `setup`), which every other command leaves unread and unchecked: reading the
    /// hotkeys means parsing the keysym table, 25 times the work of the rest of a `copy-id`.
    /// (An array: the first `Set<String>` in a process costs a `copy-id` a quarter of its
    /// instructions, the runtime searching the binary for its `Hashable` conformance.)
    public static let sectionsReadOnDemand = ["hotkeys"]

    /// Reads config text as `load` reads a file's (blank or all comments: the defaults); `file`
    /// names it in errors.
    /// A section named in `skipping` is not read: it keeps its defaults, and nothing inside it
    /// is checked (the file must still be JSON, and its top-level keys known sections).
    /// - Throws: `ConfigError` at the first problem: JSON syntax, an unknown key, a value of the
    ///   wrong kind, a secret placeholder in a command argument, or one in a template without
    ///   `"secret": true`.
    public static func parse(_ bytes: [UInt8], file: String, skipping: [String] = []) throws(ConfigError)
        -> Config
    {
        if isBlank(bytes) { return .defaults }
        let parsed: JSONValue
        do {
            parsed = try JSONParser(allowsComments: true).parse(bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: error.reason)
        }
        let reader = ConfigReader(file: file, bytes: bytes)
        let root = try reader.members(parsed, at: "", known: sections.map(\.name) + ignoredTopLevelKeys)
        var config = Config.defaults
        for section in sections where !skipping.contains(section.name) {
            guard let value = root[section.name] else { continue }
            try section.read(&config, value, reader)
        }
        // After every section: whether a template puts a secret out depends on the redaction
        // section, which may come later in the file.
        try checkActionSecrets(config, reader)
        try checkHotkeyActions(config, reader)
        return config
    }

    /// `$schema` lets editors validate and complete the file; it means nothing to us.
    static let ignoredTopLevelKeys = ["$schema"]

    typealias SectionReader = @Sendable (inout Config, JSONValue, ConfigReader) throws(ConfigError) -> Void

    /// Every top-level section and its reader. A new section (`actions`, `backend`) is one more
    /// entry here and one more property on `Config`; unknown sections stay errors.
    static let sections: [(name: String, read: SectionReader)] = [
        ("retention", readRetention),
        ("redaction", readRedaction),
        ("output", readOutput),
        ("clipboard", readClipboard),
        ("actions", readActions),
        ("backend", readBackend),
        ("notifications", readNotifications),
        ("menu", readMenu),
        ("hotkeys", readHotkeys),
        ("login", readLogin),
    ]

    private static func readRetention(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader)
        throws(ConfigError)
    {
        let object = try reader.members(value, at: "retention", known: ["maxResponses", "maxBytes"])
        if let value = object["maxResponses"] {
            config.retention.maxCount = try reader.positiveInteger(
                value, at: "retention.maxResponses", allowsNull: true)
        }
        if let value = object["maxBytes"] {
            config.retention.maxBytes = try reader.positiveInteger(value, at: "retention.maxBytes", allowsNull: true)
        }
    }

    private static func readRedaction(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader)
        throws(ConfigError)
    {
        let object = try reader.members(
            value, at: "redaction", known: ["headers", "fields", "fieldPatterns", "queryParameters"])
        if let value = object["headers"] { config.redaction.headers = try reader.names(value, at: "redaction.headers") }
        if let value = object["fields"] { config.redaction.fields = try reader.names(value, at: "redaction.fields") }
        if let value = object["fieldPatterns"] {
            config.redaction.fieldPatterns = try reader.names(value, at: "redaction.fieldPatterns")
        }
        if let value = object["queryParameters"] {
            config.redaction.queryParameters = try reader.names(value, at: "redaction.queryParameters")
        }
    }

    private static func readOutput(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader)
        throws(ConfigError)
    {
        let object = try reader.members(value, at: "output", known: ["defaultTarget", "selection"])
        if let value = object["defaultTarget"] {
            config.output.defaultTarget = try reader.choice(value, at: "output.defaultTarget", as: OutputTarget.self)
        }
        if let value = object["selection"] {
            config.output.selection = try reader.choice(value, at: "output.selection", as: OutputSelection.self)
        }
    }

    private static func readClipboard(_ config: inout Config, _ value: JSONValue, _ reader: ConfigReader)
        throws(ConfigError)
    {
        let keys = [
            "secretClearSeconds", "lifetimeSeconds", "transferTimeoutSeconds", "connectTimeoutSeconds",
            "pasteDeadlineSeconds", "handOffAtOnce", "reuseOwner", "backend",
        ]
        let object = try reader.members(value, at: "clipboard", known: keys)
        if let value = object["secretClearSeconds"] {
            config.clipboard.clearSecretAfter = try reader.positiveSeconds(
                value, at: "clipboard.secretClearSeconds", allowsNull: true)
        }
        if let value = object["lifetimeSeconds"] {
            config.clipboard.lifetime = try reader.positiveSeconds(
                value, at: "clipboard.lifetimeSeconds", allowsNull: true)
        }
        if let value = object["transferTimeoutSeconds"],
            let seconds = try reader.positiveSeconds(value, at: "clipboard.transferTimeoutSeconds", allowsNull: false)
        {
            config.clipboard.transferTimeout = seconds
        }
        if let value = object["connectTimeoutSeconds"],
            let seconds = try reader.positiveSeconds(value, at: "clipboard.connectTimeoutSeconds", allowsNull: false)
        {
            config.clipboard.connectTimeout = seconds
        }
        if let value = object["pasteDeadlineSeconds"],
            let seconds = try reader.positiveSeconds(value, at: "clipboard.pasteDeadlineSeconds", allowsNull: false)
        {
            config.clipboard.pasteDeadline = seconds
        }
        if let value = object["handOffAtOnce"] {
            config.clipboardOwner.handOffAtOnce = try reader.flag(value, at: "clipboard.handOffAtOnce")
        }
        if let value = object["reuseOwner"] {
            config.clipboardOwner.reuseOwner = try reader.flag(value, at: "clipboard.reuseOwner")
        }
        if let value = object["backend"] {
            config.clipboardBackend = try reader.choice(
                value, at: "clipboard.backend", as: ClipboardBackendPreference.self)
        }
    }

    /// Only whitespace and comments: a file whose every line was commented out means "defaults".
    static func isBlank(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            default:
                return false
            }
        }
        return true
    }

    /// The file's bytes, or nil when it does not exist. Plain open/read: no Foundation in a
    /// hotkey tool's startup path.
    static func readFile(_ path: String) throws(ConfigError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw ConfigError(file: path, message: "cannot open: \(describe(code))")
        }
        defer { close(descriptor) }
        try checkTrust(descriptor, path: path)
        do throws(FileDescriptor.ReadAllError) {
            return try FileDescriptor(descriptor).readAll(limit: maxFileSize)
        } catch .system(let error) {
            throw ConfigError(file: path, message: "cannot read: \(describe(error.code))")
        } catch {
            throw ConfigError(file: path, message: "larger than \(maxFileSize) bytes; not a config file")
        }
    }

    /// The config decides which programs run with the session's token on their stdin, so whoever
    /// may change it could have them run theirs: a config file, its directory or a directory above
    /// them that someone else could change is refused, as ssh refuses such an `authorized_keys`
    /// (the rules of `FileTrust`; links resolved, the file itself judged by the open descriptor).
    static func checkTrust(_ descriptor: Int32, path: String) throws(ConfigError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ConfigError(file: path, message: "cannot examine: \(describe(errno))")
        }
        // A directory is not read (the read says so); nothing of it is used.
        if (status.st_mode & S_IFMT) == S_IFDIR { return }
        if let problem = FileTrust.ownProblem(status, path: path) ?? FileTrust.problem(at: path, ownLevels: 2) {
            throw ConfigError(file: path, message: "refusing to read it: \(problem)\(resolvedNote(path))")
        }
    }

    /// Where a path reached through a symbolic link really is (" (reached through a link: it is
    /// REAL)"), so a refusal names the file that was judged; empty when there is no link.
    private static func resolvedNote(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return "" }
        defer { free(real) }
        let resolved = String(cString: real)
        return resolved == path ? "" : " (reached through a link: it is \(resolved))"
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
