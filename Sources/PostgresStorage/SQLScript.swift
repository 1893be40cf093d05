import Foundation

/// A script cut into statements at top-level semicolons: not inside quotes, quoted identifiers,
/// comments or dollar-quoted bodies (`$$ … $$`, `$fn$ … $fn$`). Statements that hold only
/// comments are dropped.
enum SQLScript {
    static func statements(_ script: String) -> [String] {
        let characters = Array(script.unicodeScalars)
        var statements: [String] = [], current = String.UnicodeScalarView(), index = 0, meaningful = false
        func emit() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if meaningful && !text.isEmpty { statements.append(text) }
            current = String.UnicodeScalarView(); meaningful = false
        }
        func copy(until end: Int) { while index < min(end, characters.count) { current.append(characters[index]); index += 1 } }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int? {
            guard !needle.isEmpty, start <= characters.count - needle.count else { return nil }
            for i in start...(characters.count - needle.count) where Array(characters[i..<(i + needle.count)]) == needle { return i }
            return nil
        }
        while index < characters.count {
            let c = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch c {
            case "-" where next == "-":
                let end = characters[index...].firstIndex(of: "\n") ?? characters.count
                copy(until: end)
            case "/" where next == "*":
                copy(until: (find(["*", "/"], from: index + 2) ?? characters.count) + 2)
            case "'", "\"":
                meaningful = true
                var i = index + 1
                while i < characters.count {
                    if characters[i] == c { if i + 1 < characters.count && characters[i + 1] == c { i += 2; continue }; break }
                    i += 1
                }
                copy(until: i + 1)
            case "$":
                meaningful = true
                var i = index + 1
                while i < characters.count, characters[i] == "_" || characters[i].properties.isAlphabetic || (i > index + 1 && characters[i].properties.numericType != nil) { i += 1 }
                if i < characters.count, characters[i] == "$" {
                    let tag = Array(characters[index...i])
                    copy(until: (find(tag, from: i + 1).map { $0 + tag.count }) ?? characters.count)
                } else {
                    copy(until: index + 1)
                }
            case ";":
                index += 1
                emit()
            default:
                if !c.properties.isWhitespace { meaningful = true }
                copy(until: index + 1)
            }
        }
        emit()
        return statements
    }
}
