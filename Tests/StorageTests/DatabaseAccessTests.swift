import Domain
import Foundation
import GRDB
import Pipeline
@testable import Storage
import Testing
import TestSupport

/// What the store will and will not open for writing: another application's file and a newer
/// feedline's database are refused before anything is written; a busy database says so.
@Suite struct DatabaseAccessTests {
    let clock = Date(timeIntervalSince1970: 1_709_704_800)  // 2024-03-06 06:00 UTC

    /// A rollback-journal database of some other program, with a table and a row.
    func otherApplicationsDatabase(_ url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')")
        }
        try queue.close()
    }

    @Test("another application's SQLite file is refused, untouched: no tables added, no switch to WAL")
    func foreignDatabaseIsRefusedBeforeAnythingIsWritten() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("notes.sqlite")
        try otherApplicationsDatabase(file)
        let before = try Data(contentsOf: file)

        let error = try #require(throws: DatabaseAccessError.self) { try SQLiteStore(path: file.path, schema: .feedline) }
        #expect(error.kind == .notFeedline)
        #expect(error.message.contains("is not a feedline database"))
        #expect(error.message.contains("(notes)"))
        #expect(error.message.contains("new or empty file"))
        #expect(try Data(contentsOf: file) == before, "the file changed")
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
        // Readers refuse it too, rather than failing on a missing table.
        #expect(throws: DatabaseAccessError.self) { try SQLiteStore(readingAt: file.path) }
    }

    @Test("a new database (no file, an empty file, an empty SQLite file) opens in WAL mode, migrated, durable after close")
    func newDatabasesAreCreatedInWALMode() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let missing = dir.path("sub/new.sqlite")
        let zeroLength = dir.path("zero.sqlite")
        FileManager.default.createFile(atPath: zeroLength.path, contents: Data())
        let emptySQLite = dir.path("empty.sqlite")  // a rollback-journal file without a table
        let queue = try DatabaseQueue(path: emptySQLite.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 0") }
        try queue.close()

        for file in [missing, zeroLength, emptySQLite] {
            let run = try { () throws -> RunID in  // the store (its pool) is released when this returns
                let store = try SQLiteStore(path: file.path, schema: .feedline)
                return try store.beginRun(pipeline: "p", mode: .fixtures, startedAt: clock)
            }()
            let check = try DatabaseQueue(path: file.path)
            defer { try? check.close() }
            let (mode, integrity, runs, migrations) = try check.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM run WHERE id = ?", arguments: [run.rawValue]),
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations"))
            }
            #expect(mode == "wal" && integrity == "ok", "\(file.lastPathComponent)")
            #expect(runs == 1 && (migrations ?? 0) > 0, "\(file.lastPathComponent)")
        }
    }

    @Test("another GRDB application's migration table does not make a file feedline's")
    func otherGRDBApplicationIsForeign() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("app.sqlite")
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY)") }
        let queue = try DatabaseQueue(path: file.path)
        try migrator.migrate(queue)
        try queue.close()

        let error = try #require(throws: DatabaseAccessError.self) { try SQLiteStore(path: file.path, schema: .feedline) }
        #expect(error.kind == .notFeedline)
    }

    @Test("a file that is not SQLite at all is refused as a configuration problem")
    func notSQLiteIsRefused() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("readme.sqlite")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: file)
        let error = try #require(throws: DatabaseAccessError.self) { try SQLiteStore(path: file.path, schema: .feedline) }
        #expect(error.kind == .notFeedline)
        #expect(error.message.contains("is not a SQLite database"))
    }

    @Test("an empty file, or a SQLite file with no tables, becomes a feedline database")
    func emptyFilesAreAdopted() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let zero = dir.path("zero.sqlite")
        _ = FileManager.default.createFile(atPath: zero.path, contents: Data())
        let noTables = dir.path("blank.sqlite")
        let queue = try DatabaseQueue(path: noTables.path)
        try queue.write { db in try db.execute(sql: "PRAGMA user_version = 3") }  // a valid header, no schema
        try queue.close()

        for file in [zero, noTables] {
            let store = try SQLiteStore(path: file.path, schema: .feedline)
            #expect(try store.hasTable("run"), "\(file.lastPathComponent)")
        }
    }

    @Test("a first open killed after the migrator made its empty table (before any migration) is finished on the next open")
    func killedFirstOpenIsAdopted() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("feedline.sqlite")
        // What the migrator leaves when killed between its autocommitted CREATE TABLE and the
        // first migration's transaction (seen in the SIGKILL trials).
        let queue = try DatabaseQueue(path: file.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        try queue.close()

        let store = try SQLiteStore(path: file.path, schema: .feedline)
        #expect(try store.hasTable("run"))
        #expect(try store.hasTable("measurement"))
    }

    @Test("a feed migration that reuses an identifier is a clear error, not a stopped process")
    func duplicateMigrationIdentifiersAreRefused() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let twice = FeedSchema(migrations: [SchemaMigration("pollen-v1", sqlite: "CREATE TABLE a (x)"),
                                            SchemaMigration("pollen-v1", sqlite: "CREATE TABLE b (x)")])
        let error = try #require(throws: SchemaMigrationError.self) { try SQLiteStore(path: dir.path("f.sqlite").path, schema: twice) }
        #expect(error.description.contains("'pollen-v1'"))
        // A feed's migration may not take one of feedline's own identifiers either.
        let core = FeedSchema(migrations: [SchemaMigration("v2-careers", sqlite: "SELECT 1")])
        #expect(throws: SchemaMigrationError.self) { try SQLiteStore(path: dir.path("g.sqlite").path, schema: core) }
    }

    @Test("a database a newer feedline migrated is refused for writing, naming the migration, and still read")
    func newerDatabaseIsRefusedForWritingButRead() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("feedline.sqlite")
        do {
            let store = try SQLiteStore(path: file.path, schema: .feedline)
            let run = try store.beginRun(pipeline: "airkorea-seoul", mode: .fixtures, startedAt: clock)
            _ = try store.load(run: run, finishedAt: { clock }) { _ in LoadCounts() }
            try store.pool.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v42-from-the-future')") }
        }
        let before = try Data(contentsOf: file)

        let error = try #require(throws: DatabaseAccessError.self) { try SQLiteStore(path: file.path, schema: .feedline) }
        #expect(error.kind == .newerSchema(migration: "v42-from-the-future"))
        #expect(error.message.hasPrefix("this database was written by a newer feedline (migration v42-from-the-future); upgrade feedline"))
        #expect(try Data(contentsOf: file) == before)

        let reader = try SQLiteStore(readingAt: file.path)
        #expect(try reader.pipelineRunSummaries().map(\.status) == ["succeeded"])
    }

    @Test("a reader never creates a database")
    func readerNeedsAnExistingFile() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("missing/feedline.sqlite")
        let error = try #require(throws: DatabaseAccessError.self) { try SQLiteStore(readingAt: file.path) }
        #expect(error.kind == .noDatabase)
        #expect(!FileManager.default.fileExists(atPath: dir.path("missing").path))
    }

    @Test("a write lock held past the busy timeout is a transient 'database is busy', naming the feedline run holding a lock")
    func busyDatabaseSaysWhoHoldsIt() throws {
        let dir = try TemporaryDirectory("access")
        defer { dir.remove() }
        let file = dir.path("feedline.sqlite")
        let me = RunProcess(host: "this-host", pid: 1111, isAlive: { _ in true })
        let store = try SQLiteStore(path: file.path, schema: .feedline, busyTimeout: 0.05, process: me)
        // Another connection, as another process would: it holds the write lock throughout.
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: file.path, configuration: config)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        defer { try? other.inDatabase { db in try db.execute(sql: "ROLLBACK") } }

        let unnamed = try #require(throws: DatabaseAccessError.self) {
            try store.beginRun(pipeline: "replay", mode: .replay, startedAt: clock)
        }
        #expect(unnamed.kind == .busy)
        #expect(unnamed.retryability == .transient)
        #expect(unnamed.message.hasPrefix("database is busy (held by another process)"))
        #expect(asFeedError(unnamed).retryability == .transient)

        // A feedline run that committed its lock before the holder took the write lock is named.
        try other.inDatabase { db in
            try db.execute(sql: "ROLLBACK")
            try db.execute(sql: "INSERT INTO run_lock VALUES ('airkorea-seoul', 'h:4242:u', 4242, 'other-host', '2024-03-06T05:59:00Z', '2024-03-06T05:59:00Z')")
            try db.execute(sql: "BEGIN IMMEDIATE")
        }
        let named = try #require(throws: DatabaseAccessError.self) {
            _ = try store.load(run: RunID(1), finishedAt: { clock }) { _ in LoadCounts() }
        }
        #expect(named.message.hasPrefix("database is busy (held by feedline run of airkorea-seoul, pid 4242 on other-host since 2024-03-06T05:59:00Z)"))
    }
}
