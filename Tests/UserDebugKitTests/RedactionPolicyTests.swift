import Testing

@testable import UserDebugKit

@Test(arguments: [
    ("token", true), ("accessToken", true), ("refresh_token", true), ("X-CSRF-Token", true), ("clientSecret", true),
    ("password", true), ("newPassword", true), ("passwd", true), ("pwd", true), ("apiKey", true), ("api_key", true),
    ("API-KEY", true), ("APIKey", true), ("key", true), ("privateKey", true), ("sessionKey", true),
    ("secret_key", true),
    ("signingKeys", true), ("awsAccessKeyId", true), ("credentials", true), ("sessionId", true), ("auth", true),
    ("jwt", true),
    ("monkey", false), ("keyboardLayout", false), ("keyId", false), ("donkeyKong", false), ("publicKey", false),
    ("primary_key", false), ("sortKey", false), ("idempotencyKey", false), ("tokenType", false), ("token_type", false),
    ("total_tokens", false), ("name", false), ("email", false), ("author", false), ("passage", false), ("", false),
])
func fieldNamesAreJudgedByWordsNotBySubstringsOfKey(_ name: String, _ secret: Bool) {
    #expect(RedactionPolicy.default.isSensitiveField(name) == secret)
}

@Test(arguments: [
    ("Authorization", true), ("proxy-authorization", true), ("COOKIE", true), ("Set-Cookie", true), ("x-api-key", true),
    ("X-Auth-Token", true), ("X-Amz-Security-Token", true), ("Ocp-Apim-Subscription-Key", true),
    ("X-Refresh-Token", true),
    ("Accept", false), ("Content-Type", false), ("Keep-Alive", false), ("Access-Control-Allow-Credentials", false),
    ("Idempotency-Key", false), ("X-Request-Id", false),
])
func headerNamesAreJudgedCaseInsensitively(_ name: String, _ secret: Bool) {
    #expect(RedactionPolicy.default.isSensitiveHeader(name) == secret)
}

@Test func namesAreSplitIntoWords() {
    #expect(RedactionPolicy.words(of: "X-Api-Key") == ["x", "api", "key"])
    #expect(RedactionPolicy.words(of: "APIKey") == ["api", "key"])
    #expect(RedactionPolicy.words(of: "oauth2Token") == ["oauth2", "token"])
    #expect(RedactionPolicy.words(of: "user.session_id") == ["user", "session", "id"])
}
