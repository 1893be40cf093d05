import Domain
import Foundation
import GRDB
import Pipeline
@testable import Storage
import Testing
import TestSupport

/// The v8 ledger: existing runs carried over unchanged, and runs whose process died marked
/// `abandoned` when a later run notices.
@Suite struct RunLedgerTests {
    let t0 = Date(timeIntervalSince1970: 1_709_704_800)  // 2024-03-06 06:00 UTC

    @Test("v8 keeps every run, its id and what refers to it, every view, and a user's index and trigger on run")
    func migrationKeepsRunsViewsAndReferences() throws {
        let dir = try TemporaryDirectory("ledger")
        defer { dir.remove() }
        let queue = try DatabaseQueue(path: dir.path("old.sqlite").path)
        let migrator = FeedlineMigrations.migrator
        try migrator.migrate(queue, upTo: "v7-measurement-rowid-layout")
        let columns = "id, pipeline, mode, started_at, finished_at, status, payloads, payloads_skipped, rows_inserted, rows_updated, rows_unchanged, diagnostics, error"
        let (runs, views) = try queue.write { db -> ([Row], [String]) in
            try db.execute(sql: """
                INSERT INTO run (id, pipeline, mode, started_at, finished_at, status, payloads, rows_inserted, diagnostics, error) VALUES
                    (3, 'airkorea-seoul', 'live', '2024-03-06T05:00:00Z', '2024-03-06T05:00:09Z', 'succeeded', 2, 40, 1, NULL),
                    (7, 'airkorea-seoul', 'live', '2024-03-06T06:00:00Z', '2024-03-06T06:00:02Z', 'failed', 0, 0, 0, 'API 30'),
                    (9, 'replay', 'replay', '2024-03-06T07:00:00Z', NULL, 'running', 0, 0, 0, NULL);
                INSERT INTO diagnostic (run_id, code, message, location) VALUES (3, 'grade-mismatch', 'm', 'l');
                INSERT INTO payload (sha256, format, fetched_at, byte_count, item_count, run_id) VALUES ('aa', 'xml', '2024-03-06T05:00:01Z', 10, 2, 3);
                INSERT INTO bookmark (pipeline, name, value, run_id) VALUES ('airkorea-seoul', 'newest_observed_at', '2024-03-06T05:00:00Z', 3);
                CREATE INDEX my_run_errors ON run (error);
                CREATE TABLE my_run_audit (id INTEGER);
                CREATE TRIGGER my_run_insert AFTER INSERT ON run BEGIN INSERT INTO my_run_audit VALUES (new.id); END;
                """)
            return (try Row.fetchAll(db, sql: "SELECT \(columns) FROM run ORDER BY id"),
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name"))
        }

        try migrator.migrate(queue)

        try queue.write { db in
            #expect(try Row.fetchAll(db, sql: "SELECT \(columns) FROM run ORDER BY id") == runs)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name") == views)
            for view in views { _ = try Row.fetchAll(db, sql: "SELECT * FROM \(view.quotedDatabaseIdentifier) LIMIT 1") }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM run_latest") == 2)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = 'run' AND type IN ('index', 'trigger') ORDER BY name")
                    == ["my_run_errors", "my_run_insert", "run_by_pipeline"])
            // The new status is allowed, an unknown one still is not.
            try db.execute(sql: "UPDATE run SET status = 'abandoned', abandoned_at = '2024-03-06T08:00:00Z' WHERE id = 9")
            #expect(throws: DatabaseError.self) { try db.execute(sql: "UPDATE run SET status = 'partial' WHERE id = 9") }
            try db.execute(sql: "INSERT INTO run (pipeline, mode, started_at, status, host, pid) VALUES ('x', 'replay', '2024-03-06T09:00:00Z', 'running', 'h', 1)")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM my_run_audit") == 1)
        }
    }

    @Test("a run whose process on this host is gone is marked abandoned by the next run of its pipeline, with the time noticed")
    func deadProcessRunIsAbandonedAtTheNextRun() throws {
        let dir = try TemporaryDirectory("ledger")
        defer { dir.remove() }
        let path = dir.path("feedline.sqlite").path
        let killed = try SQLiteStore(path: path, schema: .feedline, process: RunProcess(host: "h", pid: 4242, isAlive: { _ in true }))
        let orphan = try killed.beginRun(pipeline: "replay", mode: .replay, startedAt: t0)
        // Another host's run and another pipeline's run are none of this run's business.
        let elsewhere = try SQLiteStore(path: path, schema: .feedline, process: RunProcess(host: "g", pid: 4242, isAlive: { _ in true }))
        let remote = try elsewhere.beginRun(pipeline: "replay", mode: .replay, startedAt: t0)
        let otherPipeline = try killed.beginRun(pipeline: "airkorea-seoul", mode: .fixtures, startedAt: t0)

        // pid 4242 has died since; the next replay on this host notices.
        let next = try SQLiteStore(path: path, schema: .feedline, process: RunProcess(host: "h", pid: 5555, isAlive: { $0 != 4242 }))
        let later = t0.addingTimeInterval(3600)
        let run = try next.beginRun(pipeline: "replay", mode: .replay, startedAt: later)

        let rows = try next.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, status, finished_at, abandoned_at, error, host, pid FROM run ORDER BY id")
        }
        let byID = Dictionary(uniqueKeysWithValues: rows.map { (RunID($0["id"] as Int64), $0) })
        let abandoned = try #require(byID[orphan])
        #expect(abandoned["status"] as String == "abandoned")
        #expect(abandoned["abandoned_at"] as String? == "2024-03-06T07:00:00Z")
        #expect(abandoned["finished_at"] as String? == nil)
        #expect(abandoned["error"] as String? == "The run did not finish: its process (pid 4242 on h) is gone.")
        #expect(byID[remote]?["status"] as String? == "running")
        #expect(byID[otherPipeline]?["status"] as String? == "running")
        #expect(byID[run]?["status"] as String? == "running")
        #expect(byID[run]?["host"] as String? == "h" && byID[run]?["pid"] as Int32? == 5555)
    }

    @Test("taking over a stale run lock marks the pipeline's unfinished runs abandoned, in the same transaction")
    func lockTakeoverAbandonsUnfinishedRuns() throws {
        let dir = try TemporaryDirectory("ledger")
        defer { dir.remove() }
        let path = dir.path("feedline.sqlite").path
        // A run on another host took the lock, began its run and went silent.
        let remote = try SQLiteStore(path: path, schema: .feedline, process: RunProcess(host: "g", pid: 4242, isAlive: { _ in true }))
        let alive = RunLockStaleness(host: "g", heartbeatTimeout: 900, isProcessAlive: { _ in true })
        #expect(try remote.acquireRunLock(pipeline: "airkorea-seoul", holder: "g:4242:a", pid: 4242, now: t0, staleness: alive)
                == .acquired(tookOverFrom: nil))
        let silent = try remote.beginRun(pipeline: "airkorea-seoul", mode: .live, startedAt: t0)

        // While its heartbeat is fresh, nobody else gets the lock and the run stays running.
        let local = try SQLiteStore(path: path, schema: .feedline, process: RunProcess(host: "h", pid: 5555, isAlive: { _ in true }))
        let here = RunLockStaleness(host: "h", heartbeatTimeout: 900, isProcessAlive: { _ in true })
        if case .acquired = try local.acquireRunLock(pipeline: "airkorea-seoul", holder: "h:5555:b", pid: 5555,
                                                     now: t0.addingTimeInterval(60), staleness: here) {
            Issue.record("a live holder's lock was taken")
        }
        #expect(try status(of: silent, in: local) == "running")

        // Twenty minutes without a heartbeat: stale, taken over, and its run is abandoned.
        let noticed = t0.addingTimeInterval(1200)
        guard case .acquired(let previous) = try local.acquireRunLock(pipeline: "airkorea-seoul", holder: "h:5555:c", pid: 5555,
                                                                      now: noticed, staleness: here) else {
            Issue.record("the stale lock was not taken over")
            return
        }
        #expect(previous?.pid == 4242)
        let row = try #require(try local.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT status, abandoned_at, error FROM run WHERE id = ?", arguments: [silent.rawValue])
        })
        #expect(row["status"] as String == "abandoned")
        #expect(row["abandoned_at"] as String? == "2024-03-06T06:20:00Z")
        #expect(row["error"] as String? == "The run did not finish: its process (pid 4242 on g) stopped or lost its run lock before the end.")
    }

    func status(of run: RunID, in store: SQLiteStore) throws -> String? {
        try store.pool.read { db in try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [run.rawValue]) }
    }
}
