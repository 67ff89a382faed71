/// A recorded request as a POSIX shell command line that runs curl, safe by construction: every
/// word that comes from the record is single-quoted, with `'` written as `'\''`, which means the
/// same in bash, dash, zsh and ksh (no `$'…'`, no backslash escapes, nothing that history
/// expansion or a locale can change). It holds no control character but newline and tab: pasted
/// into an interactive shell, a ^C would end the line and a CR or DEL edit it, so that what
/// follows in a quoted value would run as a command of its own. Nor does it hold a character
/// that a terminal or an editor would act on or hide (`TerminalSafety`: a C1 control such as
/// U+009B, which some terminals read as CSI; BiDi controls such as U+202E, which reorder what
/// is shown; U+2028): those are spliced into the quoted word as `'"$(printf '\342\200\256')"'`,
/// printf's octal escapes, which give the same bytes in every POSIX shell whatever the locale
/// (`$'\u202E'` is neither in dash nor locale-proof in bash).
///
/// What it writes, and why:
/// - the method only when curl would not pick it itself: `GET` without a body and `POST` with one
///   are implied, `HEAD` is `--head`, anything else is `-X METHOD`;
/// - every header as `-H 'Name: value'`, in order; an empty value as `-H 'Name;'` (curl's spelling
///   for "send it empty"; `Name:` would remove the header). `Host`, `Content-Length`,
///   `Transfer-Encoding`, `Connection` and HTTP/2 pseudo-headers (`:authority`) are left to curl,
///   which computes them for the connection it makes;
/// - a text body (valid UTF-8 without control characters other than newline and tab) as
///   `--data-raw '…'`, byte for byte (newlines, tabs and `@` included: `--data-raw` reads no
///   files and strips nothing);
/// - any other body as `--data-binary @FILE`: a NUL byte cannot be part of a shell argument and
///   other controls must not be pasted, so the caller writes the bytes to a file and passes its
///   path;
/// - a URL's control characters percent-encoded (a URL cannot hold them; curl refuses them);
///   a header or method holding one is refused (`CurlCommandError.controlCharacter`), since
///   no spelling of it is both safe and the same request;
/// - `-H 'Content-Type:'` when the record has a body but no `Content-Type`, so curl does not add
///   its own `application/x-www-form-urlencoded`;
/// - `-g` when the URL holds `[ ] { }`, which curl would otherwise read as a glob pattern.
///
/// With `requestOnStandardInput` (what a revealed export uses), the same request is written as a
/// curl config (`url = "…"`, `header = "…"`, `data-raw = "…"`) that curl reads with `-K -` from a
/// here-document (`printf` piped into curl on one line): every value, the token included, reaches
/// curl on its stdin and none is in the argv of any process, which every local user can read.
/// `curl -K - <<'USERDEBUG_CURL_CONFIG'` … `USERDEBUG_CURL_CONFIG`: the quoted delimiter keeps
/// every shell from expanding anything, and no line of the config can equal it (each starts
/// with an option name and ` = "` or is a bare option).
public struct CurlCommand: Sendable {
    /// Where a binary body lives, when the request has one.
    public var binaryBodyPath: String?
    /// Whether to break the command over lines with ` \` (easier to read; still one command).
    public var multiline: Bool
    /// Whether the request goes to curl as a config on its stdin rather than as arguments.
    public var requestOnStandardInput: Bool

    /// A writer; `binaryBodyPath` is needed only when the body is binary.
    public init(binaryBodyPath: String? = nil, multiline: Bool = true, requestOnStandardInput: Bool = false) {
        self.binaryBodyPath = binaryBodyPath
        self.multiline = multiline
        self.requestOnStandardInput = requestOnStandardInput
    }

    /// The here-document's delimiter.
    static let delimiter = "USERDEBUG_CURL_CONFIG"

    /// Headers curl computes from the connection and the body; copying them would be wrong as
    /// soon as the body or the URL differs (a redacted body is shorter than the original).
    public static let connectionHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// Whether curl (or any client) makes this header itself: the connection headers, and HTTP/2
    /// pseudo-headers (`:authority`, `:method`) that browsers put in HAR files.
    public static func isComputed(_ name: String) -> Bool {
        name.hasPrefix(":") || connectionHeaders.contains(name.lowercased())
    }

    /// Whether `body` has to go through a file: not UTF-8, or holding a control character other
    /// than newline and tab (C0, DEL or C1: NUL cannot be in an argument, the rest must not be
    /// pasted into a terminal).
    public static func needsFile(_ body: [UInt8]) -> Bool {
        guard let text = String(validating: body, as: UTF8.self) else { return true }
        return text.unicodeScalars.contains { isPasteUnsafe($0) }
    }

    /// A control character that a pasted command must not hold: C0 but newline and tab, DEL, C1.
    static func isPasteUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }

    /// The command line for `request`.
    /// - Throws: `CurlCommandError.binaryBodyNeedsFile` when the body needs a file and no
    ///   `binaryBodyPath` was given; `.controlCharacter` for a method or header holding one.
    public func command(for request: BackendRequest) throws(CurlCommandError) -> String {
        if CurlCommand.holdsControl(request.method) { throw .controlCharacter(in: "method") }
        for header in request.headers where !CurlCommand.isComputed(header.name) {
            if CurlCommand.holdsControl(header.name) || CurlCommand.holdsControl(header.value) {
                throw .controlCharacter(in: "header \(CurlCommand.printable(header.name))")
            }
        }
        if requestOnStandardInput { return try configCommand(for: request) }
        var words: [String] = ["curl"]
        let hasBody = !request.body.isEmpty
        switch Self.method(of: request) {
        case .implied: break
        case .head: words.append("--head")
        case .explicit(let method): words += ["-X", CurlCommand.quoted(method)]
        }
        let url = CurlCommand.encodingControls(request.url)
        if url.contains(where: { "[]{}".contains($0) }) { words.append("-g") }
        if url.hasPrefix("-") {
            words += ["--url", CurlCommand.quoted(url)]
        } else {
            words.append(CurlCommand.quoted(url))
        }
        var hasContentType = false
        for header in request.headers where !CurlCommand.isComputed(header.name) {
            if header.name.lowercased() == "content-type" { hasContentType = true }
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            words += ["-H", CurlCommand.quoted(line)]
        }
        if hasBody {
            if !hasContentType { words += ["-H", CurlCommand.quoted("Content-Type:")] }
            if CurlCommand.needsFile(request.body) {
                guard let binaryBodyPath else { throw .binaryBodyNeedsFile }
                words += ["--data-binary", CurlCommand.quoted("@" + binaryBodyPath)]
            } else {
                words += ["--data-raw", CurlCommand.quoted(String(decoding: request.body, as: UTF8.self))]
            }
        }
        return join(words)
    }

    /// How the command states the request's method: not at all where curl implies it (GET without
    /// a body, POST with one), as `--head`, or explicitly.
    private enum MethodOption {
        case implied, head
        case explicit(String)
    }

    private static func method(of request: BackendRequest) -> MethodOption {
        let hasBody = !request.body.isEmpty
        switch request.method {
        case "GET" where !hasBody, "POST" where hasBody: return .implied
        case "HEAD" where !hasBody: return .head
        default: return .explicit(request.method)
        }
    }

    /// The request as `curl -K -` with its config on stdin: the same options as the command line
    /// would give, in the same order, each `name = "value"` (or a bare `name`).
    private func configCommand(for request: BackendRequest) throws(CurlCommandError) -> String {
        var lines: [String] = []
        let hasBody = !request.body.isEmpty
        switch Self.method(of: request) {
        case .implied: break
        case .head: lines.append("head")
        case .explicit(let method): lines.append("request = " + Self.configQuoted(method))
        }
        if request.url.contains(where: { "[]{}".contains($0) }) { lines.append("globoff") }
        lines.append("url = " + Self.configQuoted(CurlCommand.encodingControls(request.url)))
        var hasContentType = false
        for header in request.headers where !CurlCommand.isComputed(header.name) {
            if header.name.lowercased() == "content-type" { hasContentType = true }
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            lines.append("header = " + Self.configQuoted(line))
        }
        if hasBody {
            if !hasContentType { lines.append("header = " + Self.configQuoted("Content-Type:")) }
            if CurlCommand.needsFile(request.body) {
                guard let binaryBodyPath else { throw .binaryBodyNeedsFile }
                lines.append("data-binary = " + Self.configQuoted("@" + binaryBodyPath))
            } else {
                lines.append("data-raw = " + Self.configQuoted(String(decoding: request.body, as: UTF8.self)))
            }
        }
        // A here-document with a quoted delimiter takes every byte as it is: a character that
        // must be spliced in with printf (see `quoted`) needs the printf form, one line per
        // config line when multiline.
        let spliced = lines.contains { $0.unicodeScalars.contains(where: CurlCommand.isSpliced) }
        guard multiline, !spliced else {
            let words = ["printf '%s\\n'"] + lines.map(CurlCommand.quoted) + ["| curl -K -"]
            return words.joined(separator: multiline ? " \\\n  " : " ")
        }
        return "curl -K - <<'\(Self.delimiter)'\n" + lines.joined(separator: "\n") + "\n" + Self.delimiter
    }

    /// `text` as a quoted curl config value: `\` and `"` escaped, and the line breaks and tabs
    /// curl's config reader unescapes (`\n`, `\r`, `\t`, `\v`) written as escapes, so that a value
    /// is always one line of the config.
    static func configQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0B}": out += "\\v"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Whether `text` holds a control character a header or method may not have: what
    /// `HeaderField` refuses at record (C0 but tab, DEL).
    static func holdsControl(_ text: String) -> Bool {
        HeaderField.forbidden(in: text, allowingTab: true) != nil
    }

    /// `text` with its control characters as `\u{3}`, for a message.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The URL with each control character's UTF-8 bytes percent-encoded; the same string when
    /// it has none.
    static func encodingControls(_ url: String) -> String {
        guard url.unicodeScalars.contains(where: { $0 == "\t" || $0 == "\n" || isPasteUnsafe($0) }) else { return url }
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for scalar in url.unicodeScalars {
            guard scalar == "\t" || scalar == "\n" || isPasteUnsafe(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// Flags and their values stay on one line; each flag starts a new line when multiline.
    private func join(_ words: [String]) -> String {
        guard multiline else { return words.joined(separator: " ") }
        var lines: [String] = []
        var current = ""
        for word in words {
            if word.hasPrefix("-"), !current.isEmpty, current != "curl" {
                lines.append(current)
                current = word
            } else {
                current += current.isEmpty ? word : " " + word
            }
        }
        lines.append(current)
        return lines.joined(separator: " \\\n  ")
    }

    /// `text` as one POSIX shell word: `'…'`, each `'` written as `'\''`. Everything else,
    /// newlines and non-ASCII included, is literal between single quotes in every POSIX shell;
    /// a run of characters a terminal must not get raw (`isSpliced`) is written as
    /// `'"$(printf '\342\200\256')"'`: the quote closed, printf's output for their UTF-8 bytes
    /// in octal (POSIX, the same bytes whatever the locale; a command substitution keeps all
    /// but trailing newlines, and none of these is one), the quote opened again.
    public static func quoted(_ text: String) -> String {
        var out = ""
        var inQuotes = false
        var spliced: [UInt8] = []
        func splice() {
            guard !spliced.isEmpty else { return }
            if inQuotes { out += "'" }
            inQuotes = false
            out += "\"$(printf '" + spliced.map { "\\" + octal($0) }.joined() + "')\""
            spliced = []
        }
        for character in text.unicodeScalars {
            if isSpliced(character) {
                spliced += String(character).utf8
                continue
            }
            splice()
            if !inQuotes { out += "'" }
            inQuotes = true
            if character == "'" { out += "'\\''" } else { out.unicodeScalars.append(character) }
        }
        splice()
        return out.isEmpty ? "''" : inQuotes ? out + "'" : out
    }

    /// `byte` as three octal digits, as printf reads them.
    private static func octal(_ byte: UInt8) -> String {
        String(repeating: "0", count: byte < 0o10 ? 2 : byte < 0o100 ? 1 : 0) + String(byte, radix: 8)
    }

    /// Whether `scalar` goes into a command only through printf (`quoted`): what
    /// `TerminalSafety` keeps from a terminal, but newline and tab, which a command may hold.
    static func isSpliced(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar != "\t" && TerminalSafety.isUnsafe(scalar)
    }
}

/// Why a curl command could not be written.
public enum CurlCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is binary (NUL bytes or not UTF-8) or holds control characters, and no file was
    /// given for it.
    case binaryBodyNeedsFile
    /// The method or a header (`in` names which) holds a control character: RFC 9110 forbids it,
    /// a header holding one injects headers of its own, and a pasted command would run what
    /// follows it. Records are checked when they come in; this one came in before, or from
    /// another program.
    case controlCharacter(in: String)

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .binaryBodyNeedsFile:
            return "the request body is binary; it has to be written to a file for --data-binary @FILE"
        case .controlCharacter(let place):
            return
                "the recorded request's \(place) holds a control character, which no curl command may carry (RFC 9110 forbids it in headers, and pasted into a shell it would end the line); record the request again"
        }
    }
}
