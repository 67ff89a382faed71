/// What a recorded URL and a session's base URL must be: an absolute `http` or `https` URL with a
/// host. Recorded data is hostile: a "URL" such as `-K/home/them/.curlrc` becomes an option of any
/// program that gets it as an argument, `file:///etc/shadow` or `ftp://…` points tools at other
/// protocols, and a relative one means whatever the tool that completes it decides.
public enum HTTPURL {
    /// Why `text` is not an absolute http(s) URL, nil when it is one. Checked: the scheme (`http`
    /// or `https`, any case) followed by `//`; a non-empty host (after any `user@`); a port, when
    /// given, of digits only; no space, control character or DEL anywhere. The rest (path, query,
    /// fragment) is left as the server or app wrote it.
    public static func problem(_ text: String) -> String? {
        let lowered = text.lowercased()
        guard let rest = ["https://", "http://"].first(where: lowered.hasPrefix).map({ text.dropFirst($0.count) })
        else {
            return "not an absolute http(s) URL (it must start with http:// or https://): \(shown(text))"
        }
        if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "the URL contains a space or a control character"
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return "the URL's IPv6 host has no closing ]" }
            let after = host[host.index(after: close)...]
            guard after.isEmpty || isPort(after) else { return "the URL's port is not a number: \(shown(text))" }
            host = host[..<close].dropFirst()
        } else if let colon = host.lastIndex(of: ":") {
            guard isPort(host[colon...]) else { return "the URL's port is not a number: \(shown(text))" }
            host = host[..<colon]
        }
        guard !host.isEmpty else { return "the URL has no host: \(shown(text))" }
        return nil
    }

    /// `:` followed by digits only (an empty port is allowed, as RFC 3986 allows it).
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The URL quoted for a message, cut short: it is hostile data and may be long.
    private static func shown(_ text: String) -> String {
        let cut = text.count > 80 ? String(text.prefix(77)) + "…" : text
        return "\"" + String(cut.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
            + "\""
    }
}
