import Testing

@testable import UserDebugKit

private let canary = "canary-7f3a9c"

private func text(_ response: BackendResponse) -> String {
    JSONWriter().string(ResponseDocument.encode(response))
}

private let leakyRequestBody = """
    {
      "data": {"items": [ {"name": "x", "refreshToken": "\(canary)"}, {"name": "y", "credentials": {"user": "u", "pin": 1234}} ]},
      "note":   "echo \(canary) here",
      "passwordSet": true, "token": null, "id_token": "",
      "count": 1.50
    }
    """

private let leakyResponse = BackendResponse(
    request: BackendRequest(
        method: "POST",
        url:
            "https://alice:\(canary)@api.example.com/v1/\(canary)/me?access_token=\(canary)&page=2&API_KEY=k1&Sig=s#id_token=\(canary)&state=ok",
        headers: [
            HTTPHeader(name: "AUTHORIZATION", value: "Bearer \(canary)"),
            HTTPHeader(name: "x-Api-Key", value: canary),
            HTTPHeader(name: "Cookie", value: "sid=\(canary); theme=dark"),
            HTTPHeader(name: "X-Echo", value: "prefix \(canary) suffix"),
            HTTPHeader(name: "X-Session-Token", value: canary),
            HTTPHeader(name: "Accept", value: "application/json"),
        ],
        body: Array(leakyRequestBody.utf8)
    ),
    status: 200,
    headers: [
        HTTPHeader(name: "set-cookie", value: "sid=\(canary); Path=/; HttpOnly"),
        HTTPHeader(name: "Location", value: "https://app.example.com/cb?code=\(canary)&next=%2Fhome"),
        HTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded"),
    ],
    body: Array("access_token=\(canary)&token_type=bearer&expires_in=3600".utf8)
)

@Test func theCanaryTokenAppearsNowhereAfterRedaction() {
    let redacted = Redactor(knownSecrets: [canary]).redact(leakyResponse)
    #expect(!text(redacted).contains(canary))
    #expect(!text(redacted).contains("k1") && !text(redacted).contains("1234"))
}

@Test func aResponseEchoingTheSessionTokenIsCaughtEvenWithoutASecretLookingName() {
    let redacted = Redactor(knownSecrets: [canary]).redact(leakyResponse)
    #expect(redacted.request.headers[3].value == "prefix [redacted] suffix")
    #expect(redacted.request.url.contains("/v1/[redacted]/me"))
}

@Test func headersKeepWhatIsWorthDebugging() {
    let headers = Redactor().redactHeaders(leakyResponse.request.headers + leakyResponse.headers)
    #expect(
        headers.map(\.value) == [
            "Bearer [redacted]", "[redacted]", "sid=[redacted]; theme=[redacted]", "prefix \(canary) suffix",
            "[redacted]",
            "application/json", "sid=[redacted]; Path=/; HttpOnly",
            "https://app.example.com/cb?code=%5Bredacted%5D&next=%2Fhome",
            "application/x-www-form-urlencoded",
        ])
    #expect(headers.map(\.name) == (leakyResponse.request.headers + leakyResponse.headers).map(\.name))
}

@Test(arguments: [
    ("https://alice:pw@host/p?q=1", "https://alice:%5Bredacted%5D@host/p?q=1"),
    ("https://token@host/", "https://token@host/"),
    (
        "https://host/p?access_token=a&page=2&api_key=b#frag",
        "https://host/p?access_token=%5Bredacted%5D&page=2&api_key=%5Bredacted%5D#frag"
    ),
    ("https://host/p?acc%65ss_token=a&x", "https://host/p?acc%65ss_token=%5Bredacted%5D&x"),
    (
        "https://host/cb#access_token=a&token_type=bearer",
        "https://host/cb#access_token=%5Bredacted%5D&token_type=bearer"
    ),
    ("/next?to=https://evil@x.example&sessionToken=t", "/next?to=https://evil@x.example&sessionToken=%5Bredacted%5D"),
    ("https://host/p?token=&monkey=1&keyboardLayout=de", "https://host/p?token=&monkey=1&keyboardLayout=de"),
])
func urlsLoseOnlyTheirSecrets(_ url: String, _ expected: String) {
    #expect(Redactor().redactURL(url) == expected)
}

@Test func aJSONBodyKeepsEveryByteExceptTheSecretValues() {
    let body = Redactor().redactBody(Array(leakyRequestBody.utf8), contentType: "application/json")
    #expect(
        String(decoding: body, as: UTF8.self) == """
            {
              "data": {"items": [ {"name": "x", "refreshToken": "[redacted]"}, {"name": "y", "credentials": "[redacted]"} ]},
              "note":   "echo \(canary) here",
              "passwordSet": true, "token": null, "id_token": "",
              "count": 1.50
            }
            """)
}

@Test func aBodyWithoutSecretsIsReturnedByteForByte() {
    let bodies = [
        "{\n  \"a\" : 1.0e0, \"b\": [\"\\u00e9\", {\"keyboardLayout\": \"de\"}]\n}",
        "plain text with = and & signs",
        "page=2&monkey=banana",
        "[1, 2",
    ]
    for body in bodies {
        #expect(Redactor(knownSecrets: [canary]).redactBody(Array(body.utf8), contentType: nil) == Array(body.utf8))
    }
    let binary: [UInt8] = [0xFF, 0x00, 0x7B, 0x22]
    #expect(Redactor().redactBody(binary, contentType: "application/octet-stream") == binary)
}

@Test func formBodiesAreRedactedByFieldName() {
    let body = Array("grant_type=password&password=hunter2&client_secret=s3&username=zoe".utf8)
    let redacted = Redactor().redactBody(body, contentType: "application/x-www-form-urlencoded; charset=utf-8")
    #expect(
        String(decoding: redacted, as: UTF8.self)
            == "grant_type=password&password=%5Bredacted%5D&client_secret=%5Bredacted%5D&username=zoe")
}

@Test func escapedKeysCannotSneakASecretPast() {
    let body = Array(#"{"pass\u0077ord": "hunter2", "a": "b"}"#.utf8)
    #expect(
        String(decoding: Redactor().redactBody(body, contentType: nil), as: UTF8.self)
            == #"{"pass\u0077ord": "[redacted]", "a": "b"}"#)
}

@Test func aDeeplyNestedBodyIsScannedWithoutRecursion() {
    let depth = 100_000
    let body = Array(
        (String(repeating: "[", count: depth) + "{\"token\": \"t\"}" + String(repeating: "]", count: depth)).utf8)
    let redacted = Redactor().redactBody(body, contentType: "application/json")
    #expect(redacted.count == body.count + Redactor.placeholder.utf8.count - 1)
}

@Test func aSessionLosesItsTokenAndSecretLookingUserFields() {
    let user = User(
        identifier: "usr_1", name: "Zoë",
        fields: JSONObject([
            "password": .string(canary),
            "profile": .object(JSONObject(["apiKey": .string("k"), "bio": .string("token is \(canary)")])),
            "monkey": .string("banana"), "keyboardLayout": .string("de"), "age": .number("30"),
        ]))
    let session = Session(name: "s", user: user, token: canary, baseURL: "https://u:p@api.example")
    let redacted = Redactor().redact(session)
    #expect(redacted.token == Redactor.placeholder)
    #expect(
        redacted.user.fields
            == JSONObject([
                "password": .string("[redacted]"),
                "profile": .object(
                    JSONObject(["apiKey": .string("[redacted]"), "bio": .string("token is [redacted]")])),
                "monkey": .string("banana"), "keyboardLayout": .string("de"), "age": .number("30"),
            ]))
    #expect(redacted.baseURL == "https://u:%5Bredacted%5D@api.example")
    #expect(redacted.user.identifier == "usr_1" && redacted.user.name == "Zoë")
}

@Test func shortKnownSecretsAreNotSearchedFor() {
    #expect(Redactor(knownSecrets: ["ab", ""]).replacingKnownSecrets(in: "abc ab") == "abc ab")
    #expect(Redactor(knownSecrets: [canary]).containsKnownSecret(Array("x\(canary)y".utf8)))
    #expect(!Redactor(knownSecrets: [canary]).containsKnownSecret(Array("canary-7f3a9".utf8)))
}

@Test func configuredNamesAddToTheDefaultPolicy() {
    let policy = RedactionPolicy.default.adding(
        headerNames: ["X-Internal"], fieldNames: ["ssn", "tokenType"], queryParameters: ["tenant"])
    #expect(policy.isSensitiveHeader("x-internal") && policy.isSensitiveHeader("Authorization"))
    #expect(policy.isSensitiveField("SSN") && !policy.isSensitiveField("lesson"))
    #expect(policy.isSensitiveField("token_type"))
    #expect(policy.isSensitiveQueryParameter("Tenant") && policy.isSensitiveQueryParameter("access_token"))
}
