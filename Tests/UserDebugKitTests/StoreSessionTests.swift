import Foundation
import Testing

@testable import UserDebugKit

@Suite struct StoreSessionTests {
    let directory: TemporaryDirectory
    let store: SessionStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try SessionStore.open(path: directory.file("data/userdebug.sqlite3"), mode: .readWrite)
    }

    @Test func aSavedSessionReadsBackWithLiteralNumbersUnicodeAndFieldOrder() throws {
        let session = StoreSamples.session("alice@prod ✈︎")
        try store.saveSession(session, makeCurrent: false)

        let loaded = try #require(try store.session(named: "alice@prod ✈︎"))
        var expected = session
        expected.updatedAt = loaded.updatedAt
        #expect(loaded == expected)
        #expect(loaded.user.fields.keys == ["zeta", "big", "nested", "emoji"])
        #expect(JSONWriter().string(loaded.user.fields["big"]!) == "12345678901234567890")
        #expect(JSONWriter().string(loaded.user.fields["zeta"]!) == "1.50")
    }

    @Test func aSessionWithoutOptionalValuesReadsBackWithoutThem() throws {
        let session = Session(name: "bare", user: User(identifier: "7"), createdAt: StoreSamples.date)
        try store.saveSession(session, makeCurrent: false)

        let loaded = try #require(try store.session(named: "bare"))
        #expect(loaded.user == User(identifier: "7"))
        #expect(loaded.token == nil && loaded.baseURL == nil && loaded.environment == nil)
    }

    @Test func savingAgainUpdatesTheSessionButKeepsItsCreationDate() throws {
        try store.saveSession(StoreSamples.session("staging", identifier: "1"), makeCurrent: false)
        var changed = StoreSamples.session("staging", identifier: "2")
        changed.createdAt = Date(timeIntervalSince1970: 1_800_000_000)
        try store.saveSession(changed, makeCurrent: false)

        let loaded = try #require(try store.session(named: "staging"))
        #expect(loaded.user.identifier == "2")
        #expect(loaded.createdAt == StoreSamples.date)
        #expect(try store.sessions().count == 1)
    }

    @Test func anUnknownSessionNameReadsAsNil() throws {
        #expect(try store.session(named: "nobody") == nil)
    }

    @Test func sessionsAreListedSortedByName() throws {
        for name in ["prod", "Beta", "alpha", "ångström"] {
            try store.saveSession(StoreSamples.session(name), makeCurrent: false)
        }
        // Bytewise order: upper case before lower case, non-ASCII last.
        #expect(try store.sessions().map(\.name) == ["Beta", "alpha", "prod", "ångström"])
    }

    @Test func noSessionIsCurrentInANewStore() throws {
        #expect(try store.currentSessionName() == nil)
        #expect(try store.currentSession() == nil)
    }

    @Test func savingWithMakeCurrentMakesTheSessionCurrent() throws {
        try store.saveSession(StoreSamples.session("one"), makeCurrent: true)
        try store.saveSession(StoreSamples.session("two"), makeCurrent: false)

        #expect(try store.currentSessionName() == "one")
        #expect(try store.currentSession()?.name == "one")
    }

    @Test func usingASessionMakesItCurrent() throws {
        try store.saveSession(StoreSamples.session("one"), makeCurrent: true)
        try store.saveSession(StoreSamples.session("two"), makeCurrent: false)
        try store.useSession("two")

        #expect(try store.currentSessionName() == "two")
        #expect(try store.currentSession()?.user.identifier == "42")
    }

    @Test func usingAMissingSessionFailsAndKeepsTheCurrentOne() throws {
        try store.saveSession(StoreSamples.session("one"), makeCurrent: true)

        #expect(throws: StoreError.noSuchSession("ghost")) { try store.useSession("ghost") }
        #expect(try store.currentSessionName() == "one")
    }

    @Test func removingTheCurrentSessionLeavesNoSessionCurrent() throws {
        try store.saveSession(StoreSamples.session("one"), makeCurrent: true)
        try store.saveSession(StoreSamples.session("two"), makeCurrent: false)
        try store.removeSession("one")

        #expect(try store.currentSessionName() == nil)
        #expect(try store.sessions().map(\.name) == ["two"])
    }

    @Test func removingAnotherSessionKeepsTheCurrentOne() throws {
        try store.saveSession(StoreSamples.session("one"), makeCurrent: true)
        try store.saveSession(StoreSamples.session("two"), makeCurrent: false)
        try store.removeSession("two")

        #expect(try store.currentSessionName() == "one")
    }

    @Test func removingASessionRemovesItsResponsesOnly() throws {
        try store.saveSession(StoreSamples.session("one"), makeCurrent: false)
        try store.saveSession(StoreSamples.session("two"), makeCurrent: false)
        try store.record([StoreSamples.response(tags: ["login"]), StoreSamples.response()], session: "one")
        try store.record(StoreSamples.response(tags: ["login"]), session: "two")
        try store.removeSession("one")

        #expect(try store.responseCount(session: nil) == 1)
        #expect(try store.responses(ResponseQuery(tag: "login")).map(\.sessionName) == ["two"])
        #expect(try store.column("SELECT count(*) FROM response_tags") == ["1"])
    }

    @Test func removingAMissingSessionFails() throws {
        #expect(throws: StoreError.noSuchSession("ghost")) { try store.removeSession("ghost") }
    }

    @Test func sessionsSurviveReopeningTheStore() throws {
        try store.saveSession(StoreSamples.session("kept"), makeCurrent: true)

        let reader = try SessionStore.open(path: store.path, mode: .readOnly)
        #expect(try reader.currentSession()?.name == "kept")
    }
}
