import Domain
import Foundation
import GRDB
import GRDBSQLite
import Pipeline

/// Evaluates declared checks on the connection of an open load transaction, and records their
/// results in `check_result`.
///
/// The checks see the run's uncommitted rows. They only read: the connection is switched to
/// `PRAGMA query_only` for as long as they run, and a custom statement must pass the same test
/// as `feedline query` (one statement, read-only, no ATTACH or setting pragmas) before it runs.
struct CheckEvaluator {
    let db: Database
    /// Rows the load wrote or confirmed per table (`row_count`).
    let rowsWritten: [String: Int]

    /// The parameters a custom statement may use.
    static let sqlParameters: Set<String> = ["run_id", "pipeline"]

    func evaluate(_ checks: [DataCheck], context: CheckContext) throws -> [CheckResult] {
        try db.execute(sql: "PRAGMA query_only = 1")
        defer { try? db.execute(sql: "PRAGMA query_only = 0") }
        var keys: [String: [String]] = [:]
        return checks.map { check in
            do {
                let key = try check.table.map { table in
                    try keys[table] ?? { let k = try CheckSQL.keyColumns(of: table, in: db); keys[table] = k; return k }()
                } ?? []
                return try evaluate(check, keyColumns: key, context: context)
            } catch {
                return CheckResult(check, status: .error, failingRows: nil,
                                   message: "could not be evaluated: \(ReadOnlyDatabase.describe(error))")
            }
        }
    }

    private func evaluate(_ check: DataCheck, keyColumns: [String], context: CheckContext) throws -> CheckResult {
        let table = check.table ?? ""
        switch check.kind {
        case .rowCount:
            return check.rowCountResult(rowsWritten: rowsWritten[table] ?? 0, payloadsLoaded: context.payloadsLoaded)

        case .freshness(let column, let maxAge):
            if let skipped = check.freshnessSkipped(context) { return skipped }
            let query = CheckSQL.freshness(check, column: column, asOf: context.asOf)
            let row = try Row.fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments))
            let newest: String? = row?["newest"]
            // Julian days carry binary rounding: an hour can come out as 3600.0000002 s.
            let age: Double? = (row?["age_seconds"] as Double?).map { ($0 * 1000).rounded() / 1000 }
            guard let newest else {
                return CheckResult(check, status: .failed, failingRows: nil,
                                   message: check.message ?? "\(table) has no \(column) to judge (no rows\(check.filter == nil ? "" : " match the where condition"))")
            }
            guard let age else {
                return CheckResult(check, status: .error, failingRows: nil,
                                   message: "the newest \(table).\(column), '\(newest)', is not a time SQLite can read (ISO-8601, UTC)")
            }
            let fresh = age <= maxAge
            let text = "the newest \(table).\(column) is \(newest), \(DataCheck.duration(max(0, age))) old (limit \(DataCheck.duration(maxAge)))"
            return CheckResult(check, status: fresh ? .passed : .failed, failingRows: nil,
                               message: fresh ? text : check.message.map { "\($0) (\(text))" } ?? text,
                               sampleColumns: ["newest", "age_seconds"], sampleRows: [[.text(newest), .integer(Int64(age.rounded()))]])

        case .completeness(let entity, let time, let column, let hours, let min):
            let query = CheckSQL.completeness(check, entity: entity, time: time, column: column, hours: hours)
            let rows = try Row.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments))
            guard !rows.isEmpty else {
                return CheckResult(check, status: .failed, failingRows: nil,
                                   message: check.message ?? "\(table) has no rows to measure completeness on")
            }
            let present = rows.reduce(0) { $0 + ($1["hours_present"] as Int) }
            let expected = rows.count * hours
            let share = Double(present) / Double(expected)
            let complete = share + 1e-12 >= min
            let text = "\(DataCheck.percent(share)) of the expected station-hours in the newest \(hours) hours of \(table) are present "
                + "(\(present) of \(expected): \(rows.count) \(entity) × \(hours) hours; minimum \(DataCheck.percent(min)))"
            let sample = rows.prefix(DataCheck.sampleLimit).map { row in
                [StoreValue(row["entity"] as DatabaseValue), .integer(row["hours_present"]), .integer(Int64(hours))]
            }
            return CheckResult(check, status: complete ? .passed : .failed, failingRows: expected - present,
                               message: complete ? text : check.message.map { "\($0) (\(text))" } ?? text,
                               sampleColumns: [entity, "hours_present", "hours_expected"], sampleRows: sample)

        case .sql(let sql):
            let (statement, names) = try ReadOnlyDatabase.prepareOne(db, sql: sql, subject: "a check's SQL")
            if let unknown = names.first(where: { !Self.sqlParameters.contains($0) }) {
                return CheckResult(check, status: .error, failingRows: nil,
                                   message: "uses :\(unknown); a check's SQL may use only :run_id and :pipeline")
            }
            let values: [String: DatabaseValue] = ["run_id": context.run.rawValue.databaseValue, "pipeline": context.pipeline.databaseValue]
            let arguments = StatementArguments(Dictionary(uniqueKeysWithValues: names.map { ($0, values[$0]!) }))
            let (count, columns, sample) = try step(statement, arguments: arguments)
            return CheckResult(check, status: count == 0 ? .passed : .failed, failingRows: count,
                               message: count == 0 ? "the query returned no rows"
                                   : "\(check.message ?? "the query returned rows") (\(count) row\(count == 1 ? "" : "s"))",
                               sampleColumns: columns, sampleRows: sample)

        case .notNull, .unique, .acceptedValues, .acceptedRange, .relationships:
            guard let query = CheckSQL.failingRows(check, keyColumns: keyColumns) else {
                return CheckResult(check, status: .error, failingRows: nil, message: "has no statement")
            }
            let statement = try db.makeStatement(sql: query.sql)
            let (count, columns, sample) = try step(statement, arguments: StatementArguments(query.arguments))
            return check.failingRowsResult(count: count, columns: columns, sample: sample)
        }
    }

    /// How long one check may run: it runs inside the load's write transaction, so a statement
    /// that never ends (a recursive `WITH`, a cross join of large tables) must not hold it.
    static let timeLimit: TimeInterval = 60

    /// Steps through every row: how many there are, the column names, and the first few rows.
    /// Stops with an error after `timeLimit` of SQLite's time.
    private func step(_ statement: Statement, arguments: StatementArguments) throws -> (Int, [String], [[StoreValue]]) {
        let budget = StepBudget(seconds: Self.timeLimit)
        budget.install(on: db.sqliteConnection)
        // One value is bounded as in `feedline query`, and only while the check runs.
        let length = ReadOnlyDatabase.limitValueLength(on: db.sqliteConnection)
        defer {
            ReadOnlyDatabase.limitValueLength(on: db.sqliteConnection, to: length)
            StepBudget.remove(from: db.sqliteConnection); withExtendedLifetime(budget) {}
        }
        do {
            try statement.setArguments(arguments)
            let cursor = try Row.fetchCursor(statement)
            var count = 0
            var sample: [[StoreValue]] = []
            while true {
                budget.beginStep()
                let next = try cursor.next()
                budget.endStep()
                guard let row = next else { break }
                if sample.count < DataCheck.sampleLimit {
                    let sqlite = statement.sqliteStatement
                    sample.append((0..<row.count).map { SampleCell.read(sqlite, column: Int32($0)) })
                }
                count += 1
            }
            return (count, statement.columnNames, sample)
        } catch let error as DatabaseError where budget.expired {
            throw CheckTimedOut(seconds: Self.timeLimit, underlying: error)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_TOOBIG {
            throw ReadOnlyDatabase.valueTooLarge("The check")
        }
    }

    // MARK: - Recording

    /// Writes `results` as the check results of `run` (ordinals from 1, in order).
    static func record(_ results: [CheckResult], run: RunID, in db: Database) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO check_result (run_id, ordinal, check_name, kind, table_name, severity, on_failure, status, failing_rows, message, sample)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (index, result) in results.enumerated() {
            try insert.execute(arguments: [run.rawValue, index + 1, result.name, result.kind, result.table, result.severity.rawValue,
                                           result.onFailure.rawValue, result.status.rawValue, result.failingRows, result.message,
                                           result.sampleRows.isEmpty ? nil : sampleJSON(columns: result.sampleColumns, rows: result.sampleRows)])
        }
    }

    /// `[{"column": value, …}, …]`, keys in column order.
    static func sampleJSON(columns: [String], rows: [[StoreValue]]) -> String {
        "[" + rows.map { row in
            "{" + zip(columns, row).map { "\(jsonString($0)):\(jsonValue($1))" }.joined(separator: ",") + "}"
        }.joined(separator: ",") + "]"
    }

    static func jsonValue(_ value: StoreValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let v): String(v)
        case .real(let v): v.isFinite ? String(v) : "null"
        case .text(let v): jsonString(v)
        }
    }

    /// `text` as a JSON string, by `JSONEncoder` (a lone surrogate cannot occur in a Swift string).
    static func jsonString(_ text: String) -> String {
        (try? encoder.encode(text)).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}

extension SQLiteStore {
    /// The check results recorded with `run`, in check order (samples left out).
    public func checkResults(run: RunID) throws -> [CheckResult] {
        try pool.read { db in
            guard try db.tableExists("check_result") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT * FROM check_result WHERE run_id = ? ORDER BY ordinal", arguments: [run.rawValue]).map { row in
                CheckResult(name: row["check_name"], kind: row["kind"], table: row["table_name"],
                            severity: CheckSeverity(rawValue: row["severity"]) ?? .error,
                            onFailure: CheckFailureAction(rawValue: row["on_failure"]) ?? .rollback,
                            status: CheckResult.Status(rawValue: row["status"]) ?? .error,
                            failingRows: row["failing_rows"], message: row["message"])
            }
        }
    }
}

/// A check's statement ran past `CheckEvaluator.timeLimit` and was stopped.
struct CheckTimedOut: Error, CustomStringConvertible {
    var seconds: TimeInterval
    var underlying: DatabaseError
    var description: String { "stopped after \(Int(seconds)) s: the statement runs too long for a check (a recursive WITH, a join without a condition?)" }
}

/// The SQLite side of `SampleCell` (Pipeline): a column is read only up to the bound.
extension SampleCell {
    /// Column `column` of the current row of `statement`, bounded: a text or blob longer than
    /// `maximumBytes` is read only up to the bound (its length from `sqlite3_column_bytes`), so
    /// no copy of the whole value is made.
    static func read(_ statement: SQLiteStatement, column: Int32) -> StoreValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .null }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(cut(UnsafeRawBufferPointer(start: text, count: min(count, maximumBytes + 4)), total: count))
        default:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let blob = sqlite3_column_blob(statement, column) else { return .text("") }
            return .text(cut(UnsafeRawBufferPointer(start: blob, count: min(count, maximumBytes + 4)), total: count))
        }
    }
}
