import FoundationEssentials
import Testing

@testable import UserDebugKit

/// Issue 12 item 4: what the redactor used to let through, one table per kind. A name-judged
/// secret is `hunter2-S3CRET`; `zoe` is what must survive next to it (redaction is not erasure).
@Suite struct RedactionLeakTests {
    static let secret = "hunter2-S3CRET"
    /// The session's token, with characters every encoding has to touch (`/`, `+`, `=`).
    static let token = "Tok/EN+canary-5e1f=Zq"

    /// One body and what must and must not remain of it.
    struct BodyCase: CustomTestStringConvertible, Sendable {
        var name: String
        var contentType: String?
        var body: String
        var kept: [String] = ["zoe"]
        var testDescription: String { name }
    }

    static let jwtValue = Encodings.jwt(#"{"sub":"usr_1","role":"admin"}"#)

    static let bodies: [BodyCase] = [
        BodyCase(
            name: "NDJSON", contentType: "application/x-ndjson",
            body: "{\"user\":\"zoe\"}\n{\"access_token\":\"\(secret)\"}\n"),
        BodyCase(
            name: "NDJSON without a content type", contentType: nil,
            body: "{\"user\":\"zoe\"}\r\n{\"password\":\"\(secret)\"}"),
        BodyCase(
            name: "JSON text sequence", contentType: "application/json-seq",
            body: "\u{1E}{\"user\":\"zoe\"}\n\u{1E}{\"refresh_token\":\"\(secret)\"}\n"),
        BodyCase(
            name: "server-sent events", contentType: "text/event-stream",
            body: "event: login\ndata: {\"user\":\"zoe\",\"id_token\":\"\(secret)\"}\n\n"),
        BodyCase(
            name: "JSON after a UTF-8 BOM", contentType: "application/json",
            body: "\u{FEFF}{\"user\": \"zoe\", \"password\": \"\(secret)\"}", kept: ["\u{FEFF}{\"user\": \"zoe\""]),
        BodyCase(
            name: "JSONP", contentType: "application/javascript",
            body: "cb({\"access_token\":\"\(secret)\",\"user\":\"zoe\"});"),
        BodyCase(
            name: "JSONP, pretty and guarded", contentType: "text/javascript",
            body: "/**/ typeof cb === 'function' && cb({\n  \"user\": \"zoe\",\n  \"token\": \"\(secret)\"\n});"),
        BodyCase(
            name: "XML element", contentType: "application/xml",
            body: "<login><user>zoe</user><password>\(secret)</password></login>"),
        BodyCase(
            name: "XML attribute", contentType: "text/xml",
            body: "<session token=\"\(secret)\" user=\"zoe\"/><k apiKey='\(secret)'/>"),
        BodyCase(
            name: "XML namespaced element, no content type", contentType: nil,
            body:
                "<?xml version=\"1.0\"?><s:Envelope><wsse:Username>zoe</wsse:Username><wsse:Password Type=\"t\">\(secret)</wsse:Password></s:Envelope>"
        ),
        BodyCase(
            name: "XML CDATA and nested children", contentType: "application/soap+xml",
            body:
                "<r><secret><![CDATA[\(secret)]]></secret><credentials><u>x</u><p>\(secret)</p></credentials><user>zoe</user></r>"
        ),
        BodyCase(
            name: "HTML hidden input", contentType: "text/html; charset=utf-8",
            body:
                "<form><input type=\"hidden\" name=\"csrf_token\" value=\"\(secret)\"><input name=\"user\" value=\"zoe\"></form>"
        ),
        BodyCase(
            name: "HTML meta", contentType: nil, body: "<meta name=\"csrf-token\" content=\"\(secret)\"><p>zoe</p>"),
        BodyCase(
            name: "plist key and value", contentType: "application/x-plist",
            body:
                "<plist><dict><key>name</key><string>zoe</string><key>accessToken</key><string>\(secret)</string></dict></plist>",
            kept: ["<string>zoe</string>", "<key>accessToken</key>"]),
        BodyCase(
            name: "multipart field", contentType: "multipart/form-data; boundary=XyZ",
            body:
                "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nzoe\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\(secret)\r\n--XyZ--\r\n"
        ),
        BodyCase(
            name: "multipart JSON part, quoted boundary", contentType: "multipart/form-data; boundary=\"a b\"",
            body:
                "--a b\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"user\":\"zoe\",\"token\":\"\(secret)\"}\r\n--a b--\r\n"
        ),
        BodyCase(
            name: "multipart without a content type", contentType: nil,
            body:
                "--b0undary\nContent-Disposition: form-data; name=\"user\"\n\nzoe\n--b0undary\nContent-Disposition: form-data; name=\"session\"\n\n\(secret)\n--b0undary--\n"
        ),
        BodyCase(
            name: "text/plain name=value", contentType: "text/plain",
            body: "user=zoe\npassword=\(secret)\n"),
        BodyCase(
            name: "text/plain name: value", contentType: "text/plain; charset=utf-8",
            body: "user: zoe\ntoken: \(secret)\n"),
        BodyCase(
            name: "text/plain pairs mid-line and quoted", contentType: "text/plain",
            body: "login user=zoe password=\(secret) ok; \"client_secret\" = \"\(secret) x\""),
        BodyCase(
            name: "text/plain env file", contentType: "text/plain",
            body: "USER=zoe\nexport API_TOKEN=\(secret)\n"),
        BodyCase(
            name: "GraphQL variables nested", contentType: "application/json",
            body:
                "{\"query\":\"mutation L($i: In!) { login(input: $i) }\",\"variables\":{\"input\":{\"user\":\"zoe\",\"password\":\"\(secret)\"}}}"
        ),
        BodyCase(
            name: "GraphQL variables as a JSON string", contentType: "application/json",
            body: "{\"query\":\"q\",\"variables\":\"{\\\"user\\\":\\\"zoe\\\",\\\"password\\\":\\\"\(secret)\\\"}\"}"),
        BodyCase(
            name: "JWT under any name", contentType: "application/json",
            body: "{\"user\":\"zoe\",\"data\":\"\(jwtValue)\"}"),
        BodyCase(
            name: "JWT in text", contentType: "text/plain",
            body: "zoe logged in with \(jwtValue)."),
        BodyCase(
            name: "JWT in XML text", contentType: "application/xml",
            body: "<r><user>zoe</user><blob>\(jwtValue)</blob></r>"),
        BodyCase(
            name: "fields named session and sid", contentType: "application/json",
            body: "{\"user\":\"zoe\",\"session\":\"\(secret)\",\"sid\":\"\(secret)\",\"connect.sid\":\"\(secret)\"}"),
        BodyCase(
            name: "PHPSESSID and JSESSIONID in a form", contentType: "application/x-www-form-urlencoded",
            body: "user=zoe&PHPSESSID=\(secret)&JSESSIONID=\(secret)"),
        // Issue 25, item 10.
        BodyCase(
            name: "CSV with a token column", contentType: "text/csv; charset=utf-8",
            body: "user,token,plan\r\nzoe,\(secret),pro\r\nada,\"\(secret)\",free\r\n",
            kept: ["user,token,plan\r\nzoe,[redacted],pro\r\nada,\"[redacted]\",free\r\n"]),
        BodyCase(
            name: "CSV with a quoted api key header and a quoted comma", contentType: "text/csv",
            body: "\"name, full\",\"API Key\"\n\"zoe, z\",\(secret)\n", kept: ["\"zoe, z\",[redacted]\n"]),
        BodyCase(
            name: "TSV with a password column", contentType: "text/tab-separated-values",
            body: "user\tpassword\nzoe\t\(secret)\n", kept: ["zoe\t[redacted]\n"]),
        BodyCase(
            name: "a key with a Cyrillic o", contentType: "application/json",
            body: "{\"user\":\"zoe\",\"t\u{043E}ken\":\"\(secret)\"}"),
        BodyCase(
            name: "a key with a zero-width space and a Greek omicron", contentType: "application/json",
            body: "{\"user\":\"zoe\",\"pass\u{200B}w\u{03BF}rd\":\"\(secret)\"}"),
        BodyCase(
            name: "a fullwidth key in a form", contentType: "application/x-www-form-urlencoded",
            body: "user=zoe&%EF%BD%94%EF%BD%8F%EF%BD%8B%EF%BD%85%EF%BD%8E=\(secret)"),
    ]

    @Test(arguments: bodies)
    func bodiesOfEveryShapeLoseTheirSecrets(_ bodyCase: BodyCase) {
        let out = String(
            decoding: Redactor().redactBody(Array(bodyCase.body.utf8), contentType: bodyCase.contentType),
            as: UTF8.self)
        #expect(!out.contains(Self.secret), "\(out)")
        #expect(!out.contains(Self.jwtValue.prefix(20)), "\(out)")
        #expect(out.contains("[redacted]") || out.contains("%5Bredacted%5D"), "\(out)")
        for kept in bodyCase.kept { #expect(out.contains(kept), "\(kept) should remain in \(out)") }
    }

    @Test func aRedactedBodyKeepsItsShape() {
        func redacted(_ body: String, _ type: String?) -> String {
            String(decoding: Redactor().redactBody(Array(body.utf8), contentType: type), as: UTF8.self)
        }
        #expect(
            redacted("{\"a\":1}\n{\"token\":\"x\"}\n", "application/x-ndjson")
                == "{\"a\":1}\n{\"token\":\"[redacted]\"}\n")
        #expect(redacted("cb({\"token\":\"x\"});", nil) == "cb({\"token\":\"[redacted]\"});")
        #expect(
            redacted("<a password=\"x\" b='1'><token>y</token><c/></a>", nil)
                == "<a password=\"[redacted]\" b='1'><token>[redacted]</token><c/></a>")
        #expect(redacted("password=x\nuser: zoe", "text/plain") == "password=[redacted]\nuser: zoe")
        #expect(
            redacted(
                "--B\r\nContent-Disposition: form-data; name=\"pin\"\r\n\r\n1234\r\n--B--\r\n",
                "multipart/form-data; boundary=B")
                == "--B\r\nContent-Disposition: form-data; name=\"pin\"\r\n\r\n[redacted]\r\n--B--\r\n")
        #expect(
            redacted("{\"v\":\"{\\\"token\\\":\\\"x\\\"}\"}", "application/json")
                == "{\"v\":\"{\\\"token\\\":\\\"[redacted]\\\"}\"}")
    }

    @Test(arguments: [
        "plain text with = and & signs", "error code: 500\nstatus=failed", "<p>monkey business</p>",
        "{\"keyboardLayout\": \"de\"}\n{\"tokenType\": \"bearer\"}", "eyJub3QiOiJhIGp3dCJ9.e30.x is no JWT header",
        "cb(1, 2)",
    ])
    func harmlessBodiesStayByteForByte(_ body: String) {
        #expect(Redactor(knownSecrets: [Self.token]).redactBody(Array(body.utf8), contentType: nil) == Array(body.utf8))
    }

    @Test(arguments: [
        ("X-Auth", "\(secret)", "[redacted]"), ("X-Upstream-Auth", "Bearer \(secret)", "Bearer [redacted]"),
        ("Authentication", "Bearer \(secret)", "Bearer [redacted]"), ("X-Session", secret, "[redacted]"),
        ("x-signature", secret, "[redacted]"), ("X-Api-Key", secret, "[redacted]"),
        ("X-Client-Secret", secret, "[redacted]"), ("X-Set-Cookie-Backup", "a=\(secret)", "[redacted]"),
        ("X-Upstream-Auth", "\(secret) Bearer", "[redacted]"), ("Sec-WebSocket-Key", secret, "[redacted]"),
        ("X-Trace", "pre \(jwtValue) post", "pre [redacted] post"),
        ("Content-Length", "42", "42"), ("Content-Type", "application/json", "application/json"),
        ("Accept", "*/*", "*/*"), ("Cache-Control", "no-store", "no-store"), ("Keep-Alive", "timeout=5", "timeout=5"),
        ("Idempotency-Key", "k-1", "k-1"), ("X-Request-Id", "r-1", "r-1"),
        ("WWW-Authenticate", "Bearer error=\"invalid_token\"", "Bearer error=\"invalid_token\""),
    ])
    func headersNamedLikeSecretsAreRedacted(_ name: String, _ value: String, _ shown: String) {
        #expect(Redactor().redactHeaderValue(name: name, value: value) == shown)
    }

    @Test(arguments: [
        ("https://h/app;jsessionid=\(secret)?a=1", "https://h/app;jsessionid=%5Bredacted%5D?a=1"),
        ("https://h/a;JSESSIONID=\(secret);lang=de/b", "https://h/a;JSESSIONID=%5Bredacted%5D;lang=de/b"),
        ("/rel/x;sid=\(secret)#f", "/rel/x;sid=%5Bredacted%5D#f"),
        ("https://h/p;v=1;token=\(secret)", "https://h/p;v=1;token=%5Bredacted%5D"),
        (
            "https://h/graphql?query=q&variables=%7B%22user%22%3A%22zoe%22%2C%22password%22%3A%22\(secret)%22%7D",
            "https://h/graphql?query=q&variables=%7B%22user%22%3A%22zoe%22%2C%22password%22%3A%22%5Bredacted%5D%22%7D"
        ),
        ("https://h/cb?state=\(jwtValue)&x=1", "https://h/cb?state=[redacted]&x=1"),
        ("https://h/p;a=b/c?session=\(secret)", "https://h/p;a=b/c?session=%5Bredacted%5D"),
    ])
    func urlPathParametersAndEmbeddedJSONAreRedacted(_ url: String, _ expected: String) {
        #expect(Redactor().redactURL(url) == expected)
    }

    /// An encoding of the token as something may carry it.
    struct EncodedCase: CustomTestStringConvertible, Sendable {
        var name: String
        var encoded: String
        var testDescription: String { name }
    }

    static let encoded: [EncodedCase] = {
        let token = Self.token
        let bytes = Array(token.utf8)
        return [
            EncodedCase(name: "percent, upper hex", encoded: Encodings.percent(token, upper: true)),
            EncodedCase(name: "percent, lower hex", encoded: Encodings.percent(token, upper: false)),
            EncodedCase(name: "percent, every byte", encoded: Encodings.percent(token, upper: true, all: true)),
            EncodedCase(
                name: "percent, twice", encoded: Encodings.percent(Encodings.percent(token, upper: true), upper: true)),
            EncodedCase(name: "JSON \\/", encoded: token.replacingOccurrences(of: "/", with: "\\/")),
            EncodedCase(name: "JSON \\u, every character", encoded: Encodings.jsonUnicode(token, every: 1)),
            EncodedCase(
                name: "JSON \\u, every other, upper", encoded: Encodings.jsonUnicode(token, every: 2, upper: true)),
            EncodedCase(
                name: "percent of JSON-escaped",
                encoded: Encodings.percent(token.replacingOccurrences(of: "/", with: "\\/"), upper: true)),
            EncodedCase(name: "XML character references", encoded: Encodings.xml(token)),
            EncodedCase(name: "base64, padded", encoded: Encodings.base64(bytes)),
            EncodedCase(name: "base64, no padding", encoded: Encodings.base64(bytes, padded: false)),
            EncodedCase(name: "base64url", encoded: Encodings.base64(bytes, url: true, padded: false)),
            EncodedCase(name: "base64 at offset 1", encoded: Encodings.base64(Array("x".utf8) + bytes + [0x21])),
            EncodedCase(name: "base64 at offset 2", encoded: Encodings.base64(Array("xy".utf8) + bytes)),
            EncodedCase(name: "base64url at offset 2", encoded: Encodings.base64(Array("ab".utf8) + bytes, url: true)),
            EncodedCase(name: "Basic credentials", encoded: Encodings.base64(Array("zoe:".utf8) + bytes)),
            EncodedCase(
                name: "base64, JSON-escaped",
                encoded: Encodings.base64(Array("ab".utf8) + bytes).replacingOccurrences(of: "/", with: "\\/")),
            EncodedCase(
                name: "base64, percent-encoded", encoded: Encodings.percent(Encodings.base64(bytes), upper: false)),
            // Issue 25, item 10.
            EncodedCase(name: "hex", encoded: bytes.map { String($0, radix: 16).leftPadded(2) }.joined()),
            EncodedCase(
                name: "hex, upper case",
                encoded: bytes.map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()),
        ]
    }()

    /// Whether any 8 consecutive bytes of `encoded` survived in `out`.
    static func survives(_ encoded: String, in out: String) -> Bool {
        let bytes = Array(encoded.utf8)
        let window = min(8, bytes.count)
        return (0...(bytes.count - window)).contains { start in
            out.contains(String(decoding: bytes[start..<start + window], as: UTF8.self))
        }
    }

    @Test(arguments: encoded)
    func theTokenIsFoundInEveryEncoding(_ encodedCase: EncodedCase) {
        let redactor = Redactor(knownSecrets: [Self.token])
        let encoded = encodedCase.encoded
        let outputs = [
            String(
                decoding: redactor.redactBody(Array("before \(encoded) after".utf8), contentType: "text/plain"),
                as: UTF8.self),
            String(
                decoding: redactor.redactBody(Array("{\"note\":\"\(encoded)\"}".utf8), contentType: "application/json"),
                as: UTF8.self),
            redactor.redactURL("https://h/p/\(encoded)?q=\(encoded)"),
            redactor.redactHeaderValue(name: "X-Echo", value: "v=\(encoded)"),
        ]
        for out in outputs {
            #expect(!Self.survives(encoded, in: out), "\(encoded) survived in \(out)")
            #expect(out.contains("[redacted]"), "\(out)")
        }
        #expect(redactor.containsKnownSecret(Array("x \(encoded) y".utf8)))
    }

    @Test func aTokenHoldingEscapeCharactersIsFoundEscapedByOneKindOnly() {
        let token = "ab%41cd/x&y=z"
        let redactor = Redactor(knownSecrets: [token])
        for carried in [#"ab%41cd\/x&y=z"#, "ab%2541cd%2Fx%26y%3Dz", "ab%41cd/x&amp;y=z"] {
            let out = redactor.replacingKnownSecrets(in: "<\(carried)>")
            #expect(out == "<[redacted]>", "\(carried) → \(out)")
        }
    }

    @Test(arguments: [
        ("https://api.example.com/v1", "https://api.example.com:443"),
        ("HTTP://API.example.com:8080/x", "http://api.example.com:8080"),
        ("http://127.0.0.1:080?q", "http://127.0.0.1:80"), ("https://u:p@h.example#f", "https://h.example:443"),
        ("http://evil.example\\@api.example.com/", "http://evil.example:80"),
        ("https://[::1]:8443/", "https://[::1]:8443"), ("ftp://h/", nil), ("/relative", nil), ("http://h:x/", nil),
    ])
    func originsAreSchemeHostAndPort(_ url: String, _ origin: String?) {
        #expect(PostmanCollection.origin(of: url) == origin)
    }

    @Test func otherValuesSurviveTheEncodedSearch() {
        let redactor = Redactor(knownSecrets: [Self.token])
        let text = "Tok%2FEN %5Bx%5D \\u0054ok a+b= dG9rZW4= &#84;"
        #expect(redactor.replacingKnownSecrets(in: text) == text)
        #expect(!redactor.containsKnownSecret(Array(text.utf8)))
    }

    @Test(arguments: [
        ("session", true), ("sid", true), ("connect.sid", true), ("PHPSESSID", true), ("JSESSIONID", true),
        ("user_session", true), ("lesson", false), ("sessionCount", false), ("side", false),
    ])
    func sessionNamesAreSecret(_ name: String, _ secret: Bool) {
        #expect(RedactionPolicy.default.isSensitiveField(name) == secret)
    }

    @Test func redactedUserFieldsHideEncodedTokensAndJWTs() {
        let value = JSONValue.object(
            JSONObject([
                "note": .string("sent \(Encodings.percent(Self.token, upper: true))"),
                "blob": .string(Self.jwtValue), "name": .string("zoe"),
            ]))
        let shown = JSONWriter().string(Redactor(knownSecrets: [Self.token]).redact(value))
        #expect(shown == #"{"note":"sent [redacted]","blob":"[redacted]","name":"zoe"}"#)
    }
}

/// The encodings the tests hide the token in, written out here rather than borrowed from the
/// code under test.
enum Encodings {
    static func percent(_ text: String, upper: Bool, all: Bool = false) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        return text.utf8.map { byte in
            if !all && unreserved.contains(byte) { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16, uppercase: upper)
            return "%" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
    }

    /// Every `every`-th character as `\uXXXX`.
    static func jsonUnicode(_ text: String, every: Int, upper: Bool = false) -> String {
        text.utf8.enumerated().map { index, byte in
            guard index % every == 0 else { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16, uppercase: upper)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
    }

    static func xml(_ text: String) -> String {
        text.utf8.enumerated().map { index, byte in
            index % 2 == 0 ? "&#\(byte);" : "&#x\(String(byte, radix: 16, uppercase: index % 4 == 1));"
        }.joined()
    }

    static func base64(_ bytes: [UInt8], url: Bool = false, padded: Bool = true) -> String {
        var text = Data(bytes).base64EncodedString()
        if url { text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_") }
        if !padded { text = text.replacingOccurrences(of: "=", with: "") }
        return text
    }

    static func jwt(_ payload: String) -> String {
        [#"{"alg":"HS256","typ":"JWT"}"#, payload, "signature-bytes"].map {
            base64(Array($0.utf8), url: true, padded: false)
        }.joined(separator: ".")
    }
}

extension String {
    /// Padded with zeros on the left to `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
