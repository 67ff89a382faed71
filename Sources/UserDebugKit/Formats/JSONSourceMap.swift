/// Where the members of a parsed JSON text were, so that a value found wrong after parsing (a
/// config setting of the wrong kind, an unknown key) can still be reported as `FILE:LINE:COL`.
///
/// Paths are member names joined with `.` and array indexes as `[i]`: `retention.maxResponses`,
/// `redaction.headers[2]`. A key that itself contains a `.` makes its path ambiguous; config keys
/// never do, and data documents use `DocumentError` paths instead.
public struct JSONSourceMap: Sendable, Equatable {
    /// Byte offsets of one member: its key (nil for an array element) and its value.
    public struct Location: Sendable, Equatable {
        /// 0-based byte offset of the opening quote of the member's key.
        public var keyOffset: Int?
        /// 0-based byte offset of the first byte of the value.
        public var valueOffset: Int
    }

    /// A 1-based line and byte column, as editors and compilers print them.
    public struct Position: Sendable, Equatable {
        /// 1-based line.
        public var line: Int
        /// 1-based column, counted in bytes like `JSONParseError.column`.
        public var column: Int
    }

    /// Every member's location by path.
    public var locations: [String: Location]
    // Offsets where each line starts, so that a lookup is a binary search rather than a rescan
    // of the text per reported problem.
    private var lineStarts: [Int]

    init(bytes: [UInt8], locations: [String: Location]) {
        self.locations = locations
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == 0x0A { starts.append(offset + 1) }
        self.lineStarts = starts
    }

    /// The path key for a list of components (`["a", "[0]", "b"]` → `a[0].b`).
    static func key(_ components: [String]) -> String {
        var out = ""
        for component in components {
            if !out.isEmpty && !component.hasPrefix("[") { out += "." }
            out += component
        }
        return out
    }

    /// The line and column of a byte offset.
    public func position(ofOffset offset: Int) -> Position {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return Position(line: low + 1, column: offset - lineStarts[low] + 1)
    }

    /// Where the value at `path` starts, if the text had such a member.
    public func valuePosition(of path: String) -> Position? {
        locations[path].map { position(ofOffset: $0.valueOffset) }
    }

    /// Where the key of the member at `path` starts (the value for array elements).
    public func keyPosition(of path: String) -> Position? {
        locations[path].map { position(ofOffset: $0.keyOffset ?? $0.valueOffset) }
    }
}
