import Testing

@testable import UserDebugKit

@Test(arguments: [
    ("plain Zoë 😀 text", "plain Zoë 😀 text"),
    ("line one\n\tindented", "line one\n\tindented"),
    ("red \u{1B}[31malert\u{1B}[0m", "red \\x1b[31malert\\x1b[0m"),
    ("\u{1B}]52;c;ZXZpbA==\u{07}", "\\x1b]52;c;ZXZpbA==\\x07"),
    ("over\rwrite", "over\\x0dwrite"),
    ("nul\u{0} del\u{7F}", "nul\\x00 del\\x7f"),
    ("csi\u{9B}31m", "csi\\u{9b}31m"),
    ("admin\u{202E}gnp.exe", "admin\\u{202e}gnp.exe"),
    ("\u{2066}isolate\u{2069} \u{200F}\u{061C}", "\\u{2066}isolate\\u{2069} \\u{200f}\\u{61c}"),
    ("a\u{2028}b", "a\\u{2028}b"),
])
func controlCharactersAreShownAsEscapes(_ raw: String, _ shown: String) {
    #expect(TerminalText.escape(raw) == shown)
    #expect(TerminalText.needsEscaping(raw) == (raw != shown))
}

@Test func invalidUTF8BytesAreShownAsHexWhileValidTextIsKept() {
    let bytes: [UInt8] =
        Array("ok ".utf8) + [0x9B] + Array("31m ".utf8) + [0xC3, 0xA9, 0xFF, 0xE2, 0x82]
        + Array("\u{1B}]52;c;x\u{07}".utf8)
    #expect(TerminalText.escape(bytes: bytes) == "ok \\x9b31m é\\xff\\xe2\\x82\\x1b]52;c;x\\x07")
}

@Test func escapedTextContainsNoUnsafeCharacterAtAll() {
    let everything = String(String.UnicodeScalarView((0...0x3000).compactMap(Unicode.Scalar.init)))
    let shown = TerminalText.escape(everything)
    #expect(!shown.unicodeScalars.contains { $0 != "\n" && $0 != "\t" && TerminalSafety.isUnsafe($0) })
    let bytes = TerminalText.escape(bytes: (0...255).map(UInt8.init))
    #expect(!bytes.unicodeScalars.contains { $0 != "\n" && $0 != "\t" && TerminalSafety.isUnsafe($0) })
}
