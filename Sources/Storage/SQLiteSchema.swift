import GRDB
import Pipeline

/// SQLite's words for the declared schema (`SchemaRenderer` writes the statements).
struct SQLiteDialect: DDLDialect {
    /// A UTC instant as `iso8601UTC` writes it, for `GLOB`.
    static let utcPattern = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'"

    func typeName(_ type: ColumnType) -> String {
        switch type {
        case .text, .instant, .date: "TEXT"
        case .integer, .smallInteger: "INTEGER"
        case .real: "REAL"
        case .rowID: "INTEGER PRIMARY KEY"
        }
    }

    func predicate(_ check: ColumnCheck, column declaration: ColumnDeclaration) -> String? {
        let column = declaration.name
        return switch check {
        case .predicate(let text): "\(column) \(text)"
        case .wholeSecondInstant: "\(column) GLOB \(Self.utcPattern)"
        case .pattern(let glob, _): "\(column) GLOB '\(glob)'"
        }
    }

    func keyConstraint(_ table: TableDeclaration) -> String {
        let columns = table.key.joined(separator: ", ")
        return table.keyLayout == .uniqueInRowidOrder ? "UNIQUE (\(columns))" : "PRIMARY KEY (\(columns))"
    }

    func tableOptions(_ table: TableDeclaration) -> String {
        table.keyLayout == .clusteredByKey ? " WITHOUT ROWID" : ""
    }

    func text(_ sql: DialectSQL) -> String { sql.text(with: self) { $0.sqlite } }

    func month(of day: String) -> String { "substr(\(day), 1, 7)" }
    func day(_ day: String, minusDays days: Int) -> String { "date(\(day), '-\(days) days')" }
    func greater(_ a: String, _ b: String) -> String { "max(\(a), \(b))" }
    /// A comparison is 0 or 1 already.
    func integer(_ condition: String) -> String { "(\(condition))" }
    func seconds(from start: String, to end: String) -> String {
        "CAST(round((julianday(\(end)) - julianday(\(start))) * 86400) AS INTEGER)"
    }
    func round(_ number: String, _ places: Int) -> String { "round(\(number), \(places))" }
    func fixed(_ number: String, _ places: Int) -> String { "printf('%.\(places)f', \(number))" }
    /// Instants are `iso8601UTC` text; `strftime` writes the same form back.
    func hourStart(of instant: String) -> String { "strftime('%Y-%m-%dT%H:00:00Z', \(instant))" }
    func instant(_ instant: String, plusHours hours: Int) -> String {
        "strftime('%Y-%m-%dT%H:%M:%SZ', \(instant), '\(hours >= 0 ? "+" : "")\(hours) hours')"
    }

    func dropView(_ name: String) -> String { "DROP VIEW IF EXISTS \(name)" }
}

/// Brings a SQLite database to the declared schema.
enum SQLiteSchema {
    /// The migration identifier of the declared schema. A change to a declaration that an
    /// `ALTER TABLE … ADD` can make (a new table, column, index, view or trigger), or a view's
    /// query changing, comes with a new identifier here, so that files the earlier step built
    /// run the step again (which recreates every view) and an older feedline knows the file is
    /// newer; the earlier identifiers go to `FeedlineMigrations.releasedDeclaredSteps`.
    /// `declared-v2`: `exposure_weekly` no longer counts a day without data as 0 µg.
    /// `declared-v3`: `air_quality_hourly` dates each row by the UTC hour it stands for
    /// (`hour_start_utc`, `hour_end_utc`) and shows the gases with their unit in the name; the
    /// `field_drift` ledger table (schema drift).
    static let declaredStep = "declared-v3"

    /// feedline's own declarations (the ledger and the reference tables) and `schema`'s.
    static func declarations(_ schema: FeedSchema) -> SchemaDeclarations {
        LedgerTables.declarations + ReferenceTables.declarations + schema.declarations
    }

    /// What `db` holds.
    static func catalog(_ db: Database) throws -> SchemaCatalog {
        var catalog = SchemaCatalog()
        for row in try Row.fetchAll(db, sql: "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") {
            let name: String = row["name"]
            switch row["type"] as String {
            case "table": catalog.tables[name] = try db.columns(in: name).map(\.name)
            case "view": catalog.views.insert(name)
            case "index": catalog.indexes.insert(name)
            case "trigger": catalog.triggers.insert(name)
            default: break
            }
        }
        return catalog
    }

    /// Creates what is missing (`SchemaRenderer.reconcile`), in the caller's transaction.
    static func reconcile(_ db: Database, to declarations: SchemaDeclarations) throws {
        for statement in SchemaRenderer.reconcile(try catalog(db), to: declarations, in: SQLiteDialect()) {
            try db.execute(sql: statement)
        }
    }

    /// Whether a table, view, index or trigger `declarations` name is missing from `db`
    /// (a feed registered after the file was made).
    static func isIncomplete(_ db: Database, for declarations: SchemaDeclarations) throws -> Bool {
        var catalog = SchemaCatalog()
        for row in try Row.fetchAll(db, sql: "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") {
            let name: String = row["name"]
            switch row["type"] as String {
            case "table": catalog.tables[name] = declarations.table(name)?.columns.map(\.name) ?? []
            case "view": catalog.views.insert(name)
            case "index": catalog.indexes.insert(name)
            case "trigger": catalog.triggers.insert(name)
            default: break
            }
        }
        return SchemaRenderer.isIncomplete(catalog, for: declarations)
    }

    /// Prepares a new, empty database: the released migrations that built older files are
    /// recorded as applied without running them (the declared step builds the same schema
    /// directly), so the migrator then runs the declared step alone.
    static func markHistoryApplied(_ db: Database, _ migrator: DatabaseMigrator) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for identifier in migrator.migrations {
            guard FeedlineMigrations.released.contains(identifier) else { continue }
            try db.execute(sql: "INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
        }
    }
}
