import UserDebugKit

/// `print-response --body` (redacted) to standard output, written while it is redacted: the
/// body is read from the store into one buffer of its size and `Redactor.writeRedactedBody`
/// redacts a JSON body in that buffer and puts the placeholders in as it writes, so a 60 MiB
/// body is held once rather than three times. The bytes and the final newline are those the
/// action path prints (the tests compare both).
enum RedactedBodyStream {
    /// The largest body redacted for printing; a larger one is a data error (`--reveal`
    /// streams any size).
    static let limit = 1 << 30

    /// Prints the body when nothing but standard output gets it: not `--reveal`, the body part,
    /// standard output not a terminal (a terminal gets control characters escaped and the
    /// CLIPBOARD a copy) and the target standard output. Returns false, having written nothing,
    /// for everything else (no such response too: the action path reports it).
    static func stream(_ invocation: Invocation, selector: ResponseSelector, part: BuiltinPayloads.ResponsePart)
        throws -> Bool
    {
        guard part == .body, !invocation.arguments.has("reveal"), invocation.stdoutKind != .terminal,
            try OutputRouter(invocation: invocation).writesToStandardOutputOnly()
        else { return false }
        var token: String?
        do {
            _ = try BackendChoice.option(invocation.arguments)
            let session = try invocation.session(fromCopy: true)
            token = session.token
            guard let redactor = try invocation.redactor(for: session) else { return false }
            let store = try invocation.storeForReading()
            var scoped = selector
            if case .newest(var query) = selector, query.session == nil {
                query.session = session.name
                scoped = .newest(query)
            }
            guard let response = try store.responseWithoutBodies(scoped), let id = response.id else { return false }
            let count = try write(store, id: id, headers: response.headers, redactor: redactor)
            let delivery = Delivery(
                actionID: "print-response", title: "Print Last Response", payload: Payload(bytes: [], kind: .text),
                selections: [], clearSecretAfter: nil, streamedBytes: count)
            Notifier.of(invocation, origin: .commandLine, token: token).notify(outcome: .delivered(delivery))
            return true
        } catch {
            Notifier.of(invocation, origin: .commandLine, token: token).notify(outcome: .failed(error))
            throw error
        }
    }

    /// Writes the redacted body of response `id` to standard output, then the final newline of
    /// text; returns how many bytes of body went out.
    private static func write(_ store: SessionStore, id: Int64, headers: [HTTPHeader], redactor: Redactor) throws
        -> Int
    {
        var body: [UInt8]
        do {
            // Room for placeholders longer than what they replace, so that splicing them in
            // seldom has to move the body to a larger block.
            body = try store.loadResponseBody(id: id, limit: limit, spare: 1 << 16)
        } catch SessionStore.BodyLoadError.tooLarge(let size) {
            throw CommandError(
                .dataError,
                "the response body is \(size) bytes, more than the \(limit) redaction reads; --reveal prints it")
        } catch SessionStore.BodyLoadError.outOfMemory(let size) {
            throw CommandError(.ioError, "not enough memory to redact a response body of \(size) bytes")
        }
        let out = FileDescriptor(1)
        do {
            let written = try redactor.writeRedactedBody(&body, headers: headers) { chunk in
                try chunk.withUnsafeBytes { try out.writeAll($0) }
            }
            if written.isText, written.last != UInt8(ascii: "\n") { try out.writeAll([UInt8(ascii: "\n")]) }
            return written.count
        } catch let error as SystemError {
            throw CommandError(.ioError, "cannot write to standard output: \(error)")
        }
    }
}
