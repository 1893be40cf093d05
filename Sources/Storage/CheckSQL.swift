import Domain
import Foundation
import GRDB
import Pipeline

/// The SQLite statements behind the built-in checks. Each row-level check becomes one SELECT of
/// the rows that break it (with the table's key columns first, so a sample row says which row
/// it is); `freshness` and `completeness` read the figures they judge. Identifiers are quoted;
/// values are bound, never spliced in. The catalog prepares these same statements against an
/// empty database of feedline's schema (`StoreSchemaProbe`), so a check that validates prepares
/// at run time too.
enum CheckSQL {
    /// A statement with its arguments.
    struct Query {
        var sql: String
        var arguments: [DatabaseValue]
    }

    /// The columns that identify a row of `table`: its primary key, else the columns of its first
    /// unique index (measurement: station_name, observed_at), else none (a view).
    static func keyColumns(of table: String, in db: Database) throws -> [String] {
        let primary = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [table])
        if !primary.isEmpty { return primary }
        guard try db.tableExists(table) else { return [] }
        let unique = try db.indexes(on: table).filter(\.isUnique)
        return (unique.first { $0.origin == .uniqueConstraint } ?? unique.first)?.columns ?? []
    }

    /// The columns of table or view `name`, in order; empty when there is none.
    static func columns(of name: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name])
    }

    /// The rows that break a row-level check, or nil for the kinds judged on a whole.
    static func failingRows(_ check: DataCheck, keyColumns: [String]) -> Query? {
        guard let table = check.table else {
            if case .sql(let sql) = check.kind { return Query(sql: sql, arguments: []) }
            return nil
        }
        let from = "FROM \(table.quotedDatabaseIdentifier) AS checked"
        func and(_ condition: String) -> String {
            check.filter.map { "(\(condition)) AND (\($0))" } ?? condition
        }
        func select(_ columns: [String]) -> String {
            var seen = Set<String>()
            return (keyColumns + columns).filter { seen.insert($0).inserted }.map { "checked.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")
        }
        func order(_ columns: [String]) -> String {
            columns.map { "checked.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")
        }
        let orderBy = keyColumns.isEmpty ? "" : " ORDER BY \(order(keyColumns))"
        switch check.kind {
        case .notNull(let columns):
            let condition = columns.map { "checked.\($0.quotedDatabaseIdentifier) IS NULL" }.joined(separator: " OR ")
            return Query(sql: "SELECT \(select(columns)) \(from) WHERE \(and(condition))\(orderBy)", arguments: [])
        case .unique(let columns):
            let list = order(columns)
            let present = columns.map { "checked.\($0.quotedDatabaseIdentifier) IS NOT NULL" }.joined(separator: " AND ")
            return Query(sql: "SELECT \(list), count(*) AS occurrences \(from) WHERE \(and(present)) GROUP BY \(list) HAVING count(*) > 1 ORDER BY \(list)",
                         arguments: [])
        case .acceptedValues(let column, let values):
            let c = "checked.\(column.quotedDatabaseIdentifier)"
            let placeholders = values.map { _ in "?" }.joined(separator: ", ")
            return Query(sql: "SELECT \(select([column])) \(from) WHERE \(and("\(c) IS NOT NULL AND \(c) NOT IN (\(placeholders))"))\(orderBy)",
                         arguments: values.map { SQLValue(parameter: $0).databaseValue })
        case .acceptedRange(let column, let min, let max, let minInclusive, let maxInclusive):
            let c = "checked.\(column.quotedDatabaseIdentifier)"
            var outside: [String] = [], arguments: [DatabaseValue] = []
            if let min { outside.append("\(c) \(minInclusive ? "<" : "<=") ?"); arguments.append(min.databaseValue) }
            if let max { outside.append("\(c) \(maxInclusive ? ">" : ">=") ?"); arguments.append(max.databaseValue) }
            let condition = "\(c) IS NOT NULL AND (\(outside.isEmpty ? "0" : outside.joined(separator: " OR ")))"
            return Query(sql: "SELECT \(select([column])) \(from) WHERE \(and(condition))\(orderBy)", arguments: arguments)
        case .relationships(let column, let to, let toColumn):
            let c = "checked.\(column.quotedDatabaseIdentifier)"
            let condition = "\(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(to.quotedDatabaseIdentifier) AS parent "
                + "WHERE parent.\(toColumn.quotedDatabaseIdentifier) = \(c))"
            return Query(sql: "SELECT \(select([column])) \(from) WHERE \(and(condition))\(orderBy)", arguments: [])
        case .rowCount, .freshness, .completeness, .sql:
            return nil
        }
    }

    /// `freshness`: the newest value of the column and its age in seconds at `asOf`.
    static func freshness(_ check: DataCheck, column: String, asOf: Date) -> Query {
        let c = "checked.\(column.quotedDatabaseIdentifier)"
        let condition = check.filter.map { "\(c) IS NOT NULL AND (\($0))" } ?? "\(c) IS NOT NULL"
        return Query(sql: """
            SELECT max(\(c)) AS newest, (julianday(?) - julianday(max(\(c)))) * 86400.0 AS age_seconds
            FROM \((check.table ?? "").quotedDatabaseIdentifier) AS checked WHERE \(condition)
            """, arguments: [iso8601UTC(asOf).databaseValue])
    }

    /// `completeness`: one row per entity seen in the newest `hours` hours of the table, with the
    /// hours it has (with a non-NULL `column`, when given), fewest first.
    static func completeness(_ check: DataCheck, entity: String, time: String, column: String?, hours: Int) -> Query {
        let e = "checked.\(entity.quotedDatabaseIdentifier)", t = "checked.\(time.quotedDatabaseIdentifier)"
        let present = column.map { "checked.\($0.quotedDatabaseIdentifier) IS NOT NULL" } ?? "1"
        let condition = check.filter.map { "\(e) IS NOT NULL AND \(t) IS NOT NULL AND (\($0))" } ?? "\(e) IS NOT NULL AND \(t) IS NOT NULL"
        return Query(sql: """
            WITH seen AS (
                SELECT \(e) AS entity, strftime('%Y-%m-%d %H:00:00', \(t)) AS hour, (\(present)) AS present
                FROM \((check.table ?? "").quotedDatabaseIdentifier) AS checked WHERE \(condition)
            ),
            newest AS (SELECT max(hour) AS hour FROM seen),
            recent AS (SELECT seen.* FROM seen, newest WHERE seen.hour IS NOT NULL AND seen.hour > datetime(newest.hour, ?))
            SELECT entity, count(DISTINCT CASE WHEN present THEN hour END) AS hours_present, ? AS hours_expected
            FROM recent GROUP BY entity ORDER BY hours_present, entity
            """, arguments: ["-\(hours) hours".databaseValue, hours.databaseValue])
    }

    /// A statement that prepares only when `filter` is a condition on `table`'s rows.
    static func filterProbe(_ filter: String, table: String) -> String {
        "SELECT 1 FROM \(table.quotedDatabaseIdentifier) AS checked WHERE (\(filter))"
    }

    /// The statements a check runs, for preparing them without running (`StoreSchemaProbe`).
    static func statements(_ check: DataCheck, keyColumns: [String]) -> [String] {
        switch check.kind {
        case .freshness(let column, _): return [freshness(check, column: column, asOf: Date(timeIntervalSince1970: 0)).sql]
        case .completeness(let entity, let time, let column, let hours, _):
            return [completeness(check, entity: entity, time: time, column: column, hours: hours).sql]
        case .rowCount: return []
        default: return failingRows(check, keyColumns: keyColumns).map { [$0.sql] } ?? []
        }
    }
}
