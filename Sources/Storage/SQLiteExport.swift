import Foundation
import GRDB
import Pipeline

/// A feedline SQLite database read for `feedline store copy`: every table but SQLite's and
/// GRDB's own bookkeeping, rows in insertion order, read-only.
public final class SQLiteExport: TableExport {
    public let location: String
    private let queue: DatabaseQueue

    /// Opens `path` read-only (the caller has brought it to this feedline's schema).
    public init(path: String) throws {
        location = path
        try HotJournal.rollBack(path: path, busyTimeout: 5)
        var configuration = Configuration()
        configuration.readonly = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    public func tables() throws -> [ExportedTable] {
        try queue.read { db in
            let names = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master
                WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'grdb_migrations' ORDER BY name
                """)
            return try names.map { name in
                let columns = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [name]).map { $0[0] as String }
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0
                return ExportedTable(name: name, columns: columns, rowCount: count)
            }
        }
    }

    public func rows(of table: String, columns: [String], chunk: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        try queue.read { db in
            let withoutRowID = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table])?
                .uppercased().contains("WITHOUT ROWID") ?? false
            let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            // Rowid tables in insertion order; a WITHOUT ROWID table in its key's order.
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \(table.quotedDatabaseIdentifier)\(withoutRowID ? "" : " ORDER BY rowid")")
            var rows: [[StoreValue]] = []
            rows.reserveCapacity(chunk)
            while let row = try cursor.next() {
                rows.append(row.databaseValues.map(StoreValue.init))
                if rows.count == chunk { try body(rows); rows.removeAll(keepingCapacity: true) }
            }
            if !rows.isEmpty { try body(rows) }
        }
    }
}
