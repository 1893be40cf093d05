import App
import Foundation
import GRDB
import Pipeline
import PostgresStorage
import Storage
import Testing
import TestSupport

/// The declared schema (`SchemaDeclarations`) is what every store holds: a new database on each
/// store, and a database the released migrations built before the schema was declared
/// (`Data/fixtures/upgrade/`: made by the release at 7eb7c04 from the bundled fixtures), are
/// compared with the declaration column by column — name, order, type, NOT NULL, default, key —
/// with their indexes, views and triggers. The released database must upgrade keeping every row.
@Suite("Declared schema on every store", .serialized)
struct DeclaredSchemaTests {
    static let declarations = LedgerTables.declarations + ReferenceTables.declarations + AppEnvironment.standardSchema.declarations
    static let storeOwn: Set<String> = ["grdb_migrations", "feedline_migration", "sqlite_sequence"]
    /// Tables declared after the released database was made (`declared-v3`: `field_drift`): the
    /// upgrade creates them, empty.
    static let addedSinceRelease: Set<String> = ["field_drift"]

    @Test("a new database holds exactly the declared tables, columns, indexes, views and triggers", arguments: TestStore.all)
    func newDatabase(_ store: TestStore) throws {
        let dir = try TemporaryDirectory("declared-new")
        defer { dir.remove() }
        let db = try TestDatabase(store, file: dir.url.appendingPathComponent("new.sqlite"), name: "declared_new")
        try Self.open(db)
        try Self.expectMatchesDeclaration(db)
    }

    @Test("a database the released migrations built matches the declaration and upgrades keeping every row", arguments: TestStore.all)
    func releasedDatabase(_ store: TestStore) throws {
        let dir = try TemporaryDirectory("declared-upgrade")
        defer { dir.remove() }
        let db = try TestDatabase(store, file: dir.url.appendingPathComponent("released.sqlite"), name: "declared_released")
        try Self.load(released: db)
        try Self.expectMatchesDeclaration(db, views: false, except: Self.addedSinceRelease)
        let before = try Self.rowCounts(db, except: Self.addedSinceRelease)
        #expect(before["measurement"] ?? 0 > 0 && before["run"] ?? 0 > 0)
        try Self.open(db)
        try Self.expectMatchesDeclaration(db)
        #expect(try Self.rowCounts(db) == before.merging(Self.addedSinceRelease.map { ($0, 0) }) { a, _ in a })
        let ledger = store == .sqlite ? "grdb_migrations" : "feedline_migration"
        #expect(try db.strings("SELECT identifier FROM \(ledger) WHERE identifier = 'declared-v3'") == ["declared-v3"])
        // Opening again finds nothing to do and changes nothing.
        try Self.open(db)
        #expect(try Self.rowCounts(db) == before.merging(Self.addedSinceRelease.map { ($0, 0) }) { a, _ in a })
    }

    @Test("every table, view and column has a meaning, and every name is declared once")
    func everythingHasAMeaning() {
        let relations = Self.declarations.relations
        #expect(Set(relations.map(\.name)).count == relations.count)
        for relation in relations {
            #expect(!relation.meaning.isEmpty, "\(relation.name) has no meaning")
            #expect(Set(relation.columns.map(\.name)).count == relation.columns.count, "a column of \(relation.name) is declared twice")
            for column in relation.columns { #expect(!column.meaning.isEmpty, "\(relation.name).\(column.name) has no meaning") }
        }
        // Internal tables come last.
        let firstInternal = relations.firstIndex(where: \.isInternal) ?? relations.endIndex
        let internalLast = relations[firstInternal...].allSatisfy { $0.isInternal }
        #expect(internalLast)
        let measurement = Self.declarations.relation("measurement")
        #expect(measurement?.column("pm10")?.unit == .microgramsPerCubicMetre && measurement?.column("o3")?.unit == .ppm)
    }

    @Test("the ledger's bookkeeping is marked internal; the stores add their own migration tables")
    func internalTables() {
        #expect(Set(Self.declarations.relations.filter(\.isInternal).map(\.name)) == ["run_lock", "bookmark", "api_call", "schedule_slot"])
    }

    /// Grades and indices say their scale and whose they are; AirKorea's and feedline's are
    /// told apart, and `grade_agreement` names the two columns it compares.
    @Test("grade and index columns name their scale and whose they are; units have a Pint name")
    func gradesAndUnits() throws {
        let measurement = try #require(Self.declarations.relation("measurement"))
        let graded = measurement.columns.filter { $0.name.contains("grade") || ["khai", "cai", "aqi_pm10", "aqi_pm25"].contains($0.name) }
        #expect(graded.count == 18)
        for column in graded {
            #expect(column.scale != nil, "measurement.\(column.name) names no scale")
            #expect(column.whose != nil, "measurement.\(column.name) names no owner")
        }
        #expect(measurement.column("pm10_grade")?.scale == "1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨")
        #expect(measurement.column("khai")?.whose == "AirKorea" && measurement.column("cai")?.whose == "feedline")
        let dir = try TemporaryDirectory("agreement")
        defer { dir.remove() }
        let db = try TestDatabase(.sqlite, file: dir.url.appendingPathComponent("fresh.sqlite"))
        try Self.open(db)
        let pairs = try db.rows("SELECT field, airkorea_column, feedline_column FROM grade_agreement")
        #expect(pairs.map { $0[0] } == ["pm10Grade", "pm25Grade", "pm10Grade1h", "pm25Grade1h", "khaiGrade"])
        for pair in pairs {
            #expect(measurement.column(pair[1])?.whose == "AirKorea", "\(pair[0]): \(pair[1])")
            #expect(measurement.column(pair[2])?.whose == "feedline", "\(pair[0]): \(pair[2])")
        }
        for relation in Self.declarations.relations {
            for column in relation.columns {
                guard let unit = column.unit else { continue }
                #expect(!unit.pint.isEmpty && unit.pint.allSatisfy(\.isASCII), "\(relation.name).\(column.name)")
            }
        }
    }

    // MARK: - Helpers

    static func open(_ db: TestDatabase) throws {
        switch db.store {
        case .sqlite:
            _ = try SQLiteStore(path: db.file.path, schema: AppEnvironment.standardSchema)
        case .postgres:
            #if PostgreSQL
            _ = try PostgresStore(address: PostgresAddress(parsing: db.postgresURL!), environment: [:], schema: AppEnvironment.standardSchema,
                                  forWriting: true, host: "h", pid: getpid(), isProcessAlive: { _ in true })
            #endif
        }
    }

    /// The released database, from its dump.
    static func load(released db: TestDatabase) throws {
        let upgrade = FixturePaths.repositoryRoot.appendingPathComponent("Data/fixtures/upgrade")
        switch db.store {
        case .sqlite:
            let queue = try DatabaseQueue(path: db.file.path)
            try queue.writeWithoutTransaction { try $0.execute(sql: String(contentsOf: upgrade.appendingPathComponent("sqlite-7eb7c04.sql"), encoding: .utf8)) }
            try queue.close()
        case .postgres:
            let psql = Process()
            psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            psql.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db.postgresURL!, "-f", upgrade.appendingPathComponent("postgres-7eb7c04.sql").path]
            psql.standardOutput = FileHandle.nullDevice
            try psql.run()
            psql.waitUntilExit()
            #expect(psql.terminationStatus == 0, "psql could not load the released dump")
        }
    }

    static func rowCounts(_ db: TestDatabase, except: Set<String> = []) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in declarations.tables where !except.contains(table.name) { counts[table.name] = try db.integer("SELECT count(*) FROM \(table.name)") }
        return counts
    }

    /// One column as the store's catalog describes it, in the declaration's terms.
    struct Described: Equatable, CustomStringConvertible {
        var name: String, type: String, notNull: Bool, defaultValue: String?
        var description: String { "\(name) \(type)\(notNull ? " NOT NULL" : "")\(defaultValue.map { " DEFAULT \($0)" } ?? "")" }
    }

    static func expected(_ column: ColumnDeclaration, in table: TableDeclaration, store: TestStore) -> Described {
        let type = column.type ?? .text
        switch store {
        case .sqlite:
            return Described(name: column.name, type: type == .rowID ? "INTEGER" : SQLiteDialectNames.name(type), notNull: column.notNull,
                             defaultValue: column.defaultValue)
        case .postgres:
            let names: [ColumnType: String] = [.text: "text", .integer: "bigint", .smallInteger: "integer", .real: "double precision",
                                               .instant: "timestamp with time zone", .date: "date", .rowID: "bigint"]
            // PostgreSQL's keys are NOT NULL whatever the column says.
            return Described(name: column.name, type: names[type]!, notNull: column.notNull || table.key.contains(column.name) || type == .rowID,
                             defaultValue: column.defaultValue)
        }
    }

    static func described(_ table: String, in db: TestDatabase) throws -> [Described] {
        switch db.store {
        case .sqlite:
            return try db.rows("SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info('\(table)') ORDER BY cid").map {
                Described(name: $0[0], type: $0[1], notNull: $0[2] == "1", defaultValue: $0[3] == "NULL" ? nil : $0[3])
            }
        case .postgres:
            return try db.rows("""
                SELECT column_name, data_type, is_nullable, coalesce(column_default, 'NULL') FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = '\(table)' ORDER BY ordinal_position
                """).map {
                Described(name: $0[0], type: $0[1], notNull: $0[2] == "NO",
                          defaultValue: $0[3] == "NULL" ? nil : $0[3].replacingOccurrences(of: "::text", with: ""))
            }
        }
    }

    static func key(_ table: String, in db: TestDatabase) throws -> [String] {
        switch db.store {
        case .sqlite:
            let primary = try db.rows("SELECT name FROM pragma_table_info('\(table)') WHERE pk > 0 ORDER BY pk").map { $0[0] }
            if !primary.isEmpty { return primary }
            // A rowid table keeps its natural key as its first UNIQUE constraint.
            guard let index = try db.strings("SELECT name FROM pragma_index_list('\(table)') WHERE origin = 'u' ORDER BY seq DESC").first else { return [] }
            return try db.strings("SELECT name FROM pragma_index_info('\(index)') ORDER BY seqno")
        case .postgres:
            return try db.strings("""
                SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                WHERE i.indrelid = '\(table)'::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)
                """)
        }
    }

    static func relations(_ db: TestDatabase, kind: String) throws -> Set<String> {
        switch db.store {
        case .sqlite: Set(try db.strings("SELECT name FROM sqlite_master WHERE type = '\(kind)' AND name NOT LIKE 'sqlite_%'"))
        case .postgres:
            switch kind {
            case "table": Set(try db.strings("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"))
            case "view": Set(try db.strings("SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()"))
            case "index": Set(try db.strings("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"))
            default: Set(try db.strings("""
                SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE NOT t.tgisinternal AND n.nspname = current_schema()
                """))
            }
        }
    }

    static func expectMatchesDeclaration(_ db: TestDatabase, views: Bool = true, except: Set<String> = []) throws {
        let store = db.store
        #expect(try relations(db, kind: "table").subtracting(storeOwn) == Set(declarations.tables.map(\.name)).subtracting(except), "tables on \(store)")
        #expect(try relations(db, kind: "view") == Set(declarations.views.map(\.name)), "views on \(store)")
        let triggers = try relations(db, kind: "trigger")
        for trigger in declarations.triggers { for name in trigger.names { #expect(triggers.contains(name), "trigger \(name) on \(store)") } }
        let indexes = try relations(db, kind: "index")
        for table in declarations.tables where !except.contains(table.name) {
            let actual = try described(table.name, in: db)
            let wanted = table.columns.map { expected($0, in: table, store: store) }
            #expect(actual == wanted, "\(table.name) on \(store): \(actual) is not \(wanted)")
            let wantedKey = table.key.isEmpty ? table.columns.filter { $0.type == .rowID }.map(\.name) : table.key
            #expect(try key(table.name, in: db) == wantedKey, "key of \(table.name) on \(store)")
            for index in table.indexes { #expect(indexes.contains(index.name), "index \(index.name) on \(store)") }
        }
        guard views else { return }
        for view in declarations.views {
            #expect(try db.columns(of: view.name) == view.columns.map(\.name), "columns of view \(view.name) on \(store)")
        }
    }
}

/// SQLite's column type names, as `PRAGMA table_info` reports them.
enum SQLiteDialectNames {
    static func name(_ type: ColumnType) -> String {
        switch type {
        case .text, .instant, .date: "TEXT"
        case .integer, .smallInteger, .rowID: "INTEGER"
        case .real: "REAL"
        }
    }
}
