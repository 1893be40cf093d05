#if PostgreSQL
import Domain
import Foundation
import Pipeline

/// Evaluates a pipeline's declared checks inside the open load transaction, in PostgreSQL's
/// dialect. Each check runs inside a savepoint that is rolled back afterwards, so nothing a
/// check's SQL does is kept and a failing statement does not abort the load; each statement
/// stops after `timeLimit`.
struct PostgresCheckEvaluator {
    let link: PostgresLink
    let rowsWritten: [String: Int]

    static let timeLimit = 60

    func evaluate(_ checks: [DataCheck], context: CheckContext) throws -> [CheckResult] {
        var keys: [String: [String]] = [:]
        return try checks.map { check in
            try link.run("SAVEPOINT feedline_check")
            try link.run("SET LOCAL statement_timeout = '\(Self.timeLimit)s'")
            defer {
                _ = try? link.run("ROLLBACK TO SAVEPOINT feedline_check")
                _ = try? link.run("RELEASE SAVEPOINT feedline_check")
            }
            do {
                let key = try check.table.map { table in
                    try keys[table] ?? { let k = try keyColumns(of: table); keys[table] = k; return k }()
                } ?? []
                return try evaluate(check, keyColumns: key, context: context)
            } catch let error as PostgresStoreError where error.sqlState == "57014" {
                return CheckResult(check, status: .error, failingRows: nil, message: "could not be evaluated: stopped after \(Self.timeLimit) s")
            } catch {
                return CheckResult(check, status: .error, failingRows: nil, message: "could not be evaluated: \(error)")
            }
        }
    }

    /// The primary key's columns, else the first unique constraint's.
    private func keyColumns(of table: String) throws -> [String] {
        try link.run("""
            SELECT a.attname FROM pg_constraint c
            JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) ON true
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
            WHERE c.conrelid = to_regclass($1) AND c.contype IN ('p', 'u')
              AND c.oid = (SELECT oid FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype IN ('p', 'u')
                           ORDER BY contype, oid LIMIT 1)
            ORDER BY k.n
            """, [.text(quoted(table))]).rows.compactMap { if case .text(let t) = $0.first { t } else { nil } }
    }

    private func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    private func evaluate(_ check: DataCheck, keyColumns: [String], context: CheckContext) throws -> CheckResult {
        let table = check.table ?? ""
        let from = "FROM \(quoted(table)) AS checked"
        func and(_ condition: String) -> String { check.filter.map { "(\(condition)) AND (\($0))" } ?? condition }
        func c(_ column: String) -> String { "checked.\(quoted(column))" }
        func select(_ columns: [String]) -> String {
            var seen = Set<String>()
            return (keyColumns + columns).filter { seen.insert($0).inserted }.map(c).joined(separator: ", ")
        }
        let orderBy = keyColumns.isEmpty ? "" : " ORDER BY \(keyColumns.map(c).joined(separator: ", "))"

        switch check.kind {
        case .rowCount:
            return check.rowCountResult(rowsWritten: rowsWritten[table] ?? 0, payloadsLoaded: context.payloadsLoaded)

        case .freshness(let column, let maxAge):
            if let skipped = check.freshnessSkipped(context) { return skipped }
            let result = try link.run("""
                SELECT max(\(c(column)))::text AS newest,
                       extract(epoch FROM ($1::timestamptz - max(\(c(column)))::timestamptz))::double precision AS age_seconds
                \(from) WHERE \(and("\(c(column)) IS NOT NULL"))
                """, [.text(iso8601UTC(context.asOf))])
            guard let row = result.rows.first, case .text(let newest) = row[0], case .real(let age) = row[1] else {
                return CheckResult(check, status: .failed, failingRows: nil,
                                   message: check.message ?? "\(table) has no \(column) to judge (no rows\(check.filter == nil ? "" : " match the where condition"))")
            }
            let fresh = age <= maxAge
            let text = "the newest \(table).\(column) is \(newest), \(DataCheck.duration(max(0, age))) old (limit \(DataCheck.duration(maxAge)))"
            return CheckResult(check, status: fresh ? .passed : .failed, failingRows: nil,
                               message: fresh ? text : check.message.map { "\($0) (\(text))" } ?? text,
                               sampleColumns: ["newest", "age_seconds"], sampleRows: [[.text(newest), .integer(Int64(age.rounded()))]])

        case .completeness(let entity, let time, let column, let hours, let min):
            let present = column.map { "\(c($0)) IS NOT NULL" } ?? "true"
            let rows = try link.run("""
                WITH seen AS (
                    SELECT \(c(entity)) AS entity, date_trunc('hour', \(c(time))::timestamptz) AS hour, (\(present)) AS present
                    \(from) WHERE \(and("\(c(entity)) IS NOT NULL AND \(c(time)) IS NOT NULL"))
                ),
                newest AS (SELECT max(hour) AS hour FROM seen),
                recent AS (SELECT seen.* FROM seen, newest WHERE seen.hour > newest.hour - make_interval(hours => $1::int))
                SELECT entity::text, count(DISTINCT CASE WHEN present THEN hour END)::bigint AS hours_present
                FROM recent GROUP BY entity ORDER BY hours_present, entity
                """, [.integer(Int64(hours))]).rows
            guard !rows.isEmpty else {
                return CheckResult(check, status: .failed, failingRows: nil, message: check.message ?? "\(table) has no rows to measure completeness on")
            }
            let present_ = rows.reduce(0) { total, row in if case .integer(let n) = row[1] { total + Int(n) } else { total } }
            let expected = rows.count * hours
            let share = Double(present_) / Double(expected)
            let complete = share + 1e-12 >= min
            let percent = DataCheck.percent
            let text = "\(percent(share)) of the expected station-hours in the newest \(hours) hours of \(table) are present "
                + "(\(present_) of \(expected): \(rows.count) \(entity) × \(hours) hours; minimum \(percent(min)))"
            return CheckResult(check, status: complete ? .passed : .failed, failingRows: expected - present_,
                               message: complete ? text : check.message.map { "\($0) (\(text))" } ?? text,
                               sampleColumns: [entity, "hours_present", "hours_expected"],
                               sampleRows: rows.prefix(DataCheck.sampleLimit).map { [$0[0], $0[1], .integer(Int64(hours))] })

        case .sql(let sql):
            // `:run_id` and `:pipeline`, as in SQLite, become positional parameters.
            let rewritten = sql.replacingOccurrences(of: ":run_id", with: "$1::bigint").replacingOccurrences(of: ":pipeline", with: "$2::text")
            let result = try link.run("SELECT * FROM (\(rewritten)) AS checked", [.integer(context.run.rawValue), .text(context.pipeline)])
            let count = result.rows.count
            return CheckResult(check, status: count == 0 ? .passed : .failed, failingRows: count,
                               message: count == 0 ? "the query returned no rows" : "\(check.message ?? "the query returned rows") (\(count) row\(count == 1 ? "" : "s"))",
                               sampleColumns: result.columns, sampleRows: Array(result.rows.prefix(DataCheck.sampleLimit)))

        case .notNull(let columns):
            let condition = columns.map { "\(c($0)) IS NULL" }.joined(separator: " OR ")
            return try failing(check, "SELECT \(select(columns)) \(from) WHERE \(and(condition))\(orderBy)", [])
        case .unique(let columns):
            let list = columns.map(c).joined(separator: ", ")
            let presentAll = columns.map { "\(c($0)) IS NOT NULL" }.joined(separator: " AND ")
            return try failing(check, "SELECT \(list), count(*) AS occurrences \(from) WHERE \(and(presentAll)) GROUP BY \(list) HAVING count(*) > 1 ORDER BY \(list)", [])
        case .acceptedValues(let column, let values):
            let placeholders = values.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
            return try failing(check, "SELECT \(select([column])) \(from) WHERE \(and("\(c(column)) IS NOT NULL AND \(c(column))::text NOT IN (\(placeholders))"))\(orderBy)",
                               values.map { .text($0) })
        case .acceptedRange(let column, let min, let max, let minInclusive, let maxInclusive):
            var outside: [String] = [], arguments: [StoreValue] = []
            if let min { arguments.append(.real(min)); outside.append("\(c(column)) \(minInclusive ? "<" : "<=") $\(arguments.count)::double precision") }
            if let max { arguments.append(.real(max)); outside.append("\(c(column)) \(maxInclusive ? ">" : ">=") $\(arguments.count)::double precision") }
            let condition = "\(c(column)) IS NOT NULL AND (\(outside.isEmpty ? "false" : outside.joined(separator: " OR ")))"
            return try failing(check, "SELECT \(select([column])) \(from) WHERE \(and(condition))\(orderBy)", arguments)
        case .relationships(let column, let to, let toColumn):
            let condition = "\(c(column)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(quoted(to)) AS parent WHERE parent.\(quoted(toColumn)) = \(c(column)))"
            return try failing(check, "SELECT \(select([column])) \(from) WHERE \(and(condition))\(orderBy)", [])
        }
    }

    private func failing(_ check: DataCheck, _ sql: String, _ arguments: [StoreValue]) throws -> CheckResult {
        let result = try link.run(sql, arguments)
        return check.failingRowsResult(count: result.rows.count, columns: result.columns, sample: Array(result.rows.prefix(DataCheck.sampleLimit)))
    }
}
#endif
