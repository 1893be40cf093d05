#if PostgreSQL
import Domain
import Foundation
import Pipeline

extension PostgresStore {
    /// The `:name` parameters `sql` uses, refusing (without running it) what `query` refuses.
    public func checkQuery(_ sql: String) throws -> [String] {
        try PostgresReadOnlySQL.prepare(sql).names
    }

    /// Runs one reading statement in a read-only transaction, streaming: `columns` once with the
    /// column names, then `row` per row, fetched through a cursor 1,000 rows at a time (bounded
    /// memory whatever the result's size).
    ///
    /// `parameters` are the `:name` values as text; the server reads each as the type the
    /// statement needs there. `timeout` (seconds; nil or 0: none) is the statement timeout of
    /// each step. A statement that would write is refused by the server (read-only
    /// transaction) and reported as `.refused`; nothing is ever committed.
    public func query(_ sql: String, parameters: [String: String?], timeout: TimeInterval?,
                      columns: ([String]) throws -> Void, row: ([StoreValue]) throws -> Void) throws {
        let (statement, names, keyword) = try PostgresReadOnlySQL.prepare(sql)
        if let missing = names.first(where: { parameters[$0] == nil }) {
            throw PostgresQueryError(.missingParameter(missing), "The query uses :\(missing) but no value was given; pass --param \(missing)=VALUE.")
        }
        let values = names.map { parameters[$0]! }
        do {
            try link.run("BEGIN READ ONLY")
            defer { _ = try? link.run("ROLLBACK") }
            let milliseconds = timeout.map { $0 > 0 && $0.isFinite ? max(1, Int(($0 * 1000).rounded())) : 0 } ?? 0
            try link.run("SET LOCAL statement_timeout = \(milliseconds)")
            guard ["SELECT", "WITH", "VALUES", "TABLE"].contains(keyword) else {
                // EXPLAIN and SHOW answer in a few rows and cannot be a cursor's query.
                let result = try link.run(statement, inferring: values)
                try columns(result.columns)
                for r in result.rows { try row(r) }
                return
            }
            try link.run("DECLARE feedline_query NO SCROLL CURSOR FOR \(statement)", inferring: values)
            var first = true
            while true {
                let page = try link.run("FETCH FORWARD 1000 FROM feedline_query")
                if first {
                    first = false
                    // An empty result names no columns: ask for them with one row of NULLs.
                    try columns(page.rows.isEmpty ? try link.run("""
                        SELECT feedline_result.* FROM (SELECT 1) AS feedline_one LEFT JOIN (\(statement)) AS feedline_result ON false
                        """, inferring: values).columns : page.columns)
                }
                for r in page.rows { try row(r) }
                if page.rows.count < 1000 { break }
            }
        } catch let error as PostgresStoreError {
            switch error.sqlState {
            case "0A000" where error.message.contains("data-modifying"), "25006":
                throw PostgresQueryError(.refused, "Refused: \(address) is queried read-only and this statement would change the database. Nothing was run.")
            case "57014":
                throw PostgresQueryError(.timedOut, "The query stopped after \(Self.seconds(timeout ?? 0)) (--timeout); give a larger --timeout, or --timeout 0 for no limit.")
            default:
                throw PostgresQueryError(.server, error.message)
            }
        }
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int(value)) s" : "\(value) s"
    }
}
#endif
