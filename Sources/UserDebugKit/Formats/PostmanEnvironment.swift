/// A session as a Postman environment: `baseUrl`, `userId`, `userName` and `authToken` (typed
/// `secret`), the variables `PostmanCollection` puts in its requests. Postman imports it and
/// `newman run … -e FILE` uses it.
///
/// A value that is off — missing from the session, or the token when it is not revealed — is
/// written with both `"enabled": false` (what Postman writes and reads, and what
/// postman-runner reads) and `"disabled": true` (what newman reads: it ignores `enabled` and
/// would use the value anyway), so every consumer leaves the variable unresolved instead of
/// sending a placeholder as if it were the token.
public enum PostmanEnvironment {
    /// The session's base URL: a collection URL that started with it starts with `{{baseUrl}}`
    /// instead. The four variables are written in the order of these declarations.
    public static let baseURLKey = "baseUrl"
    /// The user's identifier, standing for it in whole path segments, query values, header values
    /// and JSON strings of a collection.
    public static let userIDKey = "userId"
    /// The user's display name, for the user's own requests; the exported collection uses none.
    public static let userNameKey = "userName"
    /// The session's token, typed `secret`; every collection request sends
    /// `Authorization: Bearer {{authToken}}`.
    public static let tokenKey = "authToken"

    /// The environment of `session`; the real token only when `revealToken` (else
    /// `Redacted.placeholder`, disabled). Other values are written as the session has them.
    public static func encode(_ session: Session, revealToken: Bool, exporterVersion: String) -> JSONValue {
        let token: (String, Bool)
        if let value = session.token, !value.isEmpty {
            token = revealToken ? (value, true) : (Redacted.placeholder, false)
        } else {
            token = ("", false)
        }
        let values: [JSONValue] = [
            variable(baseURLKey, session.baseURL ?? "", type: "default", enabled: !(session.baseURL ?? "").isEmpty),
            variable(userIDKey, session.user.identifier, type: "default", enabled: !session.user.identifier.isEmpty),
            variable(
                userNameKey, session.user.name ?? "", type: "default", enabled: !(session.user.name ?? "").isEmpty),
            variable(tokenKey, token.0, type: "secret", enabled: token.1),
        ]
        return .object(
            JSONObject([
                "id": .string(PostmanID.uuid(for: "environment:" + session.name)),
                "name": .string("userdebug \(session.name)"),
                "values": .array(values),
                "_postman_variable_scope": .string("environment"),
                "_postman_exported_using": .string("userdebug/\(exporterVersion)"),
            ]))
    }

    private static func variable(_ key: String, _ value: String, type: String, enabled: Bool) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "key", value: .string(key)),
            .init(key: "value", value: .string(value)),
            .init(key: "type", value: .string(type)),
            .init(key: "enabled", value: .bool(enabled)),
        ]
        if !enabled { members.append(.init(key: "disabled", value: .bool(true))) }
        return .object(JSONObject(members))
    }
}

/// Stable identifiers for exported Postman documents: the same session always gives the same
/// id, so a re-import replaces the earlier one instead of piling up copies, and output does not
/// change from run to run.
enum PostmanID {
    /// A UUID-shaped (version 8, "custom") identifier derived from `text` with two FNV-1a hashes.
    static func uuid(for text: String) -> String {
        let high = fnv1a(Array(text.utf8), seed: 0xcbf2_9ce4_8422_2325)
        let low = fnv1a(Array(text.utf8), seed: 0x8422_2325_cbf2_9ce4)
        var bytes: [UInt8] =
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte -> String in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }
        return hex[0..<4].joined() + "-" + hex[4..<6].joined() + "-" + hex[6..<8].joined() + "-"
            + hex[8..<10].joined() + "-" + hex[10..<16].joined()
    }

    private static func fnv1a(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
