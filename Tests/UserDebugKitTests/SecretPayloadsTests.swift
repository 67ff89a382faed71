import Testing

@testable import UserDebugKit

/// The secret decision every action's payload goes through (`DebugAction.perform`), and the JWT
/// shape it looks for.
@Suite struct SecretPayloadsTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"

    @Test(arguments: [
        (#"{"data":"\#(jwt)"}"#, true),
        ("Bearer \(jwt)", true),
        ("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", true),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0", false),
        ("xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", false),
        ("eyJ.a.b", false),
        ("usr_8f14e45f", false),
    ])
    func aJWTIsFoundByItsShape(_ text: String, _ found: Bool) {
        #expect(!JWTShape.ranges(in: Array(text.utf8)).isEmpty == found, "\(text)")
    }

    func perform(_ payload: Payload, declared: Bool = false, reveal: Bool) throws -> Payload {
        try DebugAction(id: "a", title: "A", isSecret: declared) { _ in payload }
            .perform(in: ActionFixtures.context(reveal: reveal))
    }

    @Test func anUndeclaredTokenOrJWTIsRedactedUnlessRevealedAndThenMarked() throws {
        for text in ["t=\(ActionFixtures.token)", "refresh \(Self.jwt) end"] {
            let hidden = try perform(Payload(text: text), reveal: false)
            #expect(!hidden.isSecret && String(decoding: hidden.bytes, as: UTF8.self).contains("[redacted]"))
            #expect(!String(decoding: hidden.bytes, as: UTF8.self).contains(ActionFixtures.token))
            #expect(!String(decoding: hidden.bytes, as: UTF8.self).contains(Self.jwt))
            let shown = try perform(Payload(text: text), reveal: true)
            #expect(shown.isSecret && shown.bytes == Array(text.utf8))
        }
    }

    @Test func aRevealedJSONPayloadWithASecretMemberIsMarked() throws {
        #expect(try perform(Payload(text: #"{"apiKey":"ak-1234567"}"#, kind: .json), reveal: true).isSecret)
        #expect(!(try perform(Payload(text: #"{"plan":"pro"}"#, kind: .json), reveal: true).isSecret))
    }

    @Test func aDeclaredSecretAndAnOrdinaryPayloadPassUnchanged() throws {
        let token = try perform(Payload(text: ActionFixtures.token), declared: true, reveal: false)
        #expect(token.isSecret && token.bytes == Array(ActionFixtures.token.utf8))
        let plain = try perform(Payload(text: "usr_1"), reveal: false)
        #expect(!plain.isSecret && plain.bytes == Array("usr_1".utf8))
    }

    @Test func anActionThatNeedsRevealGivesThePlaceholderWithoutRunning() throws {
        let action = DebugAction(id: "f", title: "F", needsReveal: true) { _ in Payload(text: "s3cr3t-value") }
        #expect(try action.perform(in: ActionFixtures.context(reveal: false)) == Payload(text: "[redacted]"))
        let revealed = try action.perform(in: ActionFixtures.context(reveal: true))
        #expect(revealed.isSecret && revealed.bytes == Array("s3cr3t-value".utf8) && action.isSecret)
    }
}
