/// "Did you mean …?" for a mistyped command or option: the closest known name, where hyphens
/// and spaces count as nothing (`copyid` is `copy-id`, `export-har` is `export har`), then the
/// fewest edits (at most two), then the shorter name.
enum Suggestion {
    /// The name in `names` closest to `word`, or nil when none is within two edits.
    static func closest(to word: String, among names: [String]) -> String? {
        let typed = squeezed(word)
        var best: (name: String, score: Int)?
        for name in names {
            let plain = squeezed(name)
            // Equal but for hyphens and spaces beats any edit.
            let score = plain == typed ? 0 : 1 + min(editDistance(word, name), editDistance(typed, plain))
            guard score <= 3 else { continue }
            if let current = best,
                current.score < score || (current.score == score && current.name.count <= name.count)
            {
                continue
            }
            best = (name, score)
        }
        return best?.name
    }

    /// `; did you mean 'NAME'?`, or nothing.
    static func phrase(for word: String, among names: [String], prefix: String = "") -> String {
        closest(to: word, among: names).map { "; did you mean '\(prefix)\($0)'?" } ?? ""
    }

    private static func squeezed(_ text: String) -> String {
        String(text.lowercased().filter { $0 != "-" && $0 != " " && $0 != "_" })
    }

    /// The edits between `a` and `b`: insertions, deletions, substitutions, and swaps of two
    /// neighbours (`tga` is one swap from `tag`), each counting one.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)  // row i - 2
        var previous = Array(0...b.count)  // row i - 1
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], before[j - 2] + 1)
                }
            }
            (before, previous, row) = (previous, row, before)
        }
        return previous[b.count]
    }
}
