/// A path to one value inside a JSON document, in the small subset of JSONPath that names a
/// single value: `$`, then any number of `.name`, `["name"]` and `[index]` steps, e.g.
/// `$.data.user`, `$.items[0].token`, `$["user-info"]`. Used by login rules to find the user and
/// the token in a login response.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step from a value to one of its members or elements.
    public enum Step: Sendable, Hashable {
        /// An object's member by name.
        case member(String)
        /// An array's element by 0-based index.
        case element(Int)
    }

    /// The steps from the document's root, in order.
    public var steps: [Step]
    /// The path as written.
    public let description: String

    /// Parses `text`.
    /// - Throws: `DocumentError` naming what is wrong (at `text`), e.g. a missing `$` or an
    ///   unclosed `[`.
    public init(_ text: String) throws(DocumentError) {
        description = text
        var rest = Substring(text)
        guard rest.first == "$" else { throw DocumentError(path: text, message: "a JSON path starts with \"$\"") }
        rest = rest.dropFirst()
        var steps: [Step] = []
        while let first = rest.first {
            if first == "." {
                let name = rest.dropFirst().prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty else {
                    throw DocumentError(path: text, message: "an empty member name after \".\"")
                }
                steps.append(.member(String(name)))
                rest = rest.dropFirst(1 + name.count)
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else {
                    throw DocumentError(path: text, message: "\"[\" without \"]\"")
                }
                steps.append(try Self.bracketStep(rest[rest.index(after: rest.startIndex)..<close], in: text))
                rest = rest[rest.index(after: close)...]
            } else {
                throw DocumentError(path: text, message: "expected \".\" or \"[\" at \"\(rest)\"")
            }
        }
        self.steps = steps
    }

    /// `[0]` or `["name"]` (or `['name']`); a name in quotes may hold `.`, `[` and `-`.
    private static func bracketStep(_ inside: Substring, in text: String) throws(DocumentError) -> Step {
        if let quote = inside.first, quote == "\"" || quote == "'", inside.count >= 2, inside.last == quote {
            return .member(String(inside.dropFirst().dropLast()))
        }
        guard let index = Int(inside), index >= 0 else {
            throw DocumentError(path: text, message: "expected an index or a quoted name in [], got \"\(inside)\"")
        }
        return .element(index)
    }

    /// The value at this path in `root`, nil when a step finds nothing (a missing member, an
    /// index past the end, or a step into a value of the wrong kind).
    public func value(in root: JSONValue) -> JSONValue? {
        var value = root
        for step in steps {
            switch step {
            case .member(let name):
                guard let member = value.objectValue?[name] else { return nil }
                value = member
            case .element(let index):
                guard let elements = value.arrayValue, index < elements.count else { return nil }
                value = elements[index]
            }
        }
        return value
    }
}
