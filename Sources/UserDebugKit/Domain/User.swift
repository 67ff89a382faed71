/// A user of the app under development: an identifier, a display name, and every other field of
/// the input kept exactly as given (numbers keep their literal text).
public struct User: Sendable, Hashable {
    /// The identifier the backend knows the user by (`identifier`, or `id` / `userId` / `user_id`
    /// / `uid` when the input names it so).
    public var identifier: String
    /// The display name, when the input has one.
    public var name: String?
    /// Every field of the input other than `identifier` and `name`, in input order.
    public var fields: JSONObject

    /// A user. `fields` should not hold `identifier` or `name`: `jsonValue` writes those two
    /// first and would write them twice.
    public init(identifier: String, name: String? = nil, fields: JSONObject = JSONObject()) {
        self.identifier = identifier
        self.name = name
        self.fields = fields
    }

    /// The user as a JSON object in a stable order: `identifier`, `name`, then the other fields
    /// sorted by key (nested objects sorted too when written with `JSONWriter(keyOrder: .sorted)`).
    public var jsonValue: JSONValue {
        var members: [JSONObject.Member] = [JSONObject.Member(key: "identifier", value: .string(identifier))]
        if let name { members.append(JSONObject.Member(key: "name", value: .string(name))) }
        let rest = fields.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        members.append(contentsOf: rest)
        return .object(JSONObject(members))
    }
}
