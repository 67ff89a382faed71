import Testing
import UserDebugKit

@testable import userdebug_popup

/// The popup's model without a window: what rows a menu gives, and what keys and the pointer do
/// to the selection, the level, the filter and the scroll position.
@Suite struct PopupModelTests {
    static func action(_ id: String, hint: String? = nil, subtitle: String? = nil) -> MenuElement {
        .action(DebugAction(id: id, title: "Title \(id)", subtitle: subtitle, keyHint: hint) { _ in Payload(text: id) })
    }

    static func model(_ elements: [MenuElement], visible: Int = 5) -> PopupModel {
        var model = PopupModel(
            elements: elements, title: "Debug menu",
            text: PopupModel.Text(
                clean: { $0.replacing("SECRET", with: "[redacted]") }, subtitle: { $0.subtitle.map { "(\($0))" } }))
        model.visibleCount = visible
        return model
    }

    static let tree: [MenuElement] = [
        action("a", hint: "A", subtitle: "has SECRET"),
        .submenu(Submenu(id: "sub", title: "Sub SECRET", children: [action("s1"), action("s2")])),
        action("b"),
    ]

    @Test func rowsShowTheMenuAsTheModelGivesItCleaned() {
        let model = Self.model(Self.tree)
        #expect(model.rows.map(\.id) == ["a", "sub", "b"])
        #expect(model.rows.map(\.kind) == [.action, .submenu, .action])
        #expect(model.rows[0].subtitle == "(has SECRET)", "the host's subtitle (which leaves out secrets)")
        #expect(model.rows[1].title == "Sub [redacted]", "titles cleaned by the host")
        #expect(model.selectedRow?.id == "a")
    }

    /// A secret action's row says so, as dmenu and rofi show it (issue 28 item 5); filtered too.
    @Test func aSecretActionIsMarkedSecret() {
        let token = MenuElement.action(
            DebugAction(id: "copy-token", title: "Copy Token", isSecret: true) { _ in Payload(text: "t") })
        var model = Self.model([Self.action("a"), token])
        #expect(model.rows.map(\.title) == ["Title a", "Copy Token (secret)"])
        model.filter = "token"
        model.rebuild(keeping: nil)
        #expect(model.rows.map(\.title) == ["Copy Token (secret)"])
    }

    @Test func rightOpensASubmenuLeftComesBackToIt() {
        var model = Self.model(Self.tree)
        #expect(model.key(Keysym.down, state: 0, text: "") == .redraw)
        #expect(model.key(Keysym.right, state: 0, text: "") == .redraw)
        #expect(model.heading == "‹ Sub [redacted]" && model.rows.map(\.id) == ["s1", "s2"])
        #expect(model.key(Keysym.down, state: 0, text: "") == .redraw)
        #expect(model.key(Keysym.returnKey, state: 0, text: "") == .run("s2"))
        #expect(model.key(Keysym.left, state: 0, text: "") == .redraw)
        #expect(model.selectedRow?.id == "sub")
        #expect(model.key(Keysym.escape, state: 0, text: "") == .close)
    }

    @Test func typingFiltersTheWholeTreeAndBackspaceEditsIt() {
        var model = Self.model(Self.tree)
        #expect(model.key(0x73, state: 0, text: "s") == .redraw)
        #expect(model.key(0x32, state: 0, text: "2") == .redraw)
        #expect(model.rows.map(\.title) == ["Sub [redacted] › Title s2"])
        #expect(model.key(Keysym.backSpace, state: 0, text: "") == .redraw)
        #expect(model.filter == "s")
        #expect(model.selectedRow?.id == "s2", "the selection stays on its entry")
        #expect(model.key(Keysym.returnKey, state: 0, text: "") == .run("s2"))
    }

    @Test func aCapitalOrAltRunsTheHintAndALowerCaseLetterFilters() {
        var model = Self.model(Self.tree)
        #expect(model.key(0x41, state: 1, text: "A") == .run("a"))
        #expect(model.key(0x61, state: PopupModel.altMask, text: "a") == .run("a"))
        #expect(model.key(0x61, state: 0, text: "a") == .redraw)
        #expect(model.filter == "a")
    }

    @Test func homeEndAndPagesMoveAndScrollAmong200Entries() {
        var model = Self.model((0..<200).map { Self.action("e\($0)") }, visible: 10)
        #expect(model.key(Keysym.end, state: 0, text: "") == .redraw)
        #expect(model.selected == 199 && model.top == 190)
        #expect(model.key(Keysym.pageUp, state: 0, text: "") == .redraw)
        #expect(model.selected == 190 && model.top == 190)
        #expect(model.key(Keysym.home, state: 0, text: "") == .redraw)
        #expect(model.selected == 0 && model.top == 0)
        #expect(model.key(Keysym.pageDown, state: 0, text: "") == .redraw)
        #expect(model.selected == 9 && model.top == 0)
        #expect(model.scroll(by: 3) == .redraw)
        #expect(model.top == 3 && model.selected == 9)
        #expect(model.key(Keysym.up, state: 0, text: "") == .redraw && model.selected == 8)
    }

    @Test func aResolvedSectionReplacesItsPlaceholderAndKeepsTheSelection() {
        let deferred = DeferredElement(id: "backend", title: "From the backend", timeout: 1) { _ in [] }
        var model = Self.model([Self.action("a"), .deferred(deferred), Self.action("b")])
        #expect(
            model.rows[1]
                == PopupRow(kind: .placeholder, id: "backend", title: "From the backend", subtitle: "Loading…"))
        #expect(model.key(Keysym.down, state: 0, text: "") == .redraw && model.selectedRow?.id == "b")
        var resolved = deferred
        resolved.state = .resolved([Self.action("backend.one")])
        model.replaceElements([Self.action("a"), .deferred(resolved), Self.action("b")])
        #expect(model.rows.map(\.kind) == [.action, .header, .action, .action])
        #expect(model.rows.map(\.id) == ["a", "backend", "backend.one", "b"])
        #expect(model.selectedRow?.id == "b")
        var timedOut = deferred
        timedOut.state = .timedOut
        model.replaceElements([.deferred(timedOut)])
        #expect(
            model.rows == [
                PopupRow(kind: .placeholder, id: "backend", title: "From the backend", subtitle: "timed out")
            ])
        #expect(model.key(Keysym.returnKey, state: 0, text: "") == .none)
    }
}
