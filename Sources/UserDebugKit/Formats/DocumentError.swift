/// Why a well-formed JSON document was refused as a session or a response, and where: a JSON
/// path such as `$.user.identifier` or `$.log.entries[3].request`. JSON syntax errors are
/// `JSONParseError`s; this is what comes after the syntax was fine.
public struct DocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of the offending value (`$` is the whole document).
    public var path: String
    /// What is wrong there, e.g. `missing "identifier"`.
    public var message: String

    /// An error at `path`, spelled as the document readers spell paths: `$`, `$.user`,
    /// `$["content-type"]`, `$.log.entries[3]`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `at $.user: missing "identifier"`.
    public var description: String { "at \(path): \(message)" }
}

/// JSON path spelling shared by every document reader, so error paths look the same everywhere.
enum DocumentPath {
    /// `$.name` for plain identifiers, `$["content-type"]` for anything else, so that a path can
    /// always be pasted into jq (`jq '.["content-type"]'`) without guessing how it was meant.
    static func appending(_ key: String, to path: String) -> String {
        if isPlainIdentifier(key) { return path + "." + key }
        var quoted = ""
        JSONWriter.appendQuoted(key, to: &quoted)
        return path + "[" + quoted + "]"
    }

    /// `$.entries[3]`.
    static func appending(index: Int, to path: String) -> String {
        path + "[\(index)]"
    }

    private static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }
}
