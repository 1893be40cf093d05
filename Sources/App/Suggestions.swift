/// Close names for a mistyped one ("did you mean …?"): commands, saved queries, tables,
/// columns, stations.
///
/// A candidate is close when it is within a small edit distance of what was typed (2, or 1 for
/// names of up to 4 characters), or when one starts with the other (`종로` → `종로구`). Letters
/// are compared without regard to case; distances count characters (grapheme clusters), so a
/// Hangul syllable is one edit.
enum Suggestions {
    /// The candidates close to `typed`, closest first (then alphabetically); at most `limit`.
    static func close(to typed: String, among candidates: some Sequence<String>, limit: Int = 3) -> [String] {
        let wanted = typed.lowercased()
        guard !wanted.isEmpty else { return [] }
        var scored: [(name: String, distance: Int)] = []
        for candidate in Set(candidates) where !candidate.isEmpty {
            let name = candidate.lowercased()
            guard name != wanted else { continue }
            let distance = editDistance(wanted, name)
            let allowed = min(wanted.count, name.count) <= 4 ? 1 : 2
            if distance <= allowed {
                scored.append((candidate, distance))
            } else if min(wanted.count, name.count) >= 2 && (name.hasPrefix(wanted) || wanted.hasPrefix(name)) {
                scored.append((candidate, allowed + 1))
            }
        }
        return scored.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }.prefix(limit).map(\.name)
    }

    /// `did you mean `a`?` / `did you mean `a` or `b`?` (names between `quote`s); nil when
    /// nothing is close.
    static func didYouMean(_ typed: String, among candidates: some Sequence<String>, limit: Int = 3, quote: String = "`") -> String? {
        let found = close(to: typed, among: candidates, limit: limit)
        guard !found.isEmpty else { return nil }
        let quoted = found.map { quote + $0 + quote }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return "did you mean \(list)?"
    }

    /// Levenshtein distance between two strings, by characters (insert, delete, substitute, and
    /// swapping two neighbours counts as one edit).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
