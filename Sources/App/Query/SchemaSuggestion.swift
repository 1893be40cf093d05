import Foundation
import Storage

/// "did you mean `measurement`?" for SQLite's `no such table: X` and `no such column: X`,
/// from the names the database really has (read through the query's read-only connection).
enum SchemaSuggestion {
    /// The hint for an SQLite error message, or nil when it names no missing table or column,
    /// or nothing in the schema is close.
    static func hint(for message: String, in database: ReadOnlyDatabase) -> String? {
        if let table = missingName(after: "no such table: ", in: message) {
            guard let names = try? tableNames(database) else { return nil }
            return Suggestions.didYouMean(table, among: names)
        }
        if let column = missingName(after: "no such column: ", in: message) {
            guard let tables = try? tableNames(database) else { return nil }
            var columns: Set<String> = []
            for table in tables { columns.formUnion((try? database.columns(of: table)) ?? []) }
            return Suggestions.didYouMean(column, among: columns)
        }
        return nil
    }

    /// The name after `marker` (`no such table: main.measurment` → `measurment`), without a
    /// schema or table qualifier.
    static func missingName(after marker: String, in message: String) -> String? {
        guard let range = message.range(of: marker) else { return nil }
        let rest = message[range.upperBound...].prefix { !$0.isWhitespace && $0 != ")" && $0 != "," }
        guard let name = rest.split(separator: ".").last, !name.isEmpty else { return nil }
        return String(name).trimmingCharacters(in: .init(charactersIn: "\"'`[]"))
    }

    /// Tables and views a query can name (SQLite's and GRDB's own bookkeeping left out).
    static func tableNames(_ database: ReadOnlyDatabase) throws -> [String] {
        try database.fetchAll(sql: """
            SELECT name FROM sqlite_master WHERE type IN ('table', 'view')
            AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'grdb\\_%' ESCAPE '\\'
            """).rows.compactMap { $0.first?.text }
    }
}
