/// Header lookups shared by the formats and the redactor: names compare case-insensitively, and
/// the first header of a name wins, as captured order is kept.
extension [HTTPHeader] {
    /// The value of the first header named `name`.
    func value(named name: String) -> String? {
        let lowered = name.lowercased()
        return first { $0.name.lowercased() == lowered }?.value
    }

    /// The `Content-Type` value, which decides how a body is read (JSON, form, binary).
    var contentType: String? { value(named: "content-type") }
}
