import Testing
import UserDebugKit

/// Which headers count as the recording client's own (`ClientDefaultHeaders`).
@Suite struct ClientDefaultHeadersTests {
    @Test(arguments: [
        ("User-Agent", "curl/8.5.0", true), ("user-agent", "curl/7.88.1", true),
        ("User-Agent", "xctest (unknown version) curl/8.5.0", true), ("Accept", "*/*", true),
        ("ACCEPT", " */* ", true), ("User-Agent", "ShopApp/2.1 (Linux)", false), ("User-Agent", "curl/", false),
        ("User-Agent", "curl/8.5.0-DEV extra", false), ("Accept", "application/json", false),
        ("Accept", "*/*, text/html", false), ("X-Client", "curl/8.5.0", false),
    ])
    func theClientsOwnHeadersAreRecognised(name: String, value: String, isDefault: Bool) {
        #expect(ClientDefaultHeaders.isClientDefault(HTTPHeader(name: name, value: value)) == isDefault)
    }

    @Test func removingKeepsEveryOtherHeaderInOrder() {
        let request = BackendRequest(
            method: "GET", url: "https://api.example/v1/me",
            headers: [
                HTTPHeader(name: "Host", value: "api.example"), HTTPHeader(name: "User-Agent", value: "curl/8.5.0"),
                HTTPHeader(name: "Accept", value: "*/*"), HTTPHeader(name: "X-Trace", value: "1"),
            ])
        #expect(ClientDefaultHeaders.removed(from: request).headers.map(\.name) == ["Host", "X-Trace"])
    }
}
