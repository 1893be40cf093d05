import AirKorea
import Domain
import Foundation
import GRDB
import Pipeline
@testable import Storage
import Testing
import TestSupport

/// The first load into a file the store created writes the file directly through a rollback
/// journal (`DirectFirstLoad`); every other load goes through the WAL. A load killed part-way
/// leaves a hot journal, which every feedline opener rolls back (`HotJournal`).
@Suite struct FirstLoadTests {
    let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_709_704_800) }

    func measurements(_ count: Int, hour: String = "2024-03-06 15:00") -> [FeedRecord] {
        let slot = HourSlot(airKoreaLabel: hour)!
        return (0..<count).map { (i: Int) -> FeedRecord in
            let pm = DustPair<Double?>(pm10: Double(20 + i % 50), pm25: Double(10 + i % 20))
            return FeedRecord(HourlyMeasurement(stationName: "station \(i)", slot: slot, dataTime: hour, pm: pm))
        }
    }

    /// Loads `records` in one run; `during` sees the files while the load's transaction is open.
    func load(_ store: SQLiteStore, _ records: [FeedRecord], during: () -> Void = {}) throws -> LoadCounts {
        let run = try store.beginRun(pipeline: "test", mode: .replay, startedAt: clock())
        return try store.load(run: run, finishedAt: clock) { session in
            var counts = LoadCounts()
            for r in records { counts.count(try session.write(r, payload: nil)) }
            during()
            return counts
        }
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func state(_ path: String) throws -> (mode: String?, integrity: String?, rows: Int?, runs: [String]) {
        let queue = try openForAssertions(path)
        defer { try? queue.close() }
        return try queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement"),
             try String.fetchAll(db, sql: "SELECT status FROM run ORDER BY id"))
        }
    }

    @Test("the first load into a new file writes the file directly; afterwards it is in WAL mode and later loads go through the WAL")
    func firstLoadIntoANewFileSkipsTheWAL() throws {
        let dir = try TemporaryDirectory("firstload")
        defer { dir.remove() }
        let path = dir.path("new.sqlite").path
        let store = try SQLiteStore(path: path, schema: .feedline)
        // A read through the store's own pool first, as a run's ledger and bookmark reads do: its
        // idle reader connection must not keep the load in the WAL.
        #expect(try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM run") } == 0)

        var walDuringFirst = true, journalDuringFirst = false
        let first = try load(store, measurements(200)) {
            walDuringFirst = exists(path + "-wal")
            journalDuringFirst = exists(path + "-journal")
        }
        #expect(first.inserted == 200)
        #expect(!walDuringFirst, "the first load went through the WAL")
        #expect(journalDuringFirst, "the first load had no rollback journal")
        #expect(!exists(path + "-journal"))
        var after = try state(path)
        #expect(after.mode == "wal" && after.integrity == "ok" && after.rows == 200 && after.runs == ["succeeded"])

        var walDuringSecond = false
        let second = try load(store, measurements(200, hour: "2024-03-06 16:00")) { walDuringSecond = exists(path + "-wal") }
        #expect(second.inserted == 200)
        #expect(walDuringSecond, "a second load must go through the WAL")

        // Another store on the same, now existing, file: its first load is not a first load into a new file.
        let reopened = try SQLiteStore(path: path, schema: .feedline)
        var walDuringReopened = false
        _ = try load(reopened, measurements(10, hour: "2024-03-06 17:00")) { walDuringReopened = exists(path + "-wal") }
        #expect(walDuringReopened)
        after = try state(path)
        #expect(after.mode == "wal" && after.integrity == "ok" && after.rows == 410 && after.runs == ["succeeded", "succeeded", "succeeded"])
    }

    @Test("a failed first load leaves nothing, and the file in WAL mode")
    func failedFirstLoadRollsBack() throws {
        let dir = try TemporaryDirectory("firstload")
        defer { dir.remove() }
        let path = dir.path("new.sqlite").path
        let store = try SQLiteStore(path: path, schema: .feedline)
        struct Refused: Error {}
        let run = try store.beginRun(pipeline: "test", mode: .replay, startedAt: clock())
        #expect(throws: Refused.self) {
            _ = try store.load(run: run, finishedAt: clock) { session in
                for r in measurements(3_000) { _ = try session.write(r, payload: nil) }
                throw Refused()
            }
        }
        let after = try state(path)
        #expect(after.mode == "wal" && after.integrity == "ok" && after.rows == 0 && after.runs == ["running"])
        #expect(!exists(path + "-journal"))
    }

    @Test("another connection with the new file open keeps the first load in the WAL, without waiting for it")
    func anotherConnectionKeepsTheWAL() throws {
        let dir = try TemporaryDirectory("firstload")
        defer { dir.remove() }
        let path = dir.path("new.sqlite").path
        // A load that waited for the other connection would wait out this timeout (it never lets
        // go); one that does not wait takes well under a second, so 30 s below tells them apart
        // even on a host busy with the whole suite.
        let store = try SQLiteStore(path: path, schema: .feedline, busyTimeout: 60)
        // Open and idle, as `feedline query` in another terminal would be between statements.
        let other = try openForAssertions(path)
        defer { try? other.close() }
        _ = try other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM run") }

        var walDuring = false
        let started = Date()
        let counts = try load(store, measurements(50)) { walDuring = exists(path + "-wal") }
        #expect(counts.inserted == 50)
        #expect(walDuring)
        #expect(Date().timeIntervalSince(started) < 30, "the load waited for the other connection")
        #expect(try other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") } == 50)
    }

    @Test("a reader opening the file while the first load holds it says busy (worth retrying), and reads it after the commit")
    func readerDuringTheFirstLoadIsBusy() throws {
        let dir = try TemporaryDirectory("firstload")
        defer { dir.remove() }
        let path = dir.path("new.sqlite").path
        let store = try SQLiteStore(path: path, schema: .feedline)
        var during: Result<ReadOnlyDatabase, Error>?
        // Enough rows to overflow the load's page cache, so SQLite has written into the file and
        // holds it exclusively until the commit.
        _ = try load(store, measurements(40_000)) {
            during = Result { try ReadOnlyDatabase(path: path, busyTimeout: 0.1) }
        }
        let error = try #require(throws: ReadOnlyQueryError.self) { try during?.get() }
        #expect(error.kind == .busy)
        #expect(error.message.contains("first load into a new file"))
        var counted: [[SQLValue]] = []
        try ReadOnlyDatabase(path: path).run(sql: "SELECT count(*) FROM measurement", columns: { _ in }, row: { counted.append($0) })
        #expect(counted == [[.integer(40_000)]])
    }

    /// A feedline database whose first load was killed after SQLite had spilled changed pages
    /// into the file: the file and its hot journal, as the killed process left them.
    func killedFirstLoad(at path: String, in dir: TemporaryDirectory) throws {
        let source = path + ".source"
        _ = try { () throws -> RunID in  // the store (its pool) is released when this returns
            let store = try SQLiteStore(path: source, schema: .feedline, process: RunProcess(host: "h", pid: 1, isAlive: { _ in true }))
            return try store.beginRun(pipeline: "test", mode: .replay, startedAt: clock())
        }()
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let writer = try DatabaseQueue(path: source, configuration: config)
        try writer.inDatabase { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA cache_size = 10; BEGIN IMMEDIATE")
            for i in 0..<3_000 {
                try db.execute(sql: "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time) VALUES (?, '2024-03-06T06:00:00Z', '2024-03-06', 15, ?)",
                               arguments: ["station \(i)", String(repeating: "x", count: 200)])
            }
            // The transaction is open and has spilled: copy what a crash would leave on disk.
            for suffix in ["", "-journal"] {
                try FileManager.default.copyItem(atPath: source + suffix, toPath: path + suffix)
            }
            try db.execute(sql: "ROLLBACK")
        }
        try writer.close()
    }

    @Test("a first load killed part-way leaves a hot journal that readers and writers roll back: the file is as before the load")
    func killedFirstLoadIsRolledBackOnOpen() throws {
        let dir = try TemporaryDirectory("firstload")
        defer { dir.remove() }
        // Without the roll-back, a read-only connection cannot read such a file at all.
        let plain = dir.path("plain.sqlite").path
        try killedFirstLoad(at: plain, in: dir)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: plain + "-journal")).count) ?? 0 > 0)
        var readonly = Configuration()
        readonly.readonly = true
        let refused = try #require(throws: DatabaseError.self) {
            try DatabaseQueue(path: plain, configuration: readonly).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") }
        }
        #expect(refused.extendedResultCode == .SQLITE_READONLY_ROLLBACK)

        // feedline's readers: the ledger reader and the query database.
        let forLedger = dir.path("ledger.sqlite").path
        try killedFirstLoad(at: forLedger, in: dir)
        let ledger = try SQLiteStore(readingAt: forLedger)
        #expect(try ledger.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") } == 0)
        #expect(try ledger.pool.read { db in try String.fetchAll(db, sql: "SELECT status FROM run") } == ["running"])
        #expect(!exists(forLedger + "-journal"))

        let forQuery = dir.path("query.sqlite").path
        try killedFirstLoad(at: forQuery, in: dir)
        let query = try ReadOnlyDatabase(path: forQuery)
        var counted: [[SQLValue]] = []
        try query.run(sql: "SELECT count(*) FROM measurement", columns: { _ in }, row: { counted.append($0) })
        #expect(counted == [[.integer(0)]])

        // The writer: the next run opens it, notices the killed run, and loads.
        let forWriter = dir.path("writer.sqlite").path
        try killedFirstLoad(at: forWriter, in: dir)
        let store = try SQLiteStore(path: forWriter, schema: .feedline, process: RunProcess(host: "h", pid: 2, isAlive: { $0 == 2 }))
        #expect(try load(store, measurements(5)).inserted == 5)
        let after = try state(forWriter)
        #expect(after.mode == "wal" && after.integrity == "ok" && after.rows == 5)
        #expect(after.runs == ["abandoned", "succeeded"])
    }
}
