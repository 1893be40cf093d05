import Foundation
import Pipeline

/// Why `feedline query` did not give rows from PostgreSQL.
public struct PostgresQueryError: SQLReadError, Sendable {
    public enum Kind: Sendable, Equatable {
        /// More than one statement, or one that is not a query, or one that would write.
        case refused
        /// A `:name` parameter has no value.
        case missingParameter(String)
        /// The server rejected or failed the statement (syntax, unknown table …).
        case server
        /// The statement ran longer than its time limit and was cancelled.
        case timedOut
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }

    public var failure: SQLReadFailure {
        switch kind {
        case .refused: .refused
        case .missingParameter(let name): .missingParameter(name)
        case .server: .failed
        case .timedOut: .timedOut
        }
    }
}

/// The SQL `feedline query` sends to PostgreSQL: exactly one reading statement, its `:name`
/// parameters turned into `$1 … $n` (outside quotes, comments and `::` casts).
public enum PostgresReadOnlySQL {
    /// Statements whose first keyword is one of these may run (the read-only transaction they
    /// run in then refuses any write they would do).
    public static let allowedFirstKeywords: Set<String> = ["SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW"]

    /// The statement with numbered parameters, the names in number order, and its first keyword.
    public static func prepare(_ sql: String) throws -> (sql: String, names: [String], keyword: String) {
        let statements = SQLScript.statements(sql)
        guard !statements.isEmpty else { throw PostgresQueryError(.refused, "The query is empty.") }
        guard statements.count == 1 else {
            throw PostgresQueryError(.refused, "Refused: only one SQL statement per query (found more after the first ';').")
        }
        let keyword = firstKeyword(statements[0])
        guard allowedFirstKeywords.contains(keyword) else {
            throw PostgresQueryError(.refused, "Refused: feedline query runs SELECT, WITH, VALUES, TABLE, EXPLAIN and SHOW statements, not \(keyword.isEmpty ? "this statement" : keyword).")
        }
        let (numbered, names) = numberParameters(statements[0])
        return (numbered, names, keyword)
    }

    /// The first word of `sql`, upper-cased, after whitespace, comments and opening parentheses.
    static func firstKeyword(_ sql: String) -> String {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "(" }
            if rest.hasPrefix("--") { rest = rest.drop { $0 != "\n" }; continue }
            if rest.hasPrefix("/*"), let end = rest.range(of: "*/") { rest = rest[end.upperBound...]; continue }
            break
        }
        return String(rest.prefix { $0.isLetter }).uppercased()
    }

    /// `:name` → `$n` (the same name, the same number) outside string literals, quoted
    /// identifiers, comments and dollar-quoted text; `::` casts are left alone.
    static func numberParameters(_ sql: String) -> (sql: String, names: [String]) {
        let c = Array(sql.unicodeScalars)
        var out = String.UnicodeScalarView()
        var names: [String] = []
        var i = 0
        func isStart(_ s: Unicode.Scalar) -> Bool { s == "_" || s.properties.isAlphabetic }
        func isPart(_ s: Unicode.Scalar) -> Bool { isStart(s) || ("0"..."9").contains(s) }
        func copy(to end: Int) { let end = min(end, c.count); while i < end { out.append(c[i]); i += 1 } }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int? {
            guard !needle.isEmpty, start + needle.count <= c.count else { return nil }
            for k in start...(c.count - needle.count) where Array(c[k..<(k + needle.count)]) == needle { return k }
            return nil
        }
        while i < c.count {
            let s = c[i], next: Unicode.Scalar? = i + 1 < c.count ? c[i + 1] : nil
            switch s {
            case "'", "\"":
                var k = i + 1
                while k < c.count {
                    if c[k] == s { if k + 1 < c.count && c[k + 1] == s { k += 2; continue }; break }
                    if s == "'" && c[k] == "\\" && i > 0 && (c[i - 1] == "E" || c[i - 1] == "e") { k += 2; continue }
                    k += 1
                }
                copy(to: k + 1)
            case "-" where next == "-":
                copy(to: (c[i...].firstIndex(of: "\n") ?? c.count))
            case "/" where next == "*":
                copy(to: (find(["*", "/"], from: i + 2) ?? c.count) + 2)
            case "$":
                var k = i + 1
                while k < c.count, isPart(c[k]) && !(k == i + 1 && ("0"..."9").contains(c[k])) { k += 1 }
                if k < c.count, c[k] == "$" {
                    let tag = Array(c[i...k])
                    copy(to: find(tag, from: k + 1).map { $0 + tag.count } ?? c.count)
                } else {
                    copy(to: k)
                }
            case ":" where next == ":":
                copy(to: i + 2)
            case ":" where next.map(isStart) == true:
                var k = i + 1
                while k < c.count, isPart(c[k]) { k += 1 }
                let name = String(String.UnicodeScalarView(c[(i + 1)..<k]))
                if !names.contains(name) { names.append(name) }
                out.append(contentsOf: "$\(names.firstIndex(of: name)! + 1)".unicodeScalars)
                i = k
            default:
                copy(to: i + 1)
            }
        }
        return (String(out), names)
    }
}
