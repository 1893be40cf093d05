@testable import App
import Domain
import Foundation
import Testing
import TestSupport

/// Output shapes: `schedule --next` as a table, `intake --json`, `backfill --json`,
/// `query -o FILE` and the global `--quiet`.
@Suite struct OutputShapeTests {
    static let savedQueries = FixturePaths.repositoryRoot.appendingPathComponent("Data/queries")

    /// The Jongno fixtures loaded, and how much had been printed by then.
    func loaded() async throws -> (env: TestEnvironment, mark: Int) {
        let env = try TestEnvironment()
        #expect(await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        return (env, env.out.text.count)
    }

    /// What `env` printed after `mark` characters.
    func printed(_ env: TestEnvironment, since mark: Int) -> String {
        var text = String(env.out.text.dropFirst(mark))
        if text.hasPrefix("\n") { text.removeFirst() }
        return text
    }

    @Test func scheduleNextIsATableWithOneRowPerFireTime() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "*/30 * * * *", stations: "0 3 * * MON")
        #expect(env.feedline.printUpcoming(names: [], paths: env.paths(pipelines: pipelines), count: 2) == .success)
        #expect(env.out.text == """
            PIPELINE        SCHEDULE      TIME ZONE   CATCH-UP  NEXT (LOCAL)      UTC
            sched-seoul     */30 * * * *  Asia/Seoul  latest    2024-03-06 15:30  2024-03-06T06:30:00Z
                                                                2024-03-06 16:00  2024-03-06T07:00:00Z
            sched-stations  0 3 * * MON   Asia/Seoul  all       2024-03-11 03:00  2024-03-10T18:00:00Z
                                                                2024-03-18 03:00  2024-03-17T18:00:00Z
            """)
    }

    @Test func intakeJSONHasTheHoursTheDaysAndNullForNoData() async throws {
        let (env, mark) = try await loaded()
        defer { env.dir.remove() }
        let request = IntakeRequest(station: "종로구", date: LocalDate(iso: "2023-05-13")!, activity: .moderate,
                                    metresPerHour: 5000, speed: 5, hours: Array(0...23), legacy: false)
        #expect(env.feedline.intake(request, paths: env.paths(), json: true) == .success, "\(env.err.text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed(env, since: mark).utf8)) as? [String: Any])
        #expect(object["station"] as? String == "종로구" && object["model"] as? String == "epa-efh-2011")
        #expect(object["inhalation_m3_per_h"] as? Double == 1.56)
        let hours = try #require(object["hours"] as? [[String: Any]])
        #expect(hours.count == 24 && hours.map { $0["hour"] as? Int } == Array(0...23).map { $0 })
        let day = try #require((object["day"] as? [String: Any])?["pm10"] as? [String: Any])
        let withData = try #require(day["hours_with_data"] as? Int)
        #expect(withData > 0 && day["ug"] is Double && day["hours_expected"] as? Int == 24)
        // Hours without a measurement are null, never 0.
        #expect(hours.filter { $0["pm10_ug"] is NSNull }.count == 24 - withData)
        let days = try #require(object["days"] as? [[String: Any]])
        #expect(days.count == 7 && days.first?["date"] as? String == "2023-05-07")
        let empty = try #require((days.first?["pm10"] as? [String: Any]))
        #expect(empty["ug"] is NSNull && empty["hours_with_data"] as? Int == 0)
    }

    @Test func backfillJSONIsOneObjectWithTheGapsAndThePlan() async throws {
        let (env, mark) = try await loaded()
        defer { env.dir.remove() }
        let status = await env.feedline.backfill(pipeline: "airkorea-jongno", from: LocalDate(iso: "2024-03-01")!,
                                                 through: LocalDate(iso: "2024-03-05")!, paths: env.paths(), dryRun: true, json: true)
        #expect(status == .success, "\(env.err.text)")
        let text = printed(env, since: mark)
        #expect(!text.contains("\n"), "only the JSON object: \(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["dry_run"] as? Bool == true && object["exit_code"] as? Int == 0 && object["expected_hours"] as? Int == 120)
        let stations = try #require(object["stations"] as? [[String: Any]])
        #expect(stations.map { $0["station"] as? String } == ["종로구"])
        #expect(stations[0]["missing_hours"] as? Int == 120)
        #expect((stations[0]["missing"] as? [[String: String]]) == [["from": "2024-03-01T00:00:00+09:00", "to": "2024-03-05T23:00:00+09:00"]])
        #expect(stations[0]["still_missing"] is NSNull, "nothing was fetched")
        let plan = try #require(object["plan"] as? [[String: Any]])
        #expect(plan.count == 1 && plan[0]["data_term"] as? String == "MONTH" && plan[0]["fetched"] as? Bool == true, "\(plan)")
        let quota = try #require(object["quota"] as? [String: Any])
        #expect(quota["limit"] as? Int == 500 && quota["planned_calls"] as? Int == plan[0]["estimated_calls"] as? Int)
        #expect((object["runs"] as? [Any])?.isEmpty == true)
    }

    @Test func queryWritesItsRowsToAFileOnlyWhenItSucceeds() async throws {
        let (env, mark) = try await loaded()
        defer { env.dir.remove() }
        let file = env.dir.path("out.csv")
        func query(_ sql: String, to output: URL, force: Bool = false) -> App.ExitStatus {
            var request = QueryRequest(source: .sql(sql), format: .csv, savedQueries: Self.savedQueries, output: output)
            request.force = force
            return env.feedline.query(request, paths: env.paths())
        }
        #expect(query("SELECT station_name, count(*) AS n FROM measurement GROUP BY 1", to: file) == .success, "\(env.err.text)")
        #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix("station_name,n\n종로구,"))
        #expect(printed(env, since: mark).isEmpty, "rows go to the file, not standard output")
        // A failing query leaves the earlier file as it was, and no temporary file behind.
        let before = try Data(contentsOf: file)
        #expect(query("SELECT nope FROM measurement", to: file, force: true) == .failure)
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: env.dir.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
        // The database and other SQLite files are never written over; nor is a directory.
        let database = try Data(contentsOf: env.database)
        #expect(query("SELECT 1", to: env.database) == .usage)
        #expect(env.err.text.contains("it is the database being queried"))
        #expect(try Data(contentsOf: env.database).prefix(100) == database.prefix(100))
        #expect(query("SELECT 1", to: env.dir.url) == .usage)
        #expect(query("SELECT 1", to: env.dir.path("missing/out.csv")) == .usage)
    }

    @Test func quietDropsSummariesAndNotesButNotErrorsOrData() throws {
        let out = TextSink(), err = TextSink()
        var env = try TestEnvironment().environment
        env.output = { out.append($0) }
        env.errorOutput = { err.append($0) }
        let summaries = GlobalOptions.quieted(env, summaryOnStandardOutput: true)
        summaries.output("airkorea-seoul  [fixtures]  ok")
        summaries.errorOutput("note: skipping x.xml: not a regular file (FIFO).")
        summaries.errorOutput("warning: Pipelines/a.yaml: field 'fixtures': …")
        summaries.errorOutput("error: no pipeline named 'x'.")
        #expect(out.text.isEmpty)
        #expect(err.text == "warning: Pipelines/a.yaml: field 'fixtures': …\nerror: no pipeline named 'x'.")
        let data = GlobalOptions.quieted(env, summaryOnStandardOutput: false)
        data.output("n\n1")
        #expect(out.text == "n\n1")
    }

    @Test("--quiet: `run` prints nothing, `query` prints its rows", .enabled(if: FeedlineExecutable.url != nil))
    func quietProcesses() throws {
        let dir = try TemporaryDirectory("quiet")
        defer { dir.remove() }
        _ = try FeedlineProcess.run(["init", "home"], in: dir.url)
        let home = dir.path("home")
        let run = try FeedlineProcess.run(["run", "airkorea-jongno", "--quiet"], in: home)
        #expect(run.status == 0 && run.out.isEmpty && run.err.isEmpty, "\(run)")
        let json = try FeedlineProcess.run(["run", "airkorea-jongno", "--quiet", "--json"], in: home)
        let reports = try? JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]]
        #expect(json.status == 0 && reports?.first?["pipeline"] as? String == "airkorea-jongno", "\(json)")
        let rows = try FeedlineProcess.run(["query", "--quiet", "--format", "csv", "SELECT 1 AS n"], in: home)
        #expect(rows.status == 0 && rows.out == "n\n1\n", "\(rows)")
        let failed = try FeedlineProcess.run(["run", "no-such", "--quiet"], in: home)
        #expect(failed.status == 78 && failed.err.contains("no pipeline named 'no-such'"), "\(failed)")
    }
}
