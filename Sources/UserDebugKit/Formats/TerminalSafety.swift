/// Which characters must never reach a terminal raw: the JSON writer escapes them, session names
/// may not contain them, and `TerminalText` shows them as visible escapes.
public enum TerminalSafety {
    /// C0 controls (but not tab and newline handled by callers), DEL, C1 controls, and the
    /// BiDi/line controls that reorder or hide text (Trojan Source).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || v == 0x7F { return true }
        if (0x80...0x9F).contains(v) { return true }
        if v == 0x2028 || v == 0x2029 { return true }
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { return true }
        if v == 0x200E || v == 0x200F || v == 0x061C { return true }
        return false
    }
}
