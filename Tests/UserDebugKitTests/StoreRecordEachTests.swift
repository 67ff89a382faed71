import Foundation
import Testing

@testable import UserDebugKit

/// `recordEach`: responses handed over one at a time, recorded in one transaction, all or none.
@Suite struct StoreRecordEachTests {
    let directory: TemporaryDirectory
    let store: SessionStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try SessionStore.open(path: directory.file("userdebug.sqlite3"), mode: .readWrite)
        try store.saveSession(StoreSamples.session("staging"), makeCurrent: true)
    }

    struct ReaderFailed: Error {}

    @Test func everyResponseIsRecordedAndRetentionIsAppliedOnceAtTheEnd() throws {
        store.retention = RetentionPolicy(maxCount: 2, maxBytes: nil)
        let kept = try store.record(StoreSamples.response(), session: nil)
        var handed: [Int64] = []
        let ids = try store.recordEach(session: "staging") { record in
            for _ in 0..<3 { handed.append(try record(StoreSamples.response())) }
        }
        #expect(ids == handed && ids.count == 3 && !ids.contains(kept))
        // As with a batch: the import is kept whole, what was there before goes.
        #expect(try store.responses(ResponseQuery()).map(\.id) == ids.reversed())
    }

    @Test func aFailingProducerLeavesNothingAndItsErrorComesOut() throws {
        let kept = try store.record(StoreSamples.response(), session: nil)
        #expect(throws: ReaderFailed.self) {
            try store.recordEach(session: nil) { record in
                _ = try record(StoreSamples.response())
                _ = try record(StoreSamples.response())
                throw ReaderFailed()
            }
        }
        #expect(try store.responses(ResponseQuery()).map(\.id) == [kept])
    }

    @Test func aResponseTheStoreRefusesLeavesNothing() throws {
        store.retention = RetentionPolicy(maxCount: nil, maxBytes: 5_000)
        var hostile = StoreSamples.response()
        hostile.headers.append(HTTPHeader(name: "X-Evil", value: "a\r\nb"))
        let refused: [(BackendResponse, (StoreError) -> Bool)] = [
            (hostile, { if case .invalidResponse(1, _) = $0 { true } else { false } }),
            (
                StoreSamples.response(body: [UInt8](repeating: 7, count: 6_000)),
                {
                    if case .recordTooLarge = $0 { true } else { false }
                }
            ),
        ]
        for (response, expected) in refused {
            #expect {
                try store.recordEach(session: nil) { record in
                    _ = try record(StoreSamples.response())
                    _ = try record(response)
                }
            } throws: { error in
                (error as? StoreError).map(expected) ?? false
            }
            #expect(try store.responseCount(session: nil) == 0)
        }
    }
}
