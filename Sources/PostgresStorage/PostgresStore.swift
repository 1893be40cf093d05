#if PostgreSQL
import Domain
import Foundation
import Pipeline

/// The feedline database on a PostgreSQL server: the same ports as the SQLite store, so the
/// commands never see which one they have.
///
/// - Two connections: one for the ledger, quota counters and reads (each statement on its own),
///   one for load transactions (rows, bookmarks, diagnostics, payload index and the ledger row
///   commit together). A quota call counted while a load is open is therefore never rolled back
///   with it.
/// - Run locks are session-level advisory locks, one connection per held lock: PostgreSQL
///   releases the lock when that session ends, so a crashed host never blocks a pipeline. The
///   `run_lock` table says who holds each lock (host, pid) for `status` and for messages.
/// - Migrations are applied in one transaction under a transaction-level advisory lock, so
///   several hosts starting at once migrate once.
public final class PostgresStore: FeedlineStore, @unchecked Sendable {
    public let address: PostgresAddress
    let password: String?
    let link: PostgresLink
    /// The connection loads run on; nil for a store opened for reading.
    let loadLink: PostgresLink?
    let loadLock = NSLock()
    let writers: [ObjectIdentifier: RecordWriter]
    let host: String
    let pid: Int32
    let isProcessAlive: @Sendable (Int32) -> Bool
    let locksLock = NSLock()
    var lockLinks: [String: PostgresLink] = [:]
    /// Column types per table (for the casts the upserts write), read once per table.
    let columnTypes = ColumnTypeCache()

    /// Connects to `address` and, for writing, applies pending migrations (feedline's own, then
    /// each feed's PostgreSQL migration). Refuses a database another application owns (tables of
    /// its own and no feedline migrations) and one a newer feedline migrated.
    public init(address: PostgresAddress, environment: [String: String], schema: FeedSchema, forWriting: Bool,
                host: String, pid: Int32, isProcessAlive: @escaping @Sendable (Int32) -> Bool) throws {
        self.address = address
        var warnings: [String] = []
        self.password = address.resolvedPassword(environment: environment, warnings: &warnings)
        self.writers = forWriting ? schema.writerByType : [:]
        self.host = host; self.pid = pid; self.isProcessAlive = isProcessAlive
        self.link = try PostgresLink(address, password: password)
        if forWriting {
            try Self.migrate(link, schema: schema, address: address)
        } else if try link.run("SELECT to_regclass('feedline_migration') IS NOT NULL").scalar != .integer(1) {
            throw PostgresNoFeedlineDatabase(address: address)
        }
        self.loadLink = forWriting ? try PostgresLink(address, password: password) : nil
    }

    public var location: String { address.description }

    // MARK: - Migrations

    /// A fixed key for the migration lock (any 64-bit number feedline alone uses).
    static let migrationLockKey: Int64 = advisoryKey("feedline migrations")

    /// Brings the database to the declared schema (`PostgresSchema`), then applies `schema`'s
    /// raw migrations (tests' scratch tables), all in one transaction.
    static func migrate(_ link: PostgresLink, schema: FeedSchema, address: PostgresAddress) throws {
        var raw: [(identifier: String, sql: String)] = []
        var seen: Set<String> = PostgresSchema.released.union([PostgresSchema.declaredStep])
        for migration in schema.migrations {
            guard seen.insert(migration.identifier).inserted else {
                throw PostgresStoreError("the migration identifier '\(migration.identifier)' is used twice")
            }
            guard let sql = migration.postgres else {
                throw PostgresStoreError("migration '\(migration.identifier)' has no PostgreSQL version; declare its tables instead")
            }
            raw.append((migration.identifier, sql))
        }
        let declarations = PostgresSchema.declarations(schema)
        try link.transaction {
            try link.run("SELECT pg_advisory_xact_lock($1)", [.integer(migrationLockKey)])
            let hasLedger = try link.run("SELECT to_regclass('feedline_migration') IS NOT NULL").scalar == .integer(1)
            if !hasLedger {
                let foreign = try link.run("""
                    SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1 LIMIT 5
                    """).rows.compactMap { if case .text(let t) = $0.first { t } else { nil } }
                if !foreign.isEmpty {
                    throw PostgresStoreError("\(address) is not a feedline database: its schema already holds \(foreign.joined(separator: ", ")). Point --db at an empty database (createdb feedline) or at feedline's.")
                }
                try link.run("""
                    CREATE TABLE feedline_migration (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """)
            }
            let applied = Set(try link.run("SELECT identifier FROM feedline_migration").rows.compactMap { row -> String? in
                if case .text(let t) = row.first { t } else { nil }
            })
            if let newer = applied.subtracting(seen).sorted().first {
                throw PostgresStoreError("\(address) was migrated by a newer feedline (migration '\(newer)'); upgrade feedline to use it.")
            }
            let catalog = try Self.catalog(link)
            if !applied.contains(PostgresSchema.declaredStep) || SchemaRenderer.isIncomplete(catalog, for: declarations) {
                for statement in SchemaRenderer.reconcile(catalog, to: declarations, in: PostgresDialect()) {
                    try link.script(statement)
                }
                try link.run("INSERT INTO feedline_migration (identifier) VALUES ($1) ON CONFLICT DO NOTHING", [.text(PostgresSchema.declaredStep)])
            }
            for migration in raw where !applied.contains(migration.identifier) {
                try link.script(migration.sql)
                try link.run("INSERT INTO feedline_migration (identifier) VALUES ($1)", [.text(migration.identifier)])
            }
        }
    }

    /// What the database's current schema holds.
    static func catalog(_ link: PostgresLink) throws -> SchemaCatalog {
        func texts(_ sql: String) throws -> [[String]] {
            try link.run(sql).rows.map { row in row.map { if case .text(let t) = $0 { t } else { "" } } }
        }
        let queries = PostgresSchema.catalogQueries
        var catalog = SchemaCatalog()
        for row in try texts(queries[0]) { catalog.tables[row[0], default: []].append(row[1]) }
        catalog.views = Set(try texts(queries[1]).map { $0[0] })
        catalog.indexes = Set(try texts(queries[2]).map { $0[0] })
        catalog.triggers = Set(try texts(queries[3]).map { $0[0] })
        return catalog
    }

    /// A 64-bit advisory-lock key from a name (FNV-1a), the same on every host.
    public static func advisoryKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return Int64(bitPattern: hash)
    }

    // MARK: - RunStore

    public func beginRun(pipeline: String, mode: RunMode, startedAt: Date) throws -> RunID {
        try link.transaction {
            // Runs of this pipeline this host began whose process is gone will never finish.
            let candidates = try link.run("""
                SELECT id, pid FROM run WHERE pipeline = $1 AND status = 'running' AND host = $2 AND pid IS NOT NULL AND pid <> $3
                """, [.text(pipeline), .text(host), .integer(Int64(pid))]).rows
            for row in candidates {
                guard case .integer(let id) = row[0], case .integer(let other) = row[1], !isProcessAlive(Int32(truncatingIfNeeded: other)) else { continue }
                try link.run("""
                    UPDATE run SET status = 'abandoned', abandoned_at = $1::timestamptz,
                        error = 'The run did not finish: its process (pid ' || pid || ' on ' || host || ') is gone.'
                    WHERE id = $2 AND status = 'running'
                    """, [.text(iso8601UTC(startedAt)), .integer(id)])
            }
            let id = try link.run("""
                INSERT INTO run (pipeline, mode, started_at, status, host, pid) VALUES ($1, $2, $3::timestamptz, 'running', $4, $5) RETURNING id
                """, [.text(pipeline), .text(mode.rawValue), .text(iso8601UTC(startedAt)), .text(host), .integer(Int64(pid))]).scalar
            guard case .integer(let value) = id else { throw PostgresStoreError("the run ledger returned no id") }
            return RunID(value)
        }
    }

    public func load(run: RunID, finishedAt: @escaping @Sendable () -> Date, _ body: (LoadSession) throws -> LoadCounts) throws -> LoadCounts {
        guard let loadLink else { throw PostgresStoreError("\(address) was opened for reading; loads need a store opened for writing") }
        loadLock.lock(); defer { loadLock.unlock() }
        return try loadLink.transaction {
            let session = PostgresLoadSession(link: loadLink, run: run, writers: writers, columnTypes: columnTypes)
            var counts = try body(session)
            counts.add(try session.finish())
            counts.diagnostics = session.diagnosticCount
            try loadLink.run("""
                UPDATE run SET status = $1, error = $2, finished_at = $3::timestamptz, payloads = $4, payloads_skipped = $5,
                    rows_inserted = $6, rows_updated = $7, rows_unchanged = $8, diagnostics = $9
                WHERE id = $10
                """, [.text(session.failure == nil ? "succeeded" : "failed"), StoreValue(session.failure), .text(iso8601UTC(finishedAt())),
                      StoreValue(counts.payloadsLoaded), StoreValue(counts.payloadsAlreadyLoaded), StoreValue(counts.inserted),
                      StoreValue(counts.updated), StoreValue(counts.unchanged), StoreValue(counts.diagnostics), .integer(run.rawValue)])
            return counts
        }
    }

    public func failRun(_ run: RunID, error: String, finishedAt: Date) throws {
        try link.run("UPDATE run SET status = 'failed', finished_at = $1::timestamptz, error = $2 WHERE id = $3",
                     [.text(iso8601UTC(finishedAt)), .text(error), .integer(run.rawValue)])
    }

    public func recordCheckResults(_ results: [CheckResult], run: RunID) throws {
        try link.transaction { try PostgresLoadSession.record(results, run: run, link: link) }
    }
}

/// Column types of the tables written, read from the catalog once per table.
final class ColumnTypeCache: @unchecked Sendable {
    private let lock = NSLock()
    private var types: [String: [String: String]] = [:]

    /// `table`'s columns → the cast a text, integer or double parameter needs (`timestamptz`, …).
    func types(of table: String, link: PostgresLink) throws -> [String: String] {
        lock.lock(); defer { lock.unlock() }
        if let known = types[table] { return known }
        let rows = try link.run("""
            SELECT column_name, format_type(a.atttypid, a.atttypmod)
            FROM information_schema.columns c
            JOIN pg_attribute a ON a.attrelid = to_regclass(quote_ident(c.table_name)) AND a.attname = c.column_name
            WHERE c.table_schema = current_schema() AND c.table_name = $1
            """, [.text(table)]).rows
        var out: [String: String] = [:]
        for row in rows { if case .text(let name) = row[0], case .text(let type) = row[1] { out[name] = type } }
        types[table] = out
        return out
    }
}
#endif

#if PostgreSQL
extension PostgresStore {
    /// Every row of `sql` (no parameters), as the store reads values: for tests, scripts and
    /// copies.
    public func rows(_ sql: String) throws -> [[StoreValue]] { try link.run(sql).rows }

    /// Every row of `sql` in the database at `address`, on a connection of its own that checks
    /// nothing first (the database may not be feedline's yet): for tests and scripts.
    public static func rows(_ sql: String, at address: PostgresAddress, environment: [String: String]) throws -> [[StoreValue]] {
        var warnings: [String] = []
        let link = try PostgresLink(address, password: address.resolvedPassword(environment: environment, warnings: &warnings))
        defer { link.close() }
        return try link.run(sql).rows
    }

    /// Creates database `name` on the server `address` points at (connecting to its database),
    /// dropping one of that name first when `replacing`.
    public static func createDatabase(_ name: String, server address: PostgresAddress, environment: [String: String], replacing: Bool) throws {
        var warnings: [String] = []
        let link = try PostgresLink(address, password: address.resolvedPassword(environment: environment, warnings: &warnings))
        defer { link.close() }
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        if replacing { try link.run("DROP DATABASE IF EXISTS \(quoted) WITH (FORCE)") }
        try link.run("CREATE DATABASE \(quoted)")
    }
}
#endif
