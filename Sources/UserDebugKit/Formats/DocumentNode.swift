/// A JSON value together with its path, so that every "wrong kind" or "missing" error names the
/// exact place without each reader threading paths by hand.
///
/// Readers treat `null` like an absent member for optional fields: producers (HAR exporters
/// especially) write `"redirectURL": null` or `"comment": null` for "nothing here".
struct DocumentNode {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String = "$") {
        self.value = value
        self.path = path
    }

    func error(_ message: String) -> DocumentError {
        DocumentError(path: path, message: message)
    }

    func wrongKind(expected: String) -> DocumentError {
        error("expected \(expected), got \(value.kindName)")
    }

    /// The members, or an error naming what this was instead.
    func object() throws(DocumentError) -> JSONObject {
        guard let object = value.objectValue else { throw wrongKind(expected: "an object") }
        return object
    }

    func array() throws(DocumentError) -> [DocumentNode] {
        guard let elements = value.arrayValue else { throw wrongKind(expected: "an array") }
        return elements.enumerated().map {
            DocumentNode($0.element, path: DocumentPath.appending(index: $0.offset, to: path))
        }
    }

    func string() throws(DocumentError) -> String {
        guard let text = value.stringValue else { throw wrongKind(expected: "a string") }
        return text
    }

    /// The member `key`, nil when absent or `null`.
    func member(_ key: String) -> DocumentNode? {
        guard let child = value[key] else { return nil }
        if case .null = child { return nil }
        return DocumentNode(child, path: DocumentPath.appending(key, to: path))
    }

    /// The first member present (and not null) among `keys`, in preference order.
    func firstMember(_ keys: [String]) -> (key: String, node: DocumentNode)? {
        for key in keys {
            if let node = member(key) { return (key, node) }
        }
        return nil
    }

    /// Whether the member exists at all, even as `null`.
    func has(_ key: String) -> Bool {
        value[key] != nil
    }

    func requiredMember(_ key: String) throws(DocumentError) -> DocumentNode {
        guard let node = member(key) else { throw error("missing \"\(key)\"") }
        return node
    }

    func optionalString(_ key: String) throws(DocumentError) -> String? {
        try member(key)?.string()
    }

    /// An integer from a number literal without fraction or exponent (`200`, not `200.0`).
    func integer() throws(DocumentError) -> Int {
        guard case .number(let literal) = value else { throw wrongKind(expected: "an integer") }
        guard let number = Int(literal) else { throw error("expected an integer, got \(literal)") }
        return number
    }

    /// Any JSON number, or a string holding one (some HAR producers quote their timings).
    func lenientDouble() throws(DocumentError) -> Double {
        switch value {
        case .number(let literal):
            if let number = Double(literal), number.isFinite { return number }
        case .string(let text):
            if let number = Double(text), number.isFinite { return number }
        default:
            break
        }
        throw wrongKind(expected: "a number")
    }
}
