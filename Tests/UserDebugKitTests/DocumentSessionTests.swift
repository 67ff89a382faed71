import FoundationEssentials
import Testing

@testable import UserDebugKit

private func json(_ text: String) throws -> JSONValue {
    try JSONParser().parse(text)
}

private func sessionError(_ text: String, defaultName: String = "default") throws -> DocumentError? {
    let value = try json(text)
    do {
        _ = try SessionDocument.decode(value, defaultName: defaultName)
        return nil
    } catch {
        return error
    }
}

private let fixedNow = Date(timeIntervalSince1970: 1_709_284_502.123)

@Test func aFullSessionDocumentKeepsEveryUserFieldInOrder() throws {
    let session = try SessionDocument.decode(
        json(
            """
            {"name": "staging", "user": {"plan": "pro", "identifier": "usr_1", "name": "Zoë", "age": 1.50},
             "token": "tok-123456", "baseURL": "https://api.staging.example", "environment": "staging", "extra": 1}
            """), defaultName: "ignored", now: fixedNow)
    #expect(session.name == "staging")
    #expect(session.user.identifier == "usr_1")
    #expect(session.user.name == "Zoë")
    #expect(session.user.fields == JSONObject(["plan": .string("pro"), "age": .number("1.50")]))
    #expect(session.token == "tok-123456")
    #expect(session.baseURL == "https://api.staging.example")
    #expect(session.environment == "staging")
    #expect(session.createdAt == fixedNow && session.updatedAt == fixedNow)
}

@Test func aBareUserIsASessionNamedByTheCaller() throws {
    let session = try SessionDocument.decode(
        json(#"{"id": 42, "displayName": "Al", "token": "t"}"#), defaultName: "local")
    #expect(session.name == "local")
    #expect(session.user.identifier == "42")
    #expect(session.user.name == "Al")
    #expect(session.token == nil)
    #expect(session.user.fields.keys == ["id", "displayName", "token"])
}

struct AliasCase: Sendable, CustomTestStringConvertible {
    let json: String
    let identifier: String
    let name: String?
    var testDescription: String { json }
}

@Test(arguments: [
    AliasCase(json: #"{"identifier": "a", "id": "b"}"#, identifier: "a", name: nil),
    AliasCase(json: #"{"id": "b", "userId": "c"}"#, identifier: "b", name: nil),
    AliasCase(json: #"{"userId": "c", "user_id": "d"}"#, identifier: "c", name: nil),
    AliasCase(json: #"{"user_id": "d", "uid": "e"}"#, identifier: "d", name: nil),
    AliasCase(json: #"{"uid": 7}"#, identifier: "7", name: nil),
    AliasCase(json: #"{"id": 18446744073709551616}"#, identifier: "18446744073709551616", name: nil),
    AliasCase(json: #"{"id": -3}"#, identifier: "-3", name: nil),
    AliasCase(json: #"{"identifier": null, "id": "x"}"#, identifier: "x", name: nil),
    AliasCase(json: #"{"id": "x", "name": "N", "displayName": "D"}"#, identifier: "x", name: "N"),
    AliasCase(json: #"{"id": "x", "displayName": "D", "username": "U"}"#, identifier: "x", name: "D"),
    AliasCase(json: #"{"id": "x", "username": "U"}"#, identifier: "x", name: "U"),
    AliasCase(json: #"{"id": "x", "name": null, "username": "U"}"#, identifier: "x", name: "U"),
])
func everyIdentifierAndNameAliasIsRead(_ alias: AliasCase) throws {
    let user = try SessionDocument.decode(json(alias.json), defaultName: "d").user
    #expect(user.identifier == alias.identifier)
    #expect(user.name == alias.name)
    #expect(!user.fields.keys.contains("identifier") && !user.fields.keys.contains("name"))
}

@Test(arguments: [
    (#"{"user": {"id": 1}, "accessToken": "A"}"#, "A"),
    (#"{"user": {"id": 1}, "access_token": "B"}"#, "B"),
    (#"{"user": {"id": 1}, "authToken": "C"}"#, "C"),
    (#"{"user": {"id": 1}, "token": "T", "accessToken": "A"}"#, "T"),
])
func tokenAliasesAreRead(_ text: String, _ token: String) throws {
    #expect(try SessionDocument.decode(json(text), defaultName: "d").token == token)
}

@Test func baseURLAndEnvironmentAliasesAreRead() throws {
    let a = try SessionDocument.decode(json(#"{"user": {"id": 1}, "baseUrl": "u1", "env": "e1"}"#), defaultName: "d")
    let b = try SessionDocument.decode(
        json(#"{"user": {"id": 1}, "base_url": "u2", "environment": "e2", "env": "x"}"#), defaultName: "d")
    #expect((a.baseURL, a.environment, b.baseURL, b.environment) == ("u1", "e1", "u2", "e2"))
}

struct BadSession: Sendable, CustomTestStringConvertible {
    let json: String
    let path: String
    let fragment: String
    var testDescription: String { "\(path): \(fragment)" }
}

@Test(arguments: [
    BadSession(json: #"[1]"#, path: "$", fragment: "expected an object, got an array"),
    BadSession(json: #"{"name": "x"}"#, path: "$", fragment: "missing \"user\""),
    BadSession(json: #"{"user": "usr_1"}"#, path: "$.user", fragment: "expected an object, got a string"),
    BadSession(json: #"{"user": {"name": "Zoë"}}"#, path: "$.user", fragment: "missing \"identifier\""),
    BadSession(json: #"{"user": {"identifier": ""}}"#, path: "$.user.identifier", fragment: "empty"),
    BadSession(
        json: #"{"user": {"identifier": true}}"#, path: "$.user.identifier",
        fragment: "expected a string or an integer, got a boolean"),
    BadSession(json: #"{"user": {"id": 1.5}}"#, path: "$.user.id", fragment: "got the number 1.5"),
    BadSession(
        json: #"{"user": {"id": 1, "name": 3}}"#, path: "$.user.name", fragment: "expected a string, got a number"),
    BadSession(
        json: #"{"user": {"id": 1, "displayName": []}}"#, path: "$.user.displayName", fragment: "expected a string"),
    BadSession(json: #"{"user": {"id": 1}, "token": 5}"#, path: "$.token", fragment: "expected a string, got a number"),
    BadSession(
        json: #"{"user": {"id": 1}, "accessToken": {}}"#, path: "$.accessToken",
        fragment: "expected a string, got an object"),
    BadSession(json: #"{"user": {"id": 1}, "baseURL": false}"#, path: "$.baseURL", fragment: "expected a string"),
    BadSession(json: #"{"user": {"id": 1}, "name": 1}"#, path: "$.name", fragment: "expected a string"),
    BadSession(json: #"{"user": {"id": 1}, "name": ""}"#, path: "$.name", fragment: "the session name is empty"),
    BadSession(json: #"{"user": {"id": 1}, "name": "a\u001bb"}"#, path: "$.name", fragment: "control character"),
    BadSession(json: #"{"user": {"id": 1}, "name": "a\u202eb"}"#, path: "$.name", fragment: "control character"),
    BadSession(json: #"{"user": {"id": 1}, "name": "--all"}"#, path: "$.name", fragment: "must not start with '-'"),
    BadSession(
        json: "{\"user\": {\"id\": 1}, \"name\": \"\(String(repeating: "n", count: 129))\"}", path: "$.name",
        fragment: "longer than 128"),
    BadSession(json: #"{"user": {"id": 1}, "createdAt": "yesterday"}"#, path: "$.createdAt", fragment: "ISO 8601"),
])
func badSessionsAreRefusedNamingThePath(_ bad: BadSession) throws {
    let error = try #require(try sessionError(bad.json))
    #expect(error.path == bad.path, "\(error)")
    #expect(error.message.contains(bad.fragment), "\(error)")
}

@Test func aBadDefaultNameIsRefusedToo() throws {
    #expect(
        try sessionError(#"{"id": 1}"#, defaultName: "-x")?.description
            == "at $.name: the session name must not start with '-'")
}

@Test func theErrorDescriptionNamesThePath() throws {
    #expect(try sessionError(#"{"user": {}}"#)?.description == #"at $.user: missing "identifier""#)
}

@Test func keysThatAreNotIdentifiersAreQuotedInPaths() {
    #expect(DocumentPath.appending("content-type", to: "$") == #"$["content-type"]"#)
    #expect(DocumentPath.appending("user_id", to: "$.user") == "$.user.user_id")
    #expect(DocumentPath.appending(index: 3, to: "$.log.entries") == "$.log.entries[3]")
}

@Test func encodingHidesTheTokenUnlessRevealed() throws {
    let session = Session(
        name: "staging",
        user: User(
            identifier: "usr_1", name: "Zoë",
            fields: JSONObject(["zeta": .number("1"), "password": .string("pw-secret")])),
        token: "tok-123456", createdAt: try #require(ISO8601.parse("2024-03-01T09:15:02.123Z"))
    )
    let hidden = JSONWriter().string(SessionDocument.encode(session, reveal: false, isCurrent: true))
    #expect(
        hidden
            == #"{"name":"staging","current":true,"environment":null,"baseURL":null,"token":"[redacted]","user":{"identifier":"usr_1","name":"Zoë","password":"[redacted]","zeta":1},"createdAt":"2024-03-01T09:15:02.123Z","updatedAt":"2024-03-01T09:15:02.123Z"}"#
    )
    let shown = JSONWriter().string(SessionDocument.encode(session, reveal: true, isCurrent: nil))
    #expect(shown.contains(#""token":"tok-123456""#) && shown.contains("pw-secret") && !shown.contains("current"))
    let none = SessionDocument.encode(Session(name: "n", user: User(identifier: "i")), reveal: false, isCurrent: nil)
    #expect(none["token"] == .null)
}

@Test func aRevealedSessionRoundTrips() throws {
    let updatedAt = try #require(ISO8601.parse("2024-02-03T04:05:06.789Z"))
    let session = Session(
        name: "alice@prod",
        user: User(
            identifier: "42", name: "Alice", fields: JSONObject(["id": .number("42"), "tags": .array([.string("a")])])),
        token: "tok-123456", baseURL: "https://api.example", environment: "prod",
        createdAt: try #require(ISO8601.parse("2024-01-02T03:04:05.678Z")),
        updatedAt: updatedAt
    )
    let text = JSONWriter().string(SessionDocument.encode(session, reveal: true, isCurrent: false))
    #expect(try SessionDocument.decode(json(text), defaultName: "x") == session)
}

@Test func reimportingARedactedExportDoesNotStoreThePlaceholderAsAToken() throws {
    let text = JSONWriter().string(
        SessionDocument.encode(
            Session(name: "n", user: User(identifier: "i"), token: "tok-123456"), reveal: false, isCurrent: nil))
    #expect(try SessionDocument.decode(json(text), defaultName: "x").token == nil)
}
