/// The response log as a provider: the last response, the last login-tagged response, and the
/// last response of each status class in a submenu. Each action queries the store only when it
/// runs, so showing the menu costs no body reads.
public struct ResponseLogProvider: DebugActionProvider {
    /// The ids this provider offers; config actions may not reuse them.
    public static let actionIDs =
        ["print-response", "print-login-response"]
        + (1...5).map { "print-response-\($0)xx" }

    /// Which response `print-response` prints (the shortcut command's filters and id).
    public var selector: ResponseSelector
    /// Which part of it `print-response` prints.
    public var part: BuiltinPayloads.ResponsePart

    /// `responses`.
    public var name: String { "responses" }

    /// The provider; by default `print-response` prints the last response's body.
    public init(selector: ResponseSelector = .newest(ResponseQuery()), part: BuiltinPayloads.ResponsePart = .body) {
        self.selector = selector
        self.part = part
    }

    /// `print-response` (by `selector` and `part`), `print-login-response` (the newest response
    /// tagged `login`) and a `responses-by-status` submenu of `print-response-1xx` … `-5xx`.
    public func menuElements(in context: ActionContext) throws -> [MenuElement] {
        let part = self.part
        var byStatus: [MenuElement] = []
        for digit in 1...5 {
            byStatus.append(
                .action(
                    Self.printAction(
                        id: "print-response-\(digit)xx", title: "Print Last \(digit)xx Response",
                        selector: .newest(ResponseQuery(statusClass: digit)), part: part)))
        }
        return [
            .action(
                Self.printAction(
                    id: "print-response", title: "Print Last Response", keyHint: "R", selector: selector, part: part)),
            .action(
                Self.printAction(
                    id: "print-login-response", title: "Print Last Login Response", keyHint: "L",
                    selector: .newest(ResponseQuery(tag: "login")), part: part)),
            .submenu(Submenu(id: "responses-by-status", title: "Responses by Status", children: byStatus)),
        ]
    }

    private static func printAction(
        id: String, title: String, keyHint: String? = nil, selector: ResponseSelector,
        part: BuiltinPayloads.ResponsePart
    ) -> DebugAction {
        DebugAction(id: id, title: title, keyHint: keyHint) { context in
            guard let response = try context.response(selector) else {
                let any = try context.response(.newest(ResponseQuery(includeBodies: false))) != nil
                throw ActionError.missing(
                    selector.notFoundMessage(
                        session: context.session.name, baseURL: context.session.baseURL, sessionHasResponses: any))
            }
            let redactor = try context.redactor()
            var payload = BuiltinPayloads.response(response, part: part, redactor: redactor)
            // Revealed, the record is a secret when redaction would have changed any part of it
            // (a cookie, a secret header or member), not only where the token is.
            if redactor == nil, try context.secretsRedactor().redact(response) != response { payload.isSecret = true }
            return payload
        }
    }
}
