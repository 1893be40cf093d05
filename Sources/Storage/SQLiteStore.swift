import Domain
import Foundation
import GRDB
import Pipeline

/// The feedline database: one SQLite file in WAL mode, opened through GRDB.
///
/// Implements the `RunStore` port. Every load is one write transaction; readers (queries,
/// reports) never block it and are never blocked by it — except during the first load into a
/// file this store created, which writes the file directly (`DirectFirstLoad`). Opened for
/// writing (`init(path:)`) it creates and migrates the file; opened for reading
/// (`init(readingAt:)`) it never creates, migrates or writes anything (beyond rolling back a
/// killed load's journal, `HotJournal`, which restores what was committed).
public final class SQLiteStore: RunStore, RunLockService, LedgerReading, @unchecked Sendable {
    /// The underlying pool (WAL, busy timeout). `@unchecked Sendable`: GRDB's pool is thread-safe.
    public let pool: DatabasePool
    public let path: String
    /// How long a write waits for another connection's write lock before failing as busy (seconds).
    public let busyTimeout: TimeInterval
    /// The process whose runs this store records: its host and pid go into the ledger, and its
    /// probe tells which earlier runs on this host were abandoned.
    public let process: RunProcess
    /// The writer of each record type, from the feeds' schemas.
    let writers: [ObjectIdentifier: RecordWriter]
    /// Whether the next load is the first into a file this store created, and so writes the file
    /// directly (`DirectFirstLoad`). Taken (read and cleared) under `firstLoadLock`.
    private var nextLoadIsFirstIntoNewFile: Bool
    private let firstLoadLock = NSLock()

    /// Opens (creating if needed) the database at `path` for writing and applies pending migrations.
    ///
    /// An existing file is looked at through a read-only connection first, and refused before
    /// anything is written to it (the switch to WAL included) when it is another application's
    /// database (tables of its own and no feedline migrations) or when a newer feedline migrated
    /// it (a migration this one does not know). Busy failures throw `DatabaseAccessError.busy`.
    ///
    /// `schema` is what the feeds bring (`FeedSchema.merged` of every feed's): their migrations
    /// run after feedline's own, and loads write each record through its type's writer.
    public init(path: String, schema: FeedSchema, busyTimeout: TimeInterval = 10, process: RunProcess = .current) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        self.process = process
        self.writers = schema.writerByType
        let migrator = try FeedlineMigrations.migrator(with: schema)
        var migrate = true
        var isNew = false
        var isEmpty = false
        switch try Self.inspect(path: path, busyTimeout: busyTimeout, process: process) {
        case .empty: isNew = Self.isMissingOrEmpty(path); isEmpty = true
        case .foreign(let objects): throw Self.notFeedlineError(path: path, objects: objects)
        case .feedline(let applied):
            if let newer = Self.unknownMigration(in: applied, known: migrator.migrations) {
                throw Self.newerSchemaError(path: path, migration: newer)
            }
            migrate = !Set(migrator.migrations).isSubset(of: applied)
        }
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            if isNew { try Self.createInWALMode(path: path, busyTimeout: busyTimeout) }
            self.pool = try DatabasePool(path: path, configuration: config)
        } catch where Self.isBusy(error) {
            throw Self.busyError(path: path, busyTimeout: busyTimeout, process: process)
        }
        self.nextLoadIsFirstIntoNewFile = isNew
        try reportingBusy {
            if isEmpty { try pool.write { db in try SQLiteSchema.markHistoryApplied(db, migrator) } }
            if migrate {
                try migrator.migrate(pool)
            } else {
                // A feed registered after the file was made brings tables it lacks.
                let declarations = SQLiteSchema.declarations(schema)
                if try pool.read({ db in try SQLiteSchema.isIncomplete(db, for: declarations) }) {
                    try pool.write { db in try SQLiteSchema.reconcile(db, to: declarations) }
                }
            }
        }
    }

    /// Opens the existing database at `path` for reading only (`feedline status`, `intake`): it is
    /// never created, migrated or written, works on a read-only file, and reads a database a newer
    /// feedline migrated. A missing file throws `DatabaseAccessError.noDatabase`; another
    /// application's database throws `.notFeedline`.
    ///
    /// Tables that later migrations add may be missing from an older file: check `hasTable` first.
    public init(readingAt path: String, busyTimeout: TimeInterval = 5, process: RunProcess = .current) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseAccessError(.noDatabase, "No database at \(path); run `feedline run` first (or pass --db PATH).")
        }
        self.path = path
        self.busyTimeout = busyTimeout
        self.process = process
        self.writers = [:]
        self.nextLoadIsFirstIntoNewFile = false
        if case .foreign(let objects) = try Self.inspect(path: path, busyTimeout: busyTimeout, process: process) {
            throw Self.notFeedlineError(path: path, objects: objects)
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "feedline.reader"
        self.pool = try DatabasePool(path: path, configuration: config)
    }

    /// The file's path.
    public var location: String { path }

    /// True when a table or view called `name` exists.
    public func hasTable(_ name: String) throws -> Bool {
        try pool.read { db in try db.tableExists(name) || db.viewExists(name) }
    }

    /// Whether nothing is at `path` yet, or an empty file.
    private static func isMissingOrEmpty(_ path: String) -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        return (size?.intValue ?? 0) == 0
    }

    /// Creates the database at `path` (missing or empty) in WAL mode, `synchronous = OFF` for this
    /// one step. Switching a new file to WAL writes its first page through a rollback journal, and
    /// SQLite syncs that journal twice and the file once — tens of milliseconds on a busy disk —
    /// for a file that holds nothing yet (lost to a power cut, it is a new empty file again).
    /// Everything after it runs as on any database: the migrations and loads through the WAL,
    /// whose first checkpoint syncs the file's first page with the rest.
    private static func createInWALMode(path: String, busyTimeout: TimeInterval) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.label = "feedline.create"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = OFF")
            // A file system that cannot hold a WAL keeps its mode here; the pool then says so.
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.close()
    }

    /// `DatabaseShape.inspect`, with "not a database" and busy failures as `DatabaseAccessError`s.
    /// A load killed part-way through a rollback journal is rolled back first (`HotJournal`).
    private static func inspect(path: String, busyTimeout: TimeInterval, process: RunProcess) throws -> DatabaseShape {
        do {
            try HotJournal.rollBack(path: path, busyTimeout: busyTimeout)
            return try DatabaseShape.inspect(path: path, busyTimeout: busyTimeout)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw DatabaseAccessError(.notFeedline, "\(path) is not a SQLite database (\(error.message ?? "file is not a database")). Point --db (or FEEDLINE_DB) at feedline's database, or at a new or empty file.")
        } catch where isBusy(error) {
            throw busyError(path: path, busyTimeout: busyTimeout, process: process)
        }
    }

    // MARK: - RunStore

    /// Records the run as `running` with this process's host and pid. Earlier runs of the same
    /// pipeline still `running` whose process on this host is gone are marked `abandoned` first,
    /// in the same transaction (`replay` takes no run lock, so this is where its killed runs are
    /// noticed; locked pipelines are also swept when their lock is taken, see `acquireRunLock`).
    public func beginRun(pipeline: String, mode: RunMode, startedAt: Date) throws -> RunID {
        try reportingBusy {
            try pool.write { db in
                try Self.abandonDeadRuns(db, pipeline: pipeline, process: process, noticedAt: startedAt)
                try db.execute(sql: "INSERT INTO run (pipeline, mode, started_at, status, host, pid) VALUES (?, ?, ?, 'running', ?, ?)",
                               arguments: [pipeline, mode.rawValue, iso8601UTC(startedAt), process.host, process.pid])
                return RunID(db.lastInsertedRowID)
            }
        }
    }

    public func load(run: RunID, finishedAt: @escaping @Sendable () -> Date,
                     _ body: (LoadSession) throws -> LoadCounts) throws -> LoadCounts {
        let firstIntoNewFile = firstLoadLock.withLock {
            defer { nextLoadIsFirstIntoNewFile = false }
            return nextLoadIsFirstIntoNewFile
        }
        // This store's own idle readers (ledger and bookmark reads before the load) would keep
        // the file in WAL mode: close them (the pool opens new ones when asked).
        if firstIntoNewFile { pool.releaseMemory() }
        return try reportingBusy {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = -\(Self.loadCacheKiB)")
                let direct = firstIntoNewFile ? try DirectFirstLoad.begin(db) : false
                defer { if direct { DirectFirstLoad.end(db) } }
                var counts = LoadCounts()
                try db.inTransaction(.immediate) {
                    let session = GRDBLoadSession(db: db, run: run, writers: writers)
                    counts = try body(session)
                    try session.finish()
                    counts.diagnostics = session.diagnosticCount
                    // A failing `error` check that keeps its rows commits them with the run marked failed.
                    try db.execute(sql: """
                        UPDATE run SET status = ?, error = ?, finished_at = ?, payloads = ?, payloads_skipped = ?,
                            rows_inserted = ?, rows_updated = ?, rows_unchanged = ?, diagnostics = ?
                        WHERE id = ?
                        """, arguments: [session.failure == nil ? "succeeded" : "failed", session.failure,
                                         iso8601UTC(finishedAt()), counts.payloadsLoaded, counts.payloadsAlreadyLoaded,
                                         counts.inserted, counts.updated, counts.unchanged, counts.diagnostics, run.rawValue])
                    return .commit
                }
                return counts
            }
        }
    }

    /// The writer's page cache during a load, in KiB (SQLite's default is 2,000 KiB).
    ///
    /// A load is one transaction, so every page it changes stays dirty until the cache is full,
    /// and from then on each page SQLite evicts is written to the WAL, and read back if touched
    /// again. Measurements arrive hour by hour for every station, while the key index is ordered
    /// by station, so each hour touches one of its leaf pages per station: with 640 stations that
    /// working set overflowed the default cache and the same pages went to the WAL over and over.
    /// Measured on 640 stations (the rows appended in arrival order since migration v7, so only
    /// the indexes are spread): 4 MiB was as fast as 8 MiB on a week but cost 10 % more CPU on 30
    /// days, 2 MiB doubled the system time; 6 MiB loses nothing on either and keeps 2 MiB of the
    /// load's peak memory. The cache is a ceiling, so memory stays flat whatever the size of the load.
    static let loadCacheKiB = 6144

    public func recordCheckResults(_ results: [CheckResult], run: RunID) throws {
        try reportingBusy {
            try pool.write { db in try CheckEvaluator.record(results, run: run, in: db) }
        }
    }

    public func failRun(_ run: RunID, error: String, finishedAt: Date) throws {
        try reportingBusy {
            try pool.write { db in
                try db.execute(sql: "UPDATE run SET status = 'failed', finished_at = ?, error = ? WHERE id = ?",
                               arguments: [iso8601UTC(finishedAt), error, run.rawValue])
            }
        }
    }
}
