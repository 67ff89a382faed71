/// The headers an HTTP client adds to every request on its own, which say nothing about the
/// app's request: curl's `User-Agent: curl/8.5.0` and `Accept: */*` (and Foundation's
/// `URLSession` on Linux, which is curl underneath: `User-Agent: xctest (unknown version)
/// curl/8.5.0`). A request exported to Postman or as a curl command would carry them as if the
/// app had set them (and a curl command sends its own anyway), so the exports leave them out
/// unless asked to keep them. A header the app did set — another `User-Agent`, `Accept:
/// application/json` — is kept.
public enum ClientDefaultHeaders {
    /// Whether `header` is one of those a client adds by itself.
    public static func isClientDefault(_ header: HTTPHeader) -> Bool {
        switch header.name.lowercased() {
        case "accept": return header.value.trimmed == "*/*"
        case "user-agent": return isCurlProduct(header.value.trimmed.split(separator: " ").last ?? "")
        default: return false
        }
    }

    /// `request` without the headers a client adds by itself.
    public static func removed(from request: BackendRequest) -> BackendRequest {
        var request = request
        request.headers.removeAll(where: isClientDefault)
        return request
    }

    /// `response` with its request's client headers removed (its own headers are the server's).
    public static func removed(from response: BackendResponse) -> BackendResponse {
        var response = response
        response.request = removed(from: response.request)
        return response
    }

    /// `curl/` and a version made of digits and dots, as curl writes it (`curl/8.5.0`).
    private static func isCurlProduct(_ token: Substring) -> Bool {
        guard token.hasPrefix("curl/") else { return false }
        let version = token.dropFirst("curl/".count)
        guard let first = version.first, first.isNumber else { return false }
        return version.allSatisfy { $0.isNumber || $0 == "." }
    }
}

extension String {
    fileprivate var trimmed: Substring {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
