import Foundation
import GRDB
import Pipeline

/// An empty database with feedline's schema — feedline's own migrations, then the feeds' — held
/// in memory, so pipeline files can be checked against the tables, columns and SQL a real
/// database will have, before anything runs and without opening one (`feedline pipelines`).
///
/// Migrating a real (empty) database is the one way to know the schema exactly: views, columns
/// added by later migrations and triggers included, and SQL prepared here prepares, or fails,
/// as it will at run time. It takes a few milliseconds and is done once per process and schema.
public final class StoreSchemaProbe: @unchecked Sendable {
    /// `@unchecked Sendable`: GRDB's queue serialises every access.
    private let queue: DatabaseQueue

    /// Migrates a new in-memory database with feedline's migrations and `schema`'s.
    public init(schema: FeedSchema) throws {
        queue = try DatabaseQueue()
        let migrator = try FeedlineMigrations.migrator(with: schema)
        try queue.write { db in try SQLiteSchema.markHistoryApplied(db, migrator) }
        try migrator.migrate(queue)
    }

    private static let cache = ProbeCache()

    /// The probe for `schema`, migrated on first use and kept for the life of the process.
    public static func shared(schema: FeedSchema) throws -> StoreSchemaProbe {
        try cache.probe(for: schema)
    }

    /// Every table and view, sorted (SQLite's and GRDB's own left out).
    public var relations: [String] {
        (try? queue.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type IN ('table', 'view')
                AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations' ORDER BY name
                """)
        }) ?? []
    }

    /// The columns of table or view `relation`, in order; nil when there is none.
    public func columns(of relation: String) -> [String]? {
        let columns = (try? queue.read { db in try CheckSQL.columns(of: relation, in: db) }) ?? []
        return columns.isEmpty ? nil : columns
    }

    /// The columns that identify a row of `table` (primary key, else its first unique index);
    /// empty for a view or a table with neither.
    public func key(of table: String) -> [String] {
        (try? queue.read { db in try CheckSQL.keyColumns(of: table, in: db) }) ?? []
    }

    /// Why `sql` cannot be a check's statement — it does not prepare, is more than one
    /// statement, would write, or uses a parameter other than `:run_id` and `:pipeline` — or nil.
    public func problem(withCheckSQL sql: String) -> String? {
        do {
            let names = try queue.read { db in try ReadOnlyDatabase.prepareOne(db, sql: sql, subject: "a check's SQL").names }
            if let unknown = names.first(where: { !CheckEvaluator.sqlParameters.contains($0) }) {
                return "uses :\(unknown); a check's SQL may use only :run_id and :pipeline."
            }
            return nil
        } catch {
            return Self.sentence(error)
        }
    }

    /// Why `filter` is not a condition on the rows of `table` (a `where:`), or nil.
    public func problem(withFilter filter: String, on table: String) -> String? {
        if let shape = Self.shapeProblem(filter) { return shape }
        return problem(preparing: CheckSQL.filterProbe(filter, table: table))
    }

    /// Why `filter` is more than one condition: it is pasted into statements as `WHERE (…)`, so
    /// a comment, a `;` or a parenthesis it does not close itself could change the statement
    /// around it (`x = 1) OR (1`). Text inside quotes does not count.
    static func shapeProblem(_ filter: String) -> String? {
        var depth = 0
        var quote: Character?
        var previous: Character?
        for c in filter {
            if let q = quote {
                if c == q { quote = nil }
            } else {
                switch c {
                case "'", "\"", "`", "[": quote = c == "[" ? "]" : c
                case "(": depth += 1
                case ")":
                    depth -= 1
                    if depth < 0 { return "it closes a parenthesis it did not open" }
                case ";": return "it holds a ';': give one condition"
                case "-" where previous == "-", "*" where previous == "/": return "it holds a comment"
                default: break
                }
            }
            previous = c
        }
        if quote != nil { return "a quoted text in it is not closed" }
        return depth == 0 ? nil : "it opens a parenthesis it does not close"
    }

    /// Why a statement of `check` does not prepare against the schema, or nil.
    public func problem(with check: DataCheck) -> String? {
        let key = check.table.map(key(of:)) ?? []
        for sql in CheckSQL.statements(check, keyColumns: key) {
            if let problem = problem(preparing: sql) { return problem }
        }
        return nil
    }

    /// Why `sql` (a statement feedline built, its values bound as `?`) does not prepare as a
    /// read-only statement, or nil.
    private func problem(preparing sql: String) -> String? {
        do {
            let readOnly = try queue.read { db in try db.makeStatement(sql: sql).isReadonly }
            return readOnly ? nil : "the statement would change the database."
        } catch {
            return Self.sentence(error)
        }
    }

    private static func sentence(_ error: Error) -> String {
        let text = (error as? ReadOnlyQueryError)?.message ?? ReadOnlyDatabase.describe(error)
        return text.hasSuffix(".") ? text : text + "."
    }
}

/// The probes made so far, by the tables, views and migrations they were built from.
private final class ProbeCache: @unchecked Sendable {
    private let lock = NSLock()
    private var probes: [String: StoreSchemaProbe] = [:]

    func probe(for schema: FeedSchema) throws -> StoreSchemaProbe {
        let declared = schema.declarations.tables.map { ([$0.name] + $0.columns.map(\.name)).joined(separator: ",") }
            + schema.declarations.views.map { "view " + $0.name }
        let key = (declared + schema.migrations.map { "\($0.identifier)\u{0}\($0.sqlite)" }).joined(separator: "\u{1}")
        lock.lock()
        defer { lock.unlock() }
        if let probe = probes[key] { return probe }
        let probe = try StoreSchemaProbe(schema: schema)
        probes[key] = probe
        return probe
    }
}
