import UserDebugKit

/// `print-response --body --reveal` to standard output, streamed from the store a chunk at a
/// time (sqlite3_blob_read): a 60 MiB body is printed without being held in memory. The bytes
/// and the final newline are those the action path prints (a newline after a UTF-8 body that
/// does not end with one, none after a binary one).
enum RevealedBodyStream {
    /// Streams the body when nothing but standard output gets it: `--reveal`, the body part,
    /// standard output not a terminal (a terminal gets control characters escaped) and the
    /// target standard output, a body stored without a `Content-Encoding` to undo. Returns
    /// false, having written nothing, for everything else (no such response too: the action path
    /// reports it). A notification, when one is due, gives the size only.
    static func stream(_ invocation: Invocation, selector: ResponseSelector, part: BuiltinPayloads.ResponsePart)
        throws -> Bool
    {
        guard part == .body, invocation.arguments.has("reveal"), invocation.stdoutKind != .terminal,
            try OutputRouter(invocation: invocation).writesToStandardOutputOnly()
        else { return false }
        var token: String?
        do {
            _ = try BackendChoice.option(invocation.arguments)
            token = try invocation.session(fromCopy: true).token
            let store = try invocation.storeForReading()
            guard let id = try store.responseWithoutBodies(selector).flatMap(plainBodyID) else { return false }
            let count = try write(store, id: id)
            let delivery = Delivery(
                actionID: "print-response", title: "Print Last Response", payload: Payload(bytes: [], kind: .binary),
                selections: [], clearSecretAfter: nil, streamedBytes: count)
            Notifier.of(invocation, origin: .commandLine, token: token).notify(outcome: .delivered(delivery))
            return true
        } catch {
            Notifier.of(invocation, origin: .commandLine, token: token).notify(outcome: .failed(error))
            throw error
        }
    }

    /// Writes the body of response `id` to standard output, then the final newline of text;
    /// returns how many bytes of body went out.
    private static func write(_ store: SessionStore, id: Int64) throws -> Int {
        var check = UTF8ChunkCheck()
        var last: UInt8?
        var count = 0
        let out = FileDescriptor(1)
        do {
            try store.readResponseBody(id: id) { chunk in
                check.feed(chunk)
                last = chunk.last ?? last
                count += chunk.count
                try out.writeAll(chunk)
            }
            if check.isComplete, last != UInt8(ascii: "\n") { try out.writeAll([UInt8(ascii: "\n")]) }
        } catch let error as SystemError {
            throw CommandError(.ioError, "cannot write to standard output: \(error)")
        }
        return count
    }

    /// The response's id when its body is stored as it is shown (no Content-Encoding, or identity).
    private static func plainBodyID(_ response: BackendResponse) -> Int64? {
        ContentEncoding.codings(of: response.headers).isEmpty ? response.id : nil
    }
}
