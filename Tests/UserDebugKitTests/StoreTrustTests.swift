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
