import Domain
import Foundation
import GRDB
import Pipeline

/// The feedline database: one SQLite file in WAL mode, opened through GRDB.
///
/// Implements the `RunStore` port. Every load is one write transaction; readers (queries,
/// reports) never block it and are never blocked by it.
public final class SQLiteStore: RunStore, @unchecked Sendable {
    /// The underlying pool (WAL, busy timeout). `@unchecked Sendable`: GRDB's pool is thread-safe.
    public let pool: DatabasePool
    public let path: String

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    public init(path: String, busyTimeout: TimeInterval = 10) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.path = path
        self.pool = try DatabasePool(path: path, configuration: config)
        try FeedlineMigrations.migrator.migrate(pool)
    }

    // MARK: - RunStore

    public func beginRun(pipeline: String, mode: RunMode, startedAt: Date) throws -> RunID {
        try pool.write { db in
            try db.execute(sql: "INSERT INTO run (pipeline, mode, started_at, status) VALUES (?, ?, ?, 'running')",
                           arguments: [pipeline, mode.rawValue, iso8601UTC(startedAt)])
            return RunID(db.lastInsertedRowID)
        }
    }

    public func load(run: RunID, finishedAt: @escaping @Sendable () -> Date,
                     _ body: (LoadSession) throws -> LoadCounts) throws -> LoadCounts {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -\(Self.loadCacheKiB)")
            var counts = LoadCounts()
            try db.inTransaction(.immediate) {
                let session = GRDBLoadSession(db: db, run: run)
                counts = try body(session)
                counts.diagnostics = session.diagnosticCount
                try db.execute(sql: """
                    UPDATE run SET status = 'succeeded', finished_at = ?, payloads = ?, payloads_skipped = ?,
                        rows_inserted = ?, rows_updated = ?, rows_unchanged = ?, diagnostics = ?
                    WHERE id = ?
                    """, arguments: [iso8601UTC(finishedAt()), counts.payloadsLoaded, counts.payloadsAlreadyLoaded,
                                     counts.inserted, counts.updated, counts.unchanged, counts.diagnostics, run.rawValue])
                return .commit
            }
            return counts
        }
    }

    /// The writer's page cache during a load, in KiB (SQLite's default is 2,000 KiB).
    ///
    /// A load is one transaction, so every page it changes stays dirty until the cache is full,
    /// and from then on each page SQLite evicts is written to the WAL, and read back if touched
    /// again. Measurements arrive hour by hour for every station, while the table is ordered by
    /// station, so each hour touches one leaf page per station: with 640 stations that working
    /// set (about 3 MB with the interior pages) overflowed the default cache and the same pages
    /// went to the WAL over and over. 8 MiB holds it for a few thousand stations; the cache is a
    /// ceiling, so memory stays flat whatever the size of the load.
    static let loadCacheKiB = 8192

    public func failRun(_ run: RunID, error: String, finishedAt: Date) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE run SET status = 'failed', finished_at = ?, error = ? WHERE id = ?",
                           arguments: [iso8601UTC(finishedAt), error, run.rawValue])
        }
    }
}
