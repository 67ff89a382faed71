import Foundation
import Testing

@testable import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// The store's own guards, for every recorder (the CLI, the URLSession hook, an app): only
/// absolute http(s) URLs get in, and a store someone else could change is not opened.
@Suite struct StoreTrustTests {
    @Test(arguments: ["-K/etc/passwd", "/v1/login", "file:///etc/passwd", "http:///x"])
    func aBatchWithAURLThatIsNotAbsoluteHTTPIsRefusedWhole(_ url: String) throws {
        let directory = try TemporaryDirectory()
        let store = try SessionStore.open(path: directory.file("userdebug.sqlite3"), mode: .readWrite)
        try store.saveSession(StoreSamples.session("staging"), makeCurrent: true)
        do throws(StoreError) {
            try store.record([StoreSamples.response(), StoreSamples.response(url: url)], session: nil)
            Issue.record("recorded \(url)")
        } catch {
            #expect(caseName(error) == "invalidResponse")
            #expect(error.description.hasPrefix("response 2 of the batch"))
        }
        #expect(try store.responses(ResponseQuery()).isEmpty)
    }

    /// Every C0 control but tab, and DEL, in a request or response header name or value: the
    /// store refuses the batch whoever records it, as the CLI's record, import and capture do.
    @Test(arguments: [
        ("request", "X-A", "a\u{3}b"), ("request", "X-A", "v\r\nX-Injected: yes"), ("response", "X-A", "a\u{0}b"),
        ("response", "X-A\n", "v"), ("response", "X-A", "d\u{7F}"), ("request", "X-\u{1B}[2J", "v"),
    ])
    func aBatchWithAControlCharacterInAHeaderIsRefusedWhole(_ side: String, _ name: String, _ value: String) throws {
        let directory = try TemporaryDirectory()
        let store = try SessionStore.open(path: directory.file("userdebug.sqlite3"), mode: .readWrite)
        try store.saveSession(StoreSamples.session("staging"), makeCurrent: true)
        var hostile = StoreSamples.response()
        if side == "request" {
            hostile.request.headers.append(HTTPHeader(name: name, value: value))
        } else {
            hostile.headers.append(HTTPHeader(name: name, value: value))
        }
        do throws(StoreError) {
            try store.record([StoreSamples.response(), hostile], session: nil)
            Issue.record("recorded \(side) header \(name): \(value)")
        } catch {
            #expect(caseName(error) == "invalidResponse")
            #expect(
                error.description.hasPrefix("response 2 of the batch") && error.description.contains("\(side) header")
                    && error.description.contains("control character"), "\(error)")
        }
        #expect(try store.responses(ResponseQuery()).isEmpty)
        var tabbed = StoreSamples.response()
        tabbed.headers.append(HTTPHeader(name: "X-A", value: "a\tb"))
        try store.record(tabbed, session: nil)
    }

    @Test func aStoreDirectoryOthersMayWriteIsNotOpened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/userdebug.sqlite3")
        _ = try SessionStore.open(path: path, mode: .readWrite)
        chmod(directory.file("data"), 0o757)
        for mode in [SessionStore.Mode.readOnly, .readWrite] {
            do throws(StoreError) {
                _ = try SessionStore.open(path: path, mode: mode)
                Issue.record("opened a store in a directory others may write")
            } catch {
                #expect(caseName(error) == "untrusted")
                #expect(error.description.contains("chmod 700 \(directory.file("data"))"), "\(error)")
            }
        }
        chmod(directory.file("data"), 0o700)
        _ = try SessionStore.open(path: path, mode: .readOnly)
    }
}
