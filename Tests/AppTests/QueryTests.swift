import AirKorea
@testable import App
import Domain
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// `feedline query` end to end: fixtures into a temporary database, then read-only queries,
/// refusals, parameters, saved queries, the v3 views, and reading during a load.
@Suite struct QueryTests {
    static let savedQueries = FixturePaths.repositoryRoot.appendingPathComponent("Data/queries")

    func request(_ source: QueryRequest.Source, _ format: QueryOutputFormat = .table, _ params: [String: String] = [:]) -> QueryRequest {
        QueryRequest(source: source, format: format, parameters: params, savedQueries: Self.savedQueries)
    }

    /// A test environment whose database holds every fixture pipeline's rows.
    func loadedEnvironment() async throws -> TestEnvironment {
        let env = try TestEnvironment()
        let status = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        #expect(status == .success || status == .partial, "\(env.err.text)")
        return env
    }

    /// What the environment printed after `mark` characters (`env.out.text.count` taken earlier).
    func printed(_ env: TestEnvironment, since mark: Int) -> String {
        var text = String(env.out.text.dropFirst(mark))
        if mark > 0, text.hasPrefix("\n") { text.removeFirst() }
        return text
    }

    /// A read-only connection that waits for locks (a pool that just closed may be checkpointing).
    static func reader(_ db: URL) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        return try DatabaseQueue(path: db.path, configuration: config)
    }

    func scalar(_ db: URL, _ sql: String) throws -> Int? {
        try Self.reader(db).read { try Int.fetchOne($0, sql: sql) }
    }

    func text(_ db: URL, _ sql: String) throws -> String? {
        try Self.reader(db).read { try String.fetchOne($0, sql: sql) }
    }

    @Test func aSelectPrintsATableAndJSONKeepsTypes() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let expected = try scalar(env.database, "SELECT count(*) FROM measurement WHERE station_name = '종로구'")!
        #expect(expected > 0)

        let mark = env.out.text.count
        let status = env.feedline.query(request(.text("SELECT station_name, count(*) AS n, avg(pm10) AS pm10 FROM measurement WHERE station_name = :s GROUP BY 1"),
                                                .json, ["s": "종로구"]), paths: env.paths())
        #expect(status == .success, "\(env.err.text)")
        let json = printed(env, since: mark)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["station_name"] as? String == "종로구")
        #expect(rows[0]["n"] as? Int == expected)
        #expect(json.contains("\"n\":\(expected),"))   // an integer, not 8.0

        // The same as a table: header, rule, one row, count.
        let tableMark = env.out.text.count
        #expect(env.feedline.query(request(.text("SELECT station_name, count(*) AS n FROM measurement WHERE station_name = '종로구' GROUP BY 1")), paths: env.paths()) == .success)
        let table = printed(env, since: tableMark).split(separator: "\n")
        #expect(table.count == 4)
        #expect(table[0] == " station_name | n")
        #expect(table[2] == " 종로구       | \(expected)")
        #expect(table[3] == "(1 row)")
        #expect(rows[0]["pm10"] is Double)
    }

    @Test func writesSettingsAttachAndSeveralStatementsAreRefusedAndNothingChanges() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let runs = try scalar(env.database, "SELECT count(*) FROM run")!
        let measurements = try scalar(env.database, "SELECT count(*) FROM measurement")!
        let refused = [
            "DELETE FROM measurement",
            "UPDATE run SET status = 'failed'",
            "INSERT INTO bookmark VALUES ('x', 'y', 'z', 1)",
            "DROP TABLE measurement",
            "CREATE TABLE t (a)",
            "  -- a comment first\n  delete from run",
            "ATTACH DATABASE '\(env.dir.path("other.sqlite").path)' AS other",
            "PRAGMA journal_mode = DELETE",
            "PRAGMA user_version = 7",
            "PRAGMA wal_checkpoint(TRUNCATE)",
            "VACUUM",
            "VACUUM INTO '\(env.dir.path("copy.sqlite").path)'",
            "SELECT 1; DELETE FROM run",
            "SELECT 1; SELECT 2",
            "REINDEX",
            "BEGIN IMMEDIATE",
        ]
        for sql in refused {
            let before = env.err.text.count
            let status = env.feedline.query(request(.text(sql)), paths: env.paths())
            #expect(status == .usage, "\(sql)")
            #expect(String(env.err.text.dropFirst(before)).contains("Refused"), "\(sql): \(env.err.text.dropFirst(before))")
        }
        #expect(try scalar(env.database, "SELECT count(*) FROM run") == runs)
        #expect(try scalar(env.database, "SELECT count(*) FROM measurement") == measurements)
        #expect(try scalar(env.database, "PRAGMA user_version") == 0)
        #expect(!FileManager.default.fileExists(atPath: env.dir.path("copy.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: env.dir.path("other.sqlite").path))
        #expect(try text(env.database, "PRAGMA journal_mode") == "wal")

        // Reading pragmas are fine.
        #expect(env.feedline.query(request(.text("PRAGMA table_info(measurement)")), paths: env.paths()) == .success)
    }

    /// Pragmas that change only a connection setting: SQLite does not flag them as writes
    /// (`sqlite3_stmt_readonly` is true), so only feedline's own pragma rule refuses them.
    @Test("settings-only pragmas are refused by feedline's pragma rule",
          arguments: ["PRAGMA cache_size = 5", "PRAGMA query_only = 0", "PRAGMA optimize(0x10002)", "pragma main.cache_size=5",
                      "  -- first a comment\nPRAGMA query_only=false", "PRAGMA temp_store = MEMORY"])
    func settingsOnlyPragmasAreRefused(sql: String) throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        try DatabaseQueue(path: env.database.path).write { try $0.execute(sql: "CREATE TABLE t(x)") }
        let status = env.feedline.query(request(.text(sql)), paths: env.paths())
        #expect(status == .usage, "\(sql): \(env.err.text)")
        #expect(env.err.text.contains("does not change settings") || env.err.text.contains("may change a setting"), "\(sql): \(env.err.text)")
    }

    @Test func parametersAreBoundByNameTypedAndAMissingOneIsNamed() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        // A number parameter compares as a number (text '30' would compare greater than every REAL).
        let mark = env.out.text.count
        let status = env.feedline.query(request(.text("SELECT count(*) AS n FROM measurement WHERE pm10 > :limit"), .csv, ["limit": "30"]), paths: env.paths())
        #expect(status == .success)
        let expected = try scalar(env.database, "SELECT count(*) FROM measurement WHERE pm10 > 30")!
        #expect(expected > 0)
        #expect(printed(env, since: mark) == "n\n\(expected)")

        let missing = env.feedline.query(request(.text("SELECT * FROM measurement WHERE station_name = :station")), paths: env.paths())
        #expect(missing == .usage)
        #expect(env.err.text.contains("--param station="))

        _ = env.feedline.query(request(.text("SELECT 1 AS one"), .csv, ["unused": "x"]), paths: env.paths())
        #expect(env.err.text.contains("warning: --param unused is not used"))
    }

    @Test func everySavedQueryRunsOnTheFixtureDatabase() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let saved = SavedQuery.all(in: Self.savedQueries)
        #expect(saved.count >= 8)
        for q in saved {
            let before = env.out.text.count
            let status = env.feedline.query(request(.saved(q.name), .ndjson), paths: env.paths())
            #expect(status == .success, "\(q.name): \(env.err.text)")
            #expect(!q.description.isEmpty, "\(q.name) has no description")
            let output = String(env.out.text.dropFirst(before)).split(separator: "\n")
            for line in output { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(q.name): \(line)") }
        }
        // A bare name runs the saved query too.
        let before = env.out.text.count
        #expect(env.feedline.query(request(.text("latest"), .csv), paths: env.paths()) == .success)
        #expect(String(env.out.text.dropFirst(before)).contains("station_name,sido,kst_date"))
    }

    @Test func staleStationsUsesTheHoursAndNowParameters() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let newestJongno = try text(env.database, "SELECT max(observed_at) FROM measurement WHERE station_name = '종로구'")!
        // Two hours after 종로구's newest hour: it is fresh at 3 h, stale at 1 h.
        let now = iso8601UTC(Console.parseISO(newestJongno)!.addingTimeInterval(2 * 3600))
        var mark = env.out.text.count
        #expect(env.feedline.query(request(.saved("stale-stations"), .csv, ["hours": "3", "now": now]), paths: env.paths()) == .success)
        let fresh = printed(env, since: mark)
        #expect(fresh.hasPrefix("station_name,sido,newest_observed_at,age_hours,hours\n"))
        #expect(!fresh.contains("종로구,"))
        #expect(fresh.contains("관악구,"))   // its only hour is 2023-05-13
        mark = env.out.text.count
        #expect(env.feedline.query(request(.saved("stale-stations"), .csv, ["hours": "1", "now": now]), paths: env.paths()) == .success)
        #expect(printed(env, since: mark).contains("종로구,서울,\(newestJongno),2.0,"))
    }

    @Test func unknownSavedQueryAndMissingDatabaseAreConfigurationErrors() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(env.feedline.query(request(.saved("no-such-query")), paths: env.paths()) == .configuration)
        #expect(env.err.text.contains("Known: "))
        #expect(env.feedline.query(request(.text("SELECT 1")), paths: env.paths()) == .configuration)
        #expect(env.err.text.contains("No database at"))
        #expect(!FileManager.default.fileExists(atPath: env.database.path), "a read-only query must not create the file")
    }

    // MARK: Views

    func hour(_ station: String, _ date: String, _ hour: Int, pm10: Double?, pm25: Double?, sido: String = "서울") -> FeedRecord {
        let slot = HourSlot(date: LocalDate(iso: date)!, hour: hour)!
        var m = HourlyMeasurement(stationName: station, slot: slot, dataTime: slot.airKoreaLabel, pm: DustPair(pm10: pm10, pm25: pm25))
        m.sidoName = sido
        return FeedRecord(m)
    }

    func load(_ store: SQLiteStore, _ records: [FeedRecord]) throws {
        let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }
        let run = try store.beginRun(pipeline: "test", mode: .replay, startedAt: clock())
        _ = try store.load(run: run, finishedAt: clock) { session in
            var counts = LoadCounts()
            for r in records { counts.count(try session.write(r, payload: nil)) }
            return counts
        }
    }

    @Test func dailyMonthlyProvinceAndExceedanceViewsCountHoursAndJudgeOnlyFullEnoughDays() throws {
        let dir = try TemporaryDirectory("views")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("v.sqlite").path, schema: .feedline)
        var records: [FeedRecord] = []
        // Day 1: 20 hours PM10 120, 4 hours missing; PM2.5 40 all day.
        for h in 0..<24 { records.append(hour("A", "2024-03-06", h, pm10: h < 20 ? 120 : nil, pm25: 40)) }
        // Day 2: 10 hours only, PM10 200 — too few hours to judge the day.
        for h in 0..<10 { records.append(hour("A", "2024-03-07", h, pm10: 200, pm25: 10)) }
        // Another station in the province, one hour.
        records.append(hour("B", "2024-03-06", 0, pm10: 20, pm25: 10))
        try load(store, records)

        let db = try ReadOnlyDatabase(path: store.path)
        let daily = try db.fetchAll(sql: "SELECT kst_date, hours, pm10_hours, pm10_avg, pm25_hours FROM measurement_daily WHERE station_name = 'A' ORDER BY 1").rows
        #expect(daily == [[.text("2024-03-06"), .integer(24), .integer(20), .real(120), .integer(24)],
                          [.text("2024-03-07"), .integer(10), .integer(10), .real(200), .integer(10)]])

        let monthly = try db.fetchAll(sql: "SELECT kst_month, days, hours, pm10_hours FROM measurement_monthly WHERE station_name = 'A'").rows
        #expect(monthly == [[.text("2024-03"), .integer(2), .integer(34), .integer(30)]])

        let province = try db.fetchAll(sql: "SELECT stations, station_hours, pm10_hours, pm10_max FROM province_daily WHERE sido = '서울' AND kst_date = '2024-03-06'").rows
        #expect(province == [[.integer(2), .integer(25), .integer(21), .real(120)]])

        let exceed = try db.fetchAll(sql: """
            SELECT kst_date, pm10_hours_over_kr, pm10_hours_over_who, pm25_hours_over_kr, pm25_hours_over_who,
                   pm10_day_over_kr, pm25_day_over_kr, pm25_day_over_who
            FROM exceedance_daily WHERE station_name = 'A' ORDER BY 1
            """).rows
        #expect(exceed[0] == [.text("2024-03-06"), .integer(20), .integer(20), .integer(24), .integer(24), .integer(1), .integer(1), .integer(1)])
        #expect(exceed[1] == [.text("2024-03-07"), .integer(10), .integer(10), .integer(0), .integer(0), .null, .null, .null])

        let freshness = try db.fetchAll(sql: "SELECT newest_observed_at, hours FROM station_freshness WHERE station_name = 'A'").rows
        #expect(freshness == [[.text("2024-03-07T01:00:00Z"), .integer(34)]])   // 2024-03-07 10:00 KST

        let runs = try db.fetchAll(sql: "SELECT pipeline, status, rows FROM run_latest").rows
        #expect(runs == [[.text("test"), .text("succeeded"), .integer(35)]])
        #expect(try db.pendingMigrations().isEmpty)
    }

    // MARK: Reading during a load

    /// Shared between the loading thread and the querying thread.
    final class LoadProbe: @unchecked Sendable {
        private let lock = NSLock()
        private var _inTransaction = false
        private var _queriesDuringLoad = 0
        private var _counts: [Int] = []
        private var _errors: [String] = []
        private var _done = false
        var inTransaction: Bool {
            get { lock.withLock { _inTransaction } }
            set { lock.withLock { _inTransaction = newValue } }
        }
        var done: Bool {
            get { lock.withLock { _done } }
            set { lock.withLock { _done = newValue } }
        }
        var queriesDuringLoad: Int { lock.withLock { _queriesDuringLoad } }
        var counts: [Int] { lock.withLock { _counts } }
        var errors: [String] { lock.withLock { _errors } }
        func record(count: Int?, error: String?, duringLoad: Bool) {
            lock.withLock {
                if let count { _counts.append(count) }
                if let error { _errors.append(error) }
                if duringLoad { _queriesDuringLoad += 1 }
            }
        }
    }

    /// Runs `body` on its own thread (so blocking work cannot starve the cooperative pool).
    func onThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread { body(); done.resume() }
            thread.start()
        }
    }

    @Test func queriesNeitherBlockNorFailWhileALoadHoldsTheWriteTransaction() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let store = try SQLiteStore(path: env.database.path, schema: .feedline)
        // The first load into a new file writes it directly and holds it until it commits (by
        // design; FirstLoadTests covers it), unless a reader already has the file open — which
        // here was a race between the two threads. Load once first, so the load under test is
        // the ordinary kind, through the WAL, that readers never wait for.
        let setUpClock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }
        _ = try store.load(run: try store.beginRun(pipeline: "set-up", mode: .replay, startedAt: setUpClock()),
                           finishedAt: setUpClock) { _ in LoadCounts() }
        let rows = 8_000
        let probe = LoadProbe()
        let feedline = env.feedline
        let paths = env.paths()
        let saved = Self.savedQueries

        async let loader: Void = onThread {
            do {
                let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }
                let run = try store.beginRun(pipeline: "bulk", mode: .replay, startedAt: clock())
                _ = try store.load(run: run, finishedAt: clock) { session in
                    probe.inTransaction = true
                    var counts = LoadCounts()
                    for i in 0..<rows {
                        let slot = HourSlot(hoursSinceEpoch: 474_000 + i % 1000)
                        let m = HourlyMeasurement(stationName: "S\(i / 1000)", slot: slot, dataTime: slot.airKoreaLabel,
                                                  pm: DustPair(pm10: Double(i % 200), pm25: Double(i % 80)))
                        counts.count(try session.write(FeedRecord(m), payload: nil))
                        if i == rows / 2 {
                            // Hold the transaction open until the reader has run queries against it.
                            let deadline = Date().addingTimeInterval(20)
                            while probe.queriesDuringLoad < 5 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                        }
                    }
                    probe.inTransaction = false
                    return counts
                }
            } catch {
                probe.record(count: nil, error: "load: \(error)", duringLoad: false)
            }
            probe.done = true
        }
        async let reader: Void = onThread {
            let deadline = Date().addingTimeInterval(60)
            while !probe.done && Date() < deadline {
                let during = probe.inTransaction
                do {
                    let db = try ReadOnlyDatabase(path: paths.database.path, busyTimeout: 0.1)
                    let count = try db.fetchAll(sql: "SELECT count(*) FROM measurement").rows.first?.first?.integer
                    probe.record(count: count, error: nil, duringLoad: during && probe.inTransaction)
                } catch {
                    probe.record(count: nil, error: "\(error)", duringLoad: false)
                }
                // The whole use case too, through a saved query over the views.
                let status = feedline.query(QueryRequest(source: .saved("runs"), format: .csv, savedQueries: saved), paths: paths)
                if status != .success { probe.record(count: nil, error: "query exited \(status)", duringLoad: false) }
            }
        }
        _ = await (loader, reader)

        #expect(probe.errors.isEmpty, "\(probe.errors.prefix(3))")
        #expect(!env.err.text.contains("locked"), "\(env.err.text)")
        #expect(probe.queriesDuringLoad >= 5, "the reader never overlapped the write transaction")
        // Snapshot isolation: a reader sees all of the load or none of it, never part.
        #expect(probe.counts.allSatisfy { $0 == 0 || $0 == rows }, "\(Set(probe.counts))")
        #expect(try scalar(env.database, "SELECT count(*) FROM measurement") == rows)
    }
}
