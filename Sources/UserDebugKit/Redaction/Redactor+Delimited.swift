/// CSV and TSV bodies: the columns whose header names a secret (`token`, `api_key`, …).
extension Redactor {
    /// The delimiter of a CSV/TSV body: by its type (`text/csv`, `application/csv`,
    /// `text/tab-separated-values`), else nil: without a type a comma line is left to the
    /// line-by-line rule, which would not know that row 2's third cell is row 1's `token`.
    static func delimiter(contentType: String?) -> UInt8? {
        guard let type = contentType?.lowercased() else { return nil }
        if type.contains("tab-separated-values") { return UInt8(ascii: "\t") }
        if type.contains("/csv") || type.contains("comma-separated-values") { return UInt8(ascii: ",") }
        return nil
    }

    /// The body with every non-empty cell of a secret-named column replaced by the placeholder
    /// (quoted as it was), the rest byte for byte; nil when no header names a secret or the text
    /// is not delimited records (RFC 4180: quoted cells may hold the delimiter, `""` and line
    /// breaks).
    func redactDelimited(_ body: [UInt8], delimiter: UInt8) -> [UInt8]? {
        let records = Redactor.delimitedRecords(body, delimiter: delimiter)
        guard let header = records.first else { return nil }
        let secret = Set(
            header.indices.filter { index in
                let name = String(decoding: Redactor.cellContent(body, header[index]), as: UTF8.self)
                return policy.isSensitiveField(name.trimmingSpaces())
            })
        guard !secret.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var copied = 0
        for record in records.dropFirst() {
            for (index, cell) in record.enumerated() where secret.contains(index) && cell.count > 0 {
                let quoted = body[cell.lowerBound] == UInt8(ascii: "\"")
                if quoted && cell.count <= 2 { continue }  // ""
                out += body[copied..<cell.lowerBound]
                out += quoted ? Array("\"\(Redactor.placeholder)\"".utf8) : Array(Redactor.placeholder.utf8)
                copied = cell.upperBound
            }
        }
        out += body[copied...]
        return out
    }

    /// Each record's cells as ranges of `body` (a quoted cell with its quotes, no line end).
    static func delimitedRecords(_ body: [UInt8], delimiter: UInt8) -> [[Range<Int>]] {
        var records: [[Range<Int>]] = []
        var cells: [Range<Int>] = []
        var start = 0
        var index = 0
        var inQuotes = false
        let quote = UInt8(ascii: "\"")
        while index < body.count {
            let byte = body[index]
            if inQuotes {
                if byte == quote {
                    if index + 1 < body.count, body[index + 1] == quote { index += 1 } else { inQuotes = false }
                }
            } else if byte == quote && index == start {
                inQuotes = true
            } else if byte == delimiter {
                cells.append(start..<index)
                start = index + 1
            } else if byte == 0x0A {
                let end = index > start && body[index - 1] == 0x0D ? index - 1 : index
                cells.append(start..<end)
                records.append(cells)
                cells = []
                start = index + 1
            }
            index += 1
        }
        if start < body.count || !cells.isEmpty {
            cells.append(start..<body.count)
            records.append(cells)
        }
        return records
    }

    /// A cell's text without its quotes (`""` kept as one quote is not needed for names).
    static func cellContent(_ body: [UInt8], _ cell: Range<Int>) -> ArraySlice<UInt8> {
        let quote = UInt8(ascii: "\"")
        if cell.count >= 2, body[cell.lowerBound] == quote, body[cell.upperBound - 1] == quote {
            return body[(cell.lowerBound + 1)..<(cell.upperBound - 1)]
        }
        return body[cell]
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (no Foundation in the Kit).
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
