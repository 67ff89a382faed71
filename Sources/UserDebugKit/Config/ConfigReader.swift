/// Typed reading of config values with errors that carry the file, line, column and dotted key.
/// Positions come from the parser's source map, so validation can happen after parsing; the map
/// is made only for an error, by parsing `bytes` again: recording every member's place costs a
/// config that is right a third of a `copy-id`'s instructions (the first dictionary of its kind).
struct ConfigReader {
    let file: String
    /// The text that parsed, which the source map is made from.
    let bytes: [UInt8]

    var sourceMap: JSONSourceMap {
        (try? JSONParser(allowsComments: true).parseWithSourceMap(bytes))?.sourceMap
            ?? JSONSourceMap(bytes: bytes, locations: [:])
    }

    func error(_ key: String?, _ message: String, atKey: Bool = false) -> ConfigError {
        let sourceMap = key == nil ? nil : self.sourceMap
        let position = key.flatMap { atKey ? sourceMap?.keyPosition(of: $0) : sourceMap?.valuePosition(of: $0) }
        return ConfigError(file: file, line: position?.line, column: position?.column, key: key, message: message)
    }

    func path(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : parent + "." + key
    }

    /// The members of an object, refusing any key not in `known` (a typo must not pass silently).
    func members(_ value: JSONValue, at key: String, known: [String]) throws(ConfigError) -> JSONObject {
        guard let object = value.objectValue else {
            throw error(key.isEmpty ? nil : key, "expected an object, got \(value.kindName)")
        }
        for member in object.members where !known.contains(member.key) {
            var message = "unknown key \"\(member.key)\""
            if let suggestion = ConfigReader.closest(to: member.key, in: known) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            throw error(path(key, member.key), message, atKey: true)
        }
        return object
    }

    /// A positive integer; `null` is nil when `allowsNull` (meaning "no limit").
    func positiveInteger(_ value: JSONValue, at key: String, allowsNull: Bool) throws(ConfigError) -> Int? {
        let expected = allowsNull ? "a positive integer or null" : "a positive integer"
        switch value {
        case .null where allowsNull:
            return nil
        case .number(let literal):
            guard let number = Int(literal), number > 0 else {
                throw error(key, "expected \(expected), got \(literal)")
            }
            return number
        default:
            throw error(key, "expected \(expected), got \(value.kindName)")
        }
    }

    /// A positive, finite number of seconds (fractions allowed: `0.5`).
    func positiveSeconds(_ value: JSONValue, at key: String, allowsNull: Bool) throws(ConfigError) -> Double? {
        let expected = allowsNull ? "a positive number of seconds or null" : "a positive number of seconds"
        switch value {
        case .null where allowsNull:
            return nil
        case .number(let literal):
            guard let seconds = Double(literal), seconds.isFinite, seconds > 0 else {
                throw error(key, "expected \(expected), got \(literal)")
            }
            return seconds
        default:
            throw error(key, "expected \(expected), got \(value.kindName)")
        }
    }

    /// `true` or `false`.
    func flag(_ value: JSONValue, at key: String) throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else { throw error(key, "expected true or false, got \(value.kindName)") }
        return flag
    }

    /// One of a fixed set of words.
    func choice<Choice: RawRepresentable & CaseIterable>(_ value: JSONValue, at key: String, as type: Choice.Type)
        throws(ConfigError) -> Choice
    where Choice.RawValue == String {
        // The list of names only for the error: the first `joined` in a process is a sixth of a
        // `copy-id`'s instructions (generic metadata made at first use).
        func names() -> String { Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }
        guard let text = value.stringValue else {
            throw error(key, "expected one of \(names()), got \(value.kindName)")
        }
        guard let choice = Choice(rawValue: text) else {
            throw error(key, "expected one of \(names()), got \"\(text)\"")
        }
        return choice
    }

    /// An array of non-empty strings.
    func names(_ value: JSONValue, at key: String) throws(ConfigError) -> [String] {
        guard let elements = value.arrayValue else {
            throw error(key, "expected an array of strings, got \(value.kindName)")
        }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
            let elementKey = key + "[\(index)]"
            guard let name = element.stringValue else {
                throw error(elementKey, "expected a string, got \(element.kindName)")
            }
            guard !name.isEmpty else { throw error(elementKey, "expected a name, got an empty string") }
            names.append(name)
        }
        return names
    }

    /// The known key within edit distance 2 of a misspelt one, for a "did you mean" hint.
    static func closest(to key: String, in known: [String]) -> String? {
        let candidates = known.map { ($0, distance(Array(key.lowercased()), Array($0.lowercased()))) }
        guard let best = candidates.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1]
            for (j, right) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
