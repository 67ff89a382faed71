import Testing

@testable import UserDebugKit

/// The `menu.popup` section: theme, font and colour overrides, and the errors a typo gets.
@Suite struct PopupConfigTests {
    func parse(_ text: String) throws(ConfigError) -> Config {
        try Config.parse(Array(text.utf8), file: "config.json")
    }

    @Test func withoutTheSectionThePopupIsDarkAndSansSerif() throws {
        let popup = try parse("{}").popup
        #expect(popup == Config.Popup())
        #expect(popup.theme == .dark && popup.font == "sans-serif:size=10")
        #expect(popup.colors.background == "#1e2127")
    }

    @Test func aLightThemeWithAnOverrideAndAFont() throws {
        let popup = try parse(
            ##"{"menu": {"popup": {"theme": "light", "font": "DejaVu Sans:size=12", "colors": {"border": "#FF0000"}}}}"##
        ).popup
        #expect(popup.theme == .light && popup.font == "DejaVu Sans:size=12")
        #expect(popup.colors.background == "#fafafa")
        #expect(popup.colors.border == "#FF0000")
    }

    @Test(arguments: [
        (#"{"menu": {"popup": {"theme": "blue"}}}"#, "menu.popup.theme"),
        (#"{"menu": {"popup": {"colors": {"background": "red"}}}}"#, "menu.popup.colors.background"),
        (##"{"menu": {"popup": {"colors": {"backgroud": "#000000"}}}}"##, "did you mean \"background\""),
        (#"{"menu": {"popup": {"font": ""}}}"#, "menu.popup.font"),
        (#"{"menu": {"popop": {}}}"#, "menu.popop"),
    ])
    func aWrongValueNamesItsKey(text: String, named: String) throws {
        let error = try #require(throws: ConfigError.self) { try parse(text) }
        #expect(error.description.contains(named), "\(error)")
        #expect(error.line != nil, "\(error)")
    }
}
