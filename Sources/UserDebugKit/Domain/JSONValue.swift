/// A JSON value kept exactly as it was given: numbers keep their literal text (so `1.50` and
/// 64-bit identifiers survive a round trip) and object members keep their order and duplicates
/// are rejected by the parser.
public enum JSONValue: Sendable, Hashable {
    /// `null`: a value, unlike an absent member (document readers treat the two alike).
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number's literal text, as validated by the parser (RFC 8259 grammar).
    case number(String)
    /// A string's text with its escapes decoded; `JSONWriter` escapes it again.
    case string(String)
    /// The elements in order.
    case array([JSONValue])
    /// The members in order (see `JSONObject`).
    case object(JSONObject)

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The text of a string, or the literal of a number or boolean; nil for null, arrays and objects.
    public var scalarText: String? {
        switch self {
        case .string(let text): return text
        case .number(let literal): return literal
        case .bool(let flag): return flag ? "true" : "false"
        case .null, .array, .object: return nil
        }
    }

    /// The string when this is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The object when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object whose members keep the order they were given in.
public struct JSONObject: Sendable, Hashable {
    /// One `"key": value` member.
    public struct Member: Sendable, Hashable {
        /// The key, escapes decoded. The parser refuses an object that repeats one; an object
        /// built by hand is not checked.
        public var key: String
        /// The value; `null` is kept as a value, so a member set to `null` is still present.
        public var value: JSONValue

        /// A member; nothing checks that `key` is unique in the object it joins.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in their given order.
    public var members: [Member]

    /// An object of these members in this order; their keys are not checked for repeats.
    public init(_ members: [Member] = []) {
        self.members = members
    }

    /// An object from key/value pairs, in the order given.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.members = pairs.map { Member(key: $0.key, value: $0.value) }
    }

    /// The value of the first member named `key`.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// Whether there are no members.
    public var isEmpty: Bool { members.isEmpty }
}
