import Foundation

/// Read-only SQL, as the readers (`report`, `intake`'s suggestions) run it: SQLite's
/// `ReadOnlyDatabase`, or a read-only transaction on PostgreSQL (the composition root adapts
/// the PostgreSQL store). The SQL must mean the same on both: standard functions, `:name`
/// parameters, `CAST(:x AS TEXT)` where a parameter's type cannot be inferred.
public protocol SQLReading {
    /// Runs one reading statement, streaming: `columns` once, then `row` per row. Nothing it
    /// runs is ever written.
    func run(sql: String, parameters: [String: SQLValue], timeout: TimeInterval?,
             columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws
}

extension SQLReading {
    /// Every row of one reading statement (for small results).
    public func fetchAll(sql: String, parameters: [String: SQLValue] = [:]) throws -> (columns: [String], rows: [[SQLValue]]) {
        var names: [String] = []
        var rows: [[SQLValue]] = []
        try run(sql: sql, parameters: parameters, timeout: nil, columns: { names = $0 }, row: { rows.append($0) })
        return (names, rows)
    }

    public func run(sql: String, parameters: [String: SQLValue] = [:],
                    columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        try run(sql: sql, parameters: parameters, timeout: nil, columns: columns, row: row)
    }
}

extension ReadOnlyDatabase: SQLReading {}
