import FoundationEssentials

/// How domain values are written into columns and read back. JSON text keeps header order and
/// repeats, tag order, and user fields exactly (numbers keep their literal text).
enum StoreCoding {
    /// Headers as a JSON array of `[name, value]` pairs.
    static func encode(_ headers: [HTTPHeader]) -> String {
        JSONWriter().string(.array(headers.map { .array([.string($0.name), .string($0.value)]) }))
    }

    /// Headers from `encode(_:)`'s text; nil when it is not that shape.
    static func decodeHeaders(_ text: String) -> [HTTPHeader]? {
        guard let pairs = (try? JSONParser().parse(text))?.arrayValue else { return nil }
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(pairs.count)
        for pair in pairs {
            guard let parts = pair.arrayValue, parts.count == 2,
                let name = parts[0].stringValue, let value = parts[1].stringValue
            else { return nil }
            headers.append(HTTPHeader(name: name, value: value))
        }
        return headers
    }

    /// Tags as a JSON array of strings.
    static func encode(tags: [String]) -> String {
        JSONWriter().string(.array(tags.map { .string($0) }))
    }

    /// Tags from `encode(tags:)`'s text; nil when it is not that shape.
    static func decodeTags(_ text: String) -> [String]? {
        guard let elements = (try? JSONParser().parse(text))?.arrayValue else { return nil }
        let tags = elements.compactMap(\.stringValue)
        return tags.count == elements.count ? tags : nil
    }

    /// A user's other fields as a JSON object in their given order.
    static func encode(fields: JSONObject) -> String {
        JSONWriter().string(.object(fields))
    }

    /// Fields from `encode(fields:)`'s text; nil when it is not an object.
    static func decodeFields(_ text: String) -> JSONObject? {
        (try? JSONParser().parse(text))?.objectValue
    }

    /// Milliseconds since 1970, the stored form of every date (readable in the sqlite3 shell
    /// with `datetime(x / 1000, 'unixepoch')`); finer precision is not kept.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date of a stored millisecond count.
    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The bytes a response counts for `RetentionPolicy.maxBytes`, its headers encoded as stored.
    static func storedBytes(_ response: BackendResponse) -> Int64 {
        storedBytes(
            response, requestHeaders: encode(response.request.headers), responseHeaders: encode(response.headers))
    }

    /// The bytes a response counts for `RetentionPolicy.maxBytes`.
    static func storedBytes(_ response: BackendResponse, requestHeaders: String, responseHeaders: String) -> Int64 {
        Int64(
            response.request.url.utf8.count + requestHeaders.utf8.count + responseHeaders.utf8.count
                + response.request.body.count + response.body.count)
    }
}
