import Foundation
import Pipeline

/// "did you mean `measurement`?" for SQLite's `no such table: X` and `no such column: X` (and
/// PostgreSQL's `relation "X" does not exist`, `column "X" does not exist`), from the names the
/// database really has (read through the query's read-only connection).
enum SchemaSuggestion {
    /// The hint for an error message, or nil when it names no missing table or column,
    /// or nothing in the schema is close.
    ///
    /// A column is looked for first among the columns of the tables and views the query names
    /// (`station` in a query of `measurement` → `station_name`), then in the whole schema.
    static func hint(for message: String, sql: String = "", in database: any DatabaseReading) -> String? {
        if let table = missingName(after: "no such table: ", in: message) ?? missingName(after: "relation \"", in: message) {
            guard let relations = try? relations(database) else { return nil }
            return Suggestions.didYouMean(table, among: relations.map(\.name))
        }
        if let column = missingName(after: "no such column: ", in: message) ?? missingName(after: "column \"", in: message) {
            guard let relations = try? relations(database) else { return nil }
            let words = Set(sql.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            let named = relations.filter { words.contains($0.name.lowercased()) }
            return Suggestions.didYouMean(column, among: Set(named.flatMap { $0.columns.map(\.name) }))
                ?? Suggestions.didYouMean(column, among: Set(relations.flatMap { $0.columns.map(\.name) }))
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
    static func relations(_ database: any DatabaseReading) throws -> [DatabaseSchema.Relation] {
        try database.schema().relations.filter { !$0.name.hasPrefix("sqlite_") && !$0.name.hasPrefix("grdb_") }
    }
}
