import App
import Foundation
import GRDB
import Pipeline
import Testing
import TestSupport

/// Declared checks after live loads: a loopback server plays data.go.kr (7 Seoul stations in
/// pages of 3, PM10 20…26 µg/m³, every AirKorea PM10 grade 2, all at 2024-03-06 13:00 KST, two
/// hours before the test clock), libcurl fetches, and the checks run inside the load's
/// transaction.
@Suite(.serialized) struct CheckLiveRunTests {
    /// Serves the 7 items by `pageNo` (3, 3, 1), observed at 2024-03-06T04:00:00Z.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            let page = Int(request.query["pageNo"] ?? "") ?? 0
            let counts = [1: 3, 2: 3, 3: 1]
            let items = AirKoreaPages.items(first: (page - 1) * 3, count: counts[page] ?? 0, dataTime: "2024-03-06 13:00")
            return .respond(status: 200, contentType: "text/xml", body: AirKoreaPages.xml(items, pageNo: page, numOfRows: 3, totalCount: 7))
        }
    }

    static func pipeline(checks: String) -> String {
        """
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
          ver: "1.3"
        format: xml
        page_size: 3
        checks:
        \(checks)
        """
    }

    /// Checks that pass on the served pages.
    static let passing = """
          - check: not_null
            table: measurement
            columns: [station_name, observed_at]
          - check: row_count
            table: measurement
            min: 7
            max: 7
          - check: freshness
            table: measurement
            column: observed_at
            max_age: 3h
        """

    /// A `warn` check every row fails (AirKorea's grade is 2 everywhere).
    static let warning = """
          - check: accepted_values
            name: grade-one-only
            table: measurement
            column: pm10_grade
            values: [1]
            severity: warn
        """

    /// An `error` check one row fails (S6 has PM10 26).
    static func erroring(onFailure: String) -> String {
        """
          - check: accepted_range
            name: pm10-at-most-25
            table: measurement
            column: pm10
            max: 25
            on_failure: \(onFailure)
        """
    }

    func rows(_ db: URL, _ sql: String) throws -> [[String?]] {
        let queue = try openForAssertions(db.path)
        return try queue.read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value -> String? in
                    switch value.storage {
                    case .null: nil
                    case .int64(let i): String(i)
                    case .double(let d): String(d)
                    case .string(let s): s
                    case .blob(let b): b.base64EncodedString()
                    }
                }
            }
        }
    }

    func count(_ db: URL, _ sql: String) throws -> Int {
        try openForAssertions(db.path).read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    func liveEnvironment(_ server: LoopbackServer) throws -> TestEnvironment {
        var env = try TestEnvironment()
        env.variables["AIRKOREA_SERVICE_KEY"] = LiveRunTests.sentinelKey
        env.airKoreaBase = server.baseURL
        return env
    }

    @Test func anErrorCheckFailsTheRunAndRollsBackEverythingItLoaded() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let env = try liveEnvironment(server)
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("seoul", Self.pipeline(checks: Self.passing + "\n" + Self.warning + "\n" + Self.erroring(onFailure: "rollback")))

        let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .failure, "\(env.out.text)\n\(env.err.text)")
        #expect(status.rawValue == 1)
        #expect(server.requests.count == 3, "the pages were fetched")
        // Nothing of the run was committed: no rows, no payload index, no bookmark.
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 0)
        #expect(try count(env.database, "SELECT count(*) FROM station") == 0)
        #expect(try count(env.database, "SELECT count(*) FROM payload") == 0)
        #expect(try count(env.database, "SELECT count(*) FROM bookmark") == 0)
        // The ledger says why, and the check results were kept apart from the rolled-back load.
        let run = try rows(env.database, "SELECT status, error FROM run")
        #expect(run.count == 1 && run[0][0] == "failed")
        #expect(run[0][1]?.contains("'pm10-at-most-25'") == true && run[0][1]?.contains("rolled back") == true, "\(run)")
        let results = try rows(env.database, "SELECT check_name, severity, status, failing_rows, sample FROM check_result ORDER BY ordinal")
        #expect(results.map { $0[0] ?? "" } == ["not_null(measurement.station_name,observed_at)", "row_count(measurement)",
                                                  "freshness(measurement.observed_at)", "grade-one-only", "pm10-at-most-25"])
        #expect(results.map { $0[2] ?? "" } == ["passed", "passed", "passed", "failed", "failed"])
        #expect(results[4][1] == "error" && results[4][3] == "1")
        #expect(results[4][4] == #"[{"station_name":"S6","observed_at":"2024-03-06T04:00:00Z","pm10":26.0}]"#, "\(results[4])")
        #expect(results[3][1] == "warn" && results[3][3] == "7")

        // The run line says it failed and why; the warn check is a warning.
        #expect(env.out.text.contains("FAILED"))
        #expect(env.out.text.contains("checks 3 passed, 1 warned, 1 failed"), "\(env.out.text)")
        #expect(env.out.text.contains("error: The check 'pm10-at-most-25' (1 row of measurement holds a pm10 that is not at most 25) failed; the load was rolled back"), "\(env.out.text)")

        // status shows the failed run with its checks.
        let before = env.out.text.count
        #expect(env.feedline.status(paths: env.paths(pipelines: pipelines), json: true) == .success)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.dropFirst(before).utf8)) as? [String: Any])
        let line = try #require((document["pipelines"] as? [[String: Any]])?.first { $0["pipeline"] as? String == "seoul" })
        let lastRun = try #require(line["last_run"] as? [String: Any])
        #expect(lastRun["status"] as? String == "failed")
        let checks = try #require(lastRun["checks"] as? [[String: Any]])
        #expect(checks.map { $0["status"] as? String } == ["passed", "passed", "passed", "failed", "failed"])
        #expect(checks.last?["severity"] as? String == "error" && checks.last?["failing_rows"] as? Int == 1)
    }

    @Test func aWarnCheckIsRecordedWithoutFailingTheRun() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let env = try liveEnvironment(server)
        defer { env.dir.remove() }
        let stale = """
              - check: freshness
                name: within-half-an-hour
                table: measurement
                column: observed_at
                max_age: 30m
                severity: warn
            """
        let pipelines = try env.writePipeline("seoul", Self.pipeline(checks: Self.passing + "\n" + Self.warning + "\n" + stale))

        let ran = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines), json: true)
        #expect(ran == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 7)
        #expect(try count(env.database, "SELECT count(*) FROM run WHERE status = 'succeeded' AND error IS NULL") == 1)
        let results = try rows(env.database, "SELECT check_name, severity, status, failing_rows, message FROM check_result ORDER BY ordinal")
        #expect(results.map { $0[2] ?? "" } == ["passed", "passed", "passed", "failed", "failed"])
        #expect(results[3][0] == "grade-one-only" && results[3][1] == "warn" && results[3][3] == "7")
        #expect(results[4][0] == "within-half-an-hour" && results[4][3] == nil)
        #expect(results[4][4] == "the newest measurement.observed_at is 2024-03-06T04:00:00Z, 2h00m old (limit 30m)", "\(results[4])")
        #expect(results[2][4] == "the newest measurement.observed_at is 2024-03-06T04:00:00Z, 2h00m old (limit 3h00m)", "\(results[2])")

        // --json carries the results, samples included.
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.utf8)) as? [[String: Any]])
        #expect(reports.first?["status"] as? String == "succeeded")
        let checks = try #require(reports.first?["checks"] as? [[String: Any]])
        #expect(checks.count == 5)
        let warned = try #require(checks.first { $0["name"] as? String == "grade-one-only" })
        #expect(warned["severity"] as? String == "warn" && warned["status"] as? String == "failed" && warned["failing_rows"] as? Int == 7)
        #expect((warned["sample"] as? [[String: Any]])?.count == DataCheck.sampleLimit)
        #expect((warned["sample"] as? [[String: Any]])?.first?["pm10_grade"] as? Int == 2)

        // The text status has a CHECKS column and the warning.
        let before = env.out.text.count
        #expect(env.feedline.status(paths: env.paths(pipelines: pipelines), json: false, wide: true) == .success)
        let status = String(env.out.text.dropFirst(before))
        #expect(status.contains("CHECKS"), "\(status)")
        #expect(status.contains("2 warn, 3 ok"), "\(status)")
        #expect(status.contains("seoul: warning: check 'grade-one-only': 7 rows of measurement hold a pm10_grade that is not one of 1"), "\(status)")

        // A second run loads nothing new: row_count does not apply and is skipped, not failed.
        #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success, "\(env.out.text)")
        let again = try rows(env.database, "SELECT status, message FROM check_result WHERE run_id = 2 AND check_name = 'row_count(measurement)'")
        #expect(again.first?[0] == "skipped" && again.first?[1]?.contains("no new payload") == true, "\(again)")
    }

    @Test func anErrorCheckThatKeepsItsRowsCommitsThemAndFailsTheRun() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let env = try liveEnvironment(server)
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("seoul", Self.pipeline(checks: Self.passing + "\n" + Self.erroring(onFailure: "keep")))

        let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .failure)
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 7)
        #expect(try count(env.database, "SELECT count(*) FROM payload") == 3)
        let run = try rows(env.database, "SELECT status, error, rows_inserted FROM run")
        #expect(run.first?[0] == "failed" && run.first?[2] == "7")
        #expect(run.first?[1]?.contains("the rows were kept and the run is marked failed") == true, "\(run)")
        #expect(try count(env.database, "SELECT count(*) FROM check_result WHERE status = 'failed' AND check_name = 'pm10-at-most-25'") == 1)
    }

    @Test func aReplayRunsTheChecksOfTheNamedPipeline() async throws {
        // First a live run archives three pages; then they are replayed into a new database.
        let server = try Self.server()
        defer { server.stop() }
        let env = try liveEnvironment(server)
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("seoul", Self.pipeline(checks: Self.passing + "\n" + Self.erroring(onFailure: "rollback")))
        #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .failure)

        let archive = env.dir.path("archive").path
        var replayPaths = env.paths(pipelines: pipelines)
        replayPaths.database = env.dir.path("replayed.sqlite")
        let status = await env.feedline.replay(inputs: [archive], sourceHint: nil, parameters: [:], paths: replayPaths, force: false, checksFrom: "seoul")
        #expect(status == .failure, "\(env.out.text)\n\(env.err.text)")
        #expect(try count(replayPaths.database, "SELECT count(*) FROM measurement") == 0)
        #expect(try count(replayPaths.database, "SELECT count(*) FROM check_result WHERE status = 'failed'") == 1)
        // Freshness does not judge replays: they load recorded data.
        #expect(try count(replayPaths.database, "SELECT count(*) FROM check_result WHERE kind = 'freshness' AND status = 'skipped'") == 1)

        let unknown = await env.feedline.replay(inputs: [archive], sourceHint: nil, parameters: [:], paths: replayPaths, force: false, checksFrom: "nope")
        #expect(unknown == .configuration)
        #expect(env.err.text.contains("no pipeline named 'nope'"))
    }

    @Test func aCheckThatCannotBeEvaluatedIsAnErrorNotAPass() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let env = try liveEnvironment(server)
        defer { env.dir.remove() }
        // Valid SQL that fails while it runs: json() of a station name that is not JSON.
        let pipelines = try env.writePipeline("seoul", Self.pipeline(checks: """
              - check: sql
                name: malformed-json
                sql: select json(station_name) from measurement
            """))
        #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .failure)
        let results = try rows(env.database, "SELECT status, message FROM check_result")
        #expect(results.first?[0] == "error", "\(results)")
        #expect(results.first?[1]?.hasPrefix("could not be evaluated: SQLite: malformed JSON") == true, "\(results)")
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 0)
    }
}
