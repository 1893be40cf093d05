#if PostgreSQL
import App
import Domain
import Foundation
import GRDB
import Pipeline
import PostgresStorage
import Storage
import Testing
import TestSupport

extension TestServer {
    static func store(_ url: String, schema: FeedSchema = AppEnvironment.standardSchema, host: String = "host-a",
                      pid: Int32 = getpid()) throws -> PostgresStore {
        try PostgresStore(address: PostgresAddress(parsing: url), environment: [:], schema: schema, forWriting: true,
                          host: host, pid: pid, isProcessAlive: { _ in true })
    }
}

/// A fixture environment with both stores: the SQLite file of `env` and a database of its own
/// on the test server, every bundled pipeline selected.
struct BothStores {
    let env: FeedTestEnvironment
    let runs: PipelineRuns
    let url: String
    let sqlite: Paths
    let postgres: Paths
    let selection: PipelineRuns.Selection

    init(_ name: String) throws {
        url = try TestServer.database(name)
        env = try FeedTestEnvironment("pg-\(name)", baseURLVariable: "FEEDLINE_AIRKOREA_BASE_URL", now: Date(timeIntervalSince1970: 1_700_000_000))
        runs = PipelineRuns(environment: env.environment)
        sqlite = env.paths()
        var postgres = sqlite
        postgres.postgresURL = url
        self.postgres = postgres
        selection = try runs.select(names: [], paths: sqlite)
    }
}

@Suite("PostgreSQL store against a real server", .serialized)
struct PostgresStoreTests {
    static let tables = ["measurement", "station", "forecast", "forecast_region", "nearby_station", "tm_coordinate", "school", "major",
                         "major_department", "job_info", "job_posting", "job_posting_location", "job_posting_keyword",
                         "job_posting_status_history", "station_daily_stats", "station_monthly_stats", "pm_alert",
                         "openweather_air_pollution", "openweather_weather", "openweather_weather_condition", "place",
                         "openaq_location", "openaq_sensor", "openaq_latest", "openaq_hourly", "openaq_hours_window",
                         "bookmark", "payload", "diagnostic", "air_quality_hourly", "measurement_completeness"]

    @Test("every bundled pipeline loads the same rows as into SQLite, and a re-run changes nothing")
    func fixturesMatchSQLite() async throws {
        let both = try BothStores("fixtures")
        let (env, runs, url, sqlite, postgres, selection) = (both.env, both.runs, both.url, both.sqlite, both.postgres, both.selection)
        defer { env.dir.remove() }
        let intoSQLite = try await runs.run(selection, mode: .fixtures, paths: sqlite)
        let intoPostgres = try await runs.run(selection, mode: .fixtures, paths: postgres)
        #expect(intoPostgres.reports.count == selection.pipelines.count && intoPostgres.exitStatus == .success)
        for (a, b) in zip(intoSQLite.reports, intoPostgres.reports) {
            #expect(a.pipeline == b.pipeline)
            #expect(a.counts == b.counts, "\(a.pipeline): SQLite \(a.counts) vs PostgreSQL \(b.counts)")
            #expect(b.error == nil, "\(b.pipeline): \(String(describing: b.error))")
            // The declared checks judge the same data the same way on both stores.
            #expect(a.checks.map(\.status) == b.checks.map(\.status), "\(a.pipeline): \(a.checks.map(\.message)) vs \(b.checks.map(\.message))")
            #expect(a.checks.map(\.failingRows) == b.checks.map(\.failingRows), "\(a.pipeline)")
        }
        #expect(intoPostgres.reports.flatMap(\.checks).count > 50, "the bundled pipelines declare their checks")
        let store = try TestServer.store(url)
        for table in Self.tables {
            let onSQLite = try env.rows("SELECT count(*) FROM \(table)")[0][0]
            let onPostgres = try store.rows("SELECT count(*) FROM \(table)")[0][0]
            #expect(onPostgres == .integer(Int64(onSQLite)!), "\(table): SQLite \(onSQLite), PostgreSQL \(onPostgres)")
        }
        // The values themselves, not only the counts.
        let sqliteRows = try env.rows("SELECT station_name, observed_at, coalesce(pm10, -1), coalesce(pm25, -1), coalesce(cai, -1) FROM measurement ORDER BY 1, 2")
        let postgresRows = try store.rows("SELECT station_name, observed_at, coalesce(pm10, -1), coalesce(pm25, -1), coalesce(cai, -1) FROM measurement ORDER BY station_name COLLATE \"C\", observed_at")
        #expect(sqliteRows.count == postgresRows.count && sqliteRows.count > 0)
        for (a, b) in zip(sqliteRows, postgresRows) {
            #expect([StoreValue.text(a[0]), .text(a[1]), .real(Double(a[2])!), .real(Double(a[3])!), .integer(Int64(a[4])!)] == b)
        }

        let again = try await runs.run(selection, mode: .fixtures, paths: postgres)
        #expect(again.exitStatus == .success)
        for report in again.reports {
            #expect(report.counts.inserted == 0 && report.counts.updated == 0, "\(report.pipeline) changed rows on a re-run: \(report.counts)")
        }
        let summaries = try store.pipelineRunSummaries()
        #expect(summaries.count == selection.pipelines.count && summaries.allSatisfy { $0.status == "succeeded" })
    }

    @Test("store copy: every SQLite table into PostgreSQL with its ids; runs go on from the copy; a second copy writes nothing")
    func copyFromSQLite() async throws {
        let both = try BothStores("copy")
        let (env, runs, url, sqlite, postgres, selection) = (both.env, both.runs, both.url, both.sqlite, both.postgres, both.selection)
        defer { env.dir.remove() }
        #expect(try await runs.run(selection, mode: .fixtures, paths: sqlite).exitStatus == .success)

        let report = try env.environment.copyStore(from: sqlite.database.path, to: postgres, replace: false) { _, _, _ in }
        #expect(report.outcome == .copied)
        #expect(report.tables.count >= 35 && report.tables.allSatisfy { $0.source == $0.target })
        let store = try TestServer.store(url)
        for table in Self.tables where !["air_quality_hourly", "measurement_completeness"].contains(table) {
            let onSQLite = try env.rows("SELECT count(*) FROM \(table)")[0][0]
            #expect(try store.rows("SELECT count(*) FROM \(table)")[0][0] == .integer(Int64(onSQLite)!), "\(table)")
        }
        // The ids and the values came along: runs, bookmarks, measurements.
        #expect(try store.rows("SELECT id, pipeline, status FROM run ORDER BY id").map { "\($0)" }
                == env.rows("SELECT id, pipeline, status FROM run ORDER BY id").map { row in "\([StoreValue.integer(Int64(row[0])!), .text(row[1]), .text(row[2])])" })
        #expect(try store.rows("SELECT pipeline, name, value FROM bookmark ORDER BY pipeline COLLATE \"C\", name COLLATE \"C\"").map { $0.map { "\($0)" } }
                == env.rows("SELECT pipeline, name, value FROM bookmark ORDER BY pipeline, name").map { $0.map { "\(StoreValue.text($0))" } })
        let measured = try env.rows("SELECT station_name, observed_at, coalesce(pm10, -1), coalesce(cai, -1) FROM measurement ORDER BY 1, 2")
        let copied = try store.rows("SELECT station_name, observed_at, coalesce(pm10, -1), coalesce(cai, -1) FROM measurement ORDER BY station_name COLLATE \"C\", observed_at")
        #expect(measured.count == copied.count && !measured.isEmpty)
        for (a, b) in zip(measured, copied) { #expect([StoreValue.text(a[0]), .text(a[1]), .real(Double(a[2])!), .integer(Int64(a[3])!)] == b) }

        // Runs on PostgreSQL go on from the copy: every payload is known, new runs take new ids.
        let sourceRuns = Int64(try env.rows("SELECT max(id) FROM run")[0][0])!
        let after = try await runs.run(selection, mode: .fixtures, paths: postgres)
        #expect(after.exitStatus == .success)
        for report in after.reports {
            #expect(report.counts.inserted == 0 && report.counts.updated == 0 && report.counts.payloadsLoaded == 0, "\(report.pipeline): \(report.counts)")
        }
        #expect(try store.rows("SELECT min(id) FROM run WHERE id > \(sourceRuns)")[0][0] == .integer(sourceRuns + 1))

        // The target now has runs of its own: a copy is refused, --replace copies again, and a
        // copy onto a copy writes nothing.
        #expect {
            _ = try env.environment.copyStore(from: sqlite.database.path, to: postgres, replace: false) { _, _, _ in }
        } throws: { "\($0)".contains("--replace") }
        #expect(try env.environment.copyStore(from: sqlite.database.path, to: postgres, replace: true) { _, _, _ in }.outcome == .copied)
        #expect(try store.rows("SELECT max(id) FROM run")[0][0] == .integer(sourceRuns))
        #expect(try env.environment.copyStore(from: sqlite.database.path, to: postgres, replace: false) { _, _, _ in }.outcome == .alreadyCopied)
    }

    @Test("feedline query on PostgreSQL: formats, :name parameters, an empty result's columns, refusals, the timeout, nothing written")
    func queryReadsOnly() async throws {
        let url = try TestServer.database("query")
        let env = try FeedTestEnvironment("pg-query", baseURLVariable: "FEEDLINE_AIRKOREA_BASE_URL", now: Date(timeIntervalSince1970: 1_700_000_000))
        defer { env.dir.remove() }
        var paths = env.paths()
        paths.postgresURL = url
        let runs = PipelineRuns(environment: env.environment)
        #expect(try await runs.run(runs.select(names: ["airkorea-jongno"], paths: paths), mode: .fixtures, paths: paths).exitStatus == .success)
        let queries = env.dir.path("queries")
        func query(_ sql: String, _ format: QueryOutputFormat = .csv, parameters: [String: String] = [:], timeout: Double = 60) -> (App.ExitStatus, String, String) {
            env.out.clear(); env.err.clear()
            let status = env.feedline.query(QueryRequest(source: .sql(sql), format: format, parameters: parameters, savedQueries: queries,
                                                         timeout: timeout), paths: paths)
            // The lines written, one per line, whatever the writer's chunks.
            let lines = env.out.text.split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n")
            return (status, lines, env.err.text)
        }
        guard case .integer(let measured) = try TestServer.store(url).rows("SELECT count(*) FROM measurement WHERE station_name = '종로구' AND pm10 > 30")[0][0] else {
            Issue.record("no count"); return
        }
        // :name parameters, read as the type the statement needs ('종로구' text, 30 a number); a cast stays a cast.
        let counted = query("SELECT count(*)::int AS n, 'a::b' AS s FROM measurement WHERE station_name = :station AND pm10 > :floor",
                            parameters: ["station": "종로구", "floor": "30"])
        #expect(counted.0 == .success && counted.1 == "n,s\n\(measured),a::b", "\(counted)")
        let json = query("SELECT station_name, pm10 FROM measurement ORDER BY observed_at DESC LIMIT 2", .json)
        #expect(json.0 == .success && json.1.contains("\"station_name\":\"종로구\""), "\(json)")
        // More rows than one cursor fetch.
        let many = query("SELECT g FROM generate_series(1, 2500) AS g")
        #expect(many.0 == .success && many.1.split(separator: "\n").count == 2501 && many.1.hasSuffix("\n2500"))
        // An empty result still names its columns.
        #expect(query("SELECT station_name, pm10 FROM measurement WHERE false").1 == "station_name,pm10")
        // Refusals, exit 64, nothing changed.
        for sql in ["DELETE FROM measurement", "SELECT 1; DELETE FROM measurement",
                    "WITH gone AS (DELETE FROM measurement RETURNING 1) SELECT count(*) FROM gone",
                    "SELECT * FROM measurement FOR UPDATE"] {
            let refused = query(sql)
            #expect(refused.0 == .usage && refused.2.contains("Refused"), "\(sql): \(refused)")
        }
        #expect(query("SELECT :missing").0 == .usage)
        let slow = query("SELECT pg_sleep(5)", timeout: 0.5)
        #expect(slow.0 == .temporaryFailure && slow.2.contains("--timeout"), "\(slow)")
        #expect(query("SELECT nope FROM measurement").0 == .failure)
        #expect(try TestServer.store(url).rows("SELECT count(*) FROM measurement WHERE station_name = '종로구'")[0][0] != .integer(0))
    }

    @Test("report and intake read PostgreSQL exactly as they read SQLite: the same HTML, the same figures, the same suggestions")
    func readersMatchSQLite() async throws {
        let both = try BothStores("readers")
        let (env, runs, sqlite, postgres, selection) = (both.env, both.runs, both.sqlite, both.postgres, both.selection)
        defer { env.dir.remove() }
        #expect(try await runs.run(selection, mode: .fixtures, paths: sqlite).exitStatus == .success)
        #expect(try await runs.run(selection, mode: .fixtures, paths: postgres).exitStatus == .success)
        let profile = WalkingProfile(activity: .moderate, metresPerHour: 3000, speed: 4.5, hours: [7, 8, 9, 18])

        func report(_ subject: ReportSubject, _ paths: Paths, _ file: String, postings: Bool = false) throws -> (App.ExitStatus, String, String) {
            env.out.clear(); env.err.clear()
            let status = env.feedline.report(ReportRequest(subject: subject, days: 9, output: env.dir.path(file).path, profile: profile,
                                                           force: true, makeDirectories: false, postings: postings), paths: paths)
            let html = (try? String(contentsOf: env.dir.path(file), encoding: .utf8)) ?? ""
            return (status, html, env.err.text.replacingOccurrences(of: paths.databaseName, with: "DB"))
        }
        for (subject, postings) in [(ReportSubject.station("종로구"), false), (.province("서울"), true)] {
            let a = try report(subject, sqlite, "a.html", postings: postings), b = try report(subject, postgres, "b.html", postings: postings)
            #expect(a.0 == .success && b.0 == .success, "\(subject): \(a.2) | \(b.2)")
            #expect(a.1.count > 10_000 && a.1 == b.1, "\(subject): the reports differ")
            #expect(a.2 == b.2, "\(subject)")
            if postings { #expect(a.1.contains("서울"), "the postings panel names regions") }
        }
        // An unknown station: exit 1 on both, with the same known names.
        let unknownA = try report(.station("없는곳"), sqlite, "c.html"), unknownB = try report(.station("없는곳"), postgres, "d.html")
        #expect(unknownA.0 == .failure && unknownB.0 == .failure && unknownA.2 == unknownB.2 && unknownA.2.contains("Known: "), "\(unknownA.2) | \(unknownB.2)")

        func intake(_ station: String, _ paths: Paths) -> (App.ExitStatus, String, String) {
            env.out.clear(); env.err.clear()
            let status = env.feedline.intake(IntakeRequest(station: station, date: LocalDate(iso: "2023-05-21")!, activity: .high,
                                                           metresPerHour: 2000, speed: 5, hours: Array(6...20), legacy: false),
                                             paths: paths, json: true)
            return (status, env.out.text, env.err.text.replacingOccurrences(of: paths.databaseName, with: "DB")
                        .replacingOccurrences(of: "feedline.sqlite", with: "DB"))
        }
        let intakeA = intake("종로구", sqlite), intakeB = intake("종로구", postgres)
        #expect(intakeA.0 == .success && intakeA == intakeB, "\(intakeA) | \(intakeB)")
        #expect(intakeA.1.contains("\"hours_with_data\":") && !intakeA.1.contains("\"ug\":null,\"hours_with_data\":0,\"hours_expected\":105"), "the week has data")
        let suggestA = intake("종노구", sqlite), suggestB = intake("종노구", postgres)
        #expect(suggestA.0 == .failure && suggestA == suggestB && suggestA.2.contains("did you mean `종로구`"), "\(suggestA) | \(suggestB)")
    }

    @Test("one run lock per pipeline across hosts; a lock whose session died is free again")
    func runLocksAcrossHosts() throws {
        let url = try TestServer.database("locks")
        let staleness = RunLockStaleness(host: "any", heartbeatTimeout: 3600, isProcessAlive: { _ in true })
        let hostA = try TestServer.store(url, host: "host-a", pid: 101)
        let hostB = try TestServer.store(url, host: "host-b", pid: 202)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try hostA.acquireRunLock(pipeline: "p", holder: "a:101:1", pid: 101, now: now, staleness: staleness) == .acquired(tookOverFrom: nil))
        guard case .held(let holder) = try hostB.acquireRunLock(pipeline: "p", holder: "b:202:1", pid: 202, now: now, staleness: staleness) else {
            Issue.record("host B took a lock host A holds"); return
        }
        #expect(holder.host == "host-a" && holder.pid == 101)
        #expect(try hostB.acquireRunLock(pipeline: "other", holder: "b:202:2", pid: 202, now: now, staleness: staleness) == .acquired(tookOverFrom: nil))
        #expect(try hostA.heartbeatRunLock(pipeline: "p", holder: "a:101:1", now: now.addingTimeInterval(10)))
        #expect(try !hostB.heartbeatRunLock(pipeline: "p", holder: "b:202:1", now: now), "B holds no lock on p")
        #expect(Set(try hostB.runLocks().map(\.pipeline)) == ["p", "other"])
        try hostA.releaseRunLock(pipeline: "p", holder: "a:101:1")
        #expect(try hostB.acquireRunLock(pipeline: "p", holder: "b:202:3", pid: 202, now: now, staleness: staleness) == .acquired(tookOverFrom: nil))
        try hostB.releaseRunLock(pipeline: "p", holder: "b:202:3")

        // A host that dies holding a lock: PostgreSQL ends its session and releases the lock.
        var dying: PostgresStore? = try TestServer.store(url, host: "host-c", pid: 303)
        let begun = try dying!.beginRun(pipeline: "q", mode: .live, startedAt: now)
        #expect(try dying!.acquireRunLock(pipeline: "q", holder: "c:303:1", pid: 303, now: now, staleness: staleness) == .acquired(tookOverFrom: nil))
        dying = nil
        var outcome = RunLockOutcome.held(by: RunLockHolder(pipeline: "q", holder: "", pid: 0, host: "", acquiredAt: now, heartbeatAt: now))
        for _ in 0..<50 {
            outcome = try hostB.acquireRunLock(pipeline: "q", holder: "b:202:4", pid: 202, now: now, staleness: staleness)
            if case .acquired = outcome { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        guard case .acquired(let previous) = outcome else { Issue.record("the dead host's lock was never released"); return }
        #expect(previous?.host == "host-c")
        let status = try hostB.rows("SELECT status FROM run WHERE id = \(begun.rawValue)")
        #expect(status == [[.text("abandoned")]], "the dead holder's run is abandoned when its lock is taken")
    }

    @Test("three hosts sharing a key never count past its daily quota together")
    func quotaIsShared() async throws {
        let url = try TestServer.database("quota")
        let scope = QuotaScope(source: "airkorea", api: "ArpltnInforInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "abc")
        let day = LocalDate(year: 2026, month: 11, day: 25)!
        let hosts = try (0..<3).map { try TestServer.store(url, host: "host-\($0)") }
        let granted = await withTaskGroup(of: Int.self) { group in
            for host in hosts {
                group.addTask {
                    var count = 0
                    for _ in 0..<60 where (try? host.reserveCall(scope, on: day, limit: 100)) == true { count += 1 }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(granted == 100)
        #expect(try hosts[0].callsMade(scope, on: day) == 100)
        #expect(try !hosts[1].reserveCall(scope, on: day, limit: 100))
    }

    @Test("a second open migrates nothing; another application's database is refused")
    func migrationsAndForeignDatabases() throws {
        let url = try TestServer.database("migrate")
        _ = try TestServer.store(url)
        let again = try TestServer.store(url)
        let applied = try again.rows("SELECT identifier FROM feedline_migration")
        #expect(applied == [[.text(PostgresSchema.declaredStep)]])

        // Readers never create anything: an empty database is "no feedline database yet".
        let empty = try TestServer.database("empty")
        #expect(throws: PostgresNoFeedlineDatabase.self) {
            try PostgresStore(address: PostgresAddress(parsing: empty), environment: [:], schema: AppEnvironment.standardSchema,
                              forWriting: false, host: "h", pid: 1, isProcessAlive: { _ in true })
        }
        // No server on the port: a connection failure, worth retrying (exit 75 in the commands).
        do {
            _ = try TestServer.store("postgres://feedline@127.0.0.1:1/feedline")
            Issue.record("connected to port 1")
        } catch let error as PostgresStoreError {
            #expect(error.isConnectionFailure, "\(error)")
        }

        let foreign = try TestServer.database("foreign")
        let other = try TestServer.store(foreign, schema: FeedSchema())
        _ = try other.rows("CREATE TABLE invoices (id int)")
        _ = try other.rows("DROP TABLE feedline_migration")
        do {
            _ = try TestServer.store(foreign)
            Issue.record("opened another application's database")
        } catch {
            #expect("\(error)".contains("is not a feedline database"), "\(error)")
        }
    }
}
#endif
