import App
import Foundation
import GRDB
import Testing
import TestSupport

/// What `run` says when it is done, the diagnostics saved query, and `status` fitting the
/// terminal with the age of the data itself.
@Suite(.serialized) struct StatusAndSummaryTests {
    static let pipelines = ["airkorea-forecast", "airkorea-seoul", "airkorea-stations", "saramin-postings"]

    /// One integer from the database (a synchronous read).
    static func integer(_ database: URL, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?] = []) throws -> Int? {
        let queue = try openForAssertions(database.path)
        return try queue.read { try Int.fetchOne($0, sql: sql, arguments: StatementArguments(arguments)) }
    }

    /// The bundled fixtures of `pipelines` loaded into a temporary database.
    func loaded() async throws -> TestEnvironment {
        let env = try TestEnvironment()
        let status = await env.feedline.run(names: Self.pipelines, source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.err.text)")
        return env
    }

    @Test func theRunSummaryAlignsItsLinesAndSaysWhatHappenedWhereAndWhatNext() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        let lines = env.out.text.split(separator: "\n").map(String.init)
        let runLines = lines.filter { $0.contains("[fixtures]") }
        #expect(runLines.count == 4)
        let columns = Set(runLines.map { line in line.range(of: "[fixtures]").map { line.distance(from: line.startIndex, to: $0.lowerBound) } ?? -1 })
        #expect(columns.count == 1, "the mode column is not aligned: \(runLines)")
        #expect(lines.contains { $0.hasPrefix("total: 4 runs (4 ok) · payloads ") && $0.contains(" · diagnostics ") }, "\(lines)")
        #expect(lines.contains("database: \(env.database.path)"))
        let first = try Self.integer(env.database, "SELECT min(run_id) FROM diagnostic") ?? -1
        #expect(lines.contains { $0.hasSuffix("feedline query diagnostics --param run=\(first)") }, "\(lines)")
    }

    @Test func theDiagnosticsQueryListsRealRowsOfTheRun() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        let run = try #require(try Self.integer(env.database, "SELECT run_id FROM diagnostic GROUP BY run_id ORDER BY count(*) DESC LIMIT 1"))
        let expected = try Self.integer(env.database, "SELECT count(*) FROM diagnostic WHERE run_id = ?", [run]) ?? -1
        let out = TextSink()
        var environment = env.environment
        environment.output = { out.append($0) }
        let request = QueryRequest(source: .saved("diagnostics"), format: .json, parameters: ["run": String(run)],
                                   savedQueries: FixturePaths.repositoryRoot.appendingPathComponent("Data/queries"))
        #expect(Console(environment: environment).query(request, paths: env.paths()) == .success, "\(env.err.text)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [[String: Any]])
        #expect(rows.count == expected && expected > 1)
        // Every row is one diagnostic as recorded: its location and message belong together.
        for row in rows {
            let pair = try Self.integer(env.database, "SELECT count(*) FROM diagnostic WHERE run_id = ? AND location = ? AND message = ?",
                                        [run, row["location"] as? String, row["message"] as? String])
            #expect(pair == 1, "\(row)")
        }
    }

    @Test func statusFitsColumnsAndWidePrintsEverything() async throws {
        var env = try await loaded()
        defer { env.dir.remove() }
        env.variables["COLUMNS"] = "80"
        #expect(env.feedline.status(paths: env.paths(), json: false) == .success)
        let narrow = env.out.text.split(separator: "\n").map(String.init).drop { !$0.hasPrefix("PIPELINE") }
        #expect(!narrow.isEmpty)
        for line in narrow { #expect(line.count <= 80 || line.contains("last error"), "\(line.count) columns: \(line)") }
        #expect(narrow.first?.contains("NEWEST DATA") == true && narrow.first?.contains("LOCK") == false)

        let wideEnv = env
        let before = wideEnv.out.text.count
        #expect(wideEnv.feedline.status(paths: wideEnv.paths(), json: false, wide: true) == .success)
        let wide = String(wideEnv.out.text.dropFirst(before))
        #expect(wide.contains("LOCK") && wide.contains("ROWS new/upd/same") && wide.contains("Asia/Seoul ("), "\(wide)")
    }

    @Test func statusNamesWhatTheNewestDataTimeIs() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        let start = env.out.text.count
        #expect(env.feedline.status(paths: env.paths(), json: true) == .success)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.dropFirst(start).utf8)) as? [String: Any])
        let rows = try #require(json["pipelines"] as? [[String: Any]])
        var kinds: [String: String] = [:]
        for row in rows { kinds[row["pipeline"] as? String ?? ""] = row["newest_data_kind"] as? String }
        #expect(kinds == ["airkorea-forecast": "issued", "airkorea-seoul": "measured", "airkorea-stations": "loaded", "saramin-postings": "modified"]
                || kinds.filter { Self.pipelines.contains($0.key) } == ["airkorea-forecast": "issued", "airkorea-seoul": "measured",
                                                                          "airkorea-stations": "loaded", "saramin-postings": "modified"], "\(kinds)")
        // The forecast's age is that of its newest release, not of the load a moment ago.
        let forecast = try #require(rows.first { $0["pipeline"] as? String == "airkorea-forecast" })
        #expect((forecast["newest_data_age_seconds"] as? Int ?? 0) > 86_400)
    }

    /// A time of day in `line` that no zone follows (`Z`, ` UTC` or an IANA name such as ` Asia/Seoul`).
    static func unzonedTimes(_ line: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\d{2}:\d{2}(?::\d{2})?(?!Z| UTC| [A-Za-z]+/[A-Za-z_]+|:\d|\d)"#)
        return pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)).map { String(line[Range($0.range, in: line)!]) }
    }

    @Test("every time status prints says its zone, at every width")
    func statusTimesCarryTheirZone() async throws {
        #expect(Self.unzonedTimes("2024-03-06 15:15") == ["15:15"])
        #expect(Self.unzonedTimes("03-06 06:00 UTC  03-06 15:15 Asia/Seoul (2024-03-06T06:15:00Z)").isEmpty)
        var env = try await loaded()
        defer { env.dir.remove() }
        for columns in ["200", "120", "100", "80", "60"] {
            env.variables["COLUMNS"] = columns
            let before = env.out.text.count
            #expect(env.feedline.status(paths: env.paths(), json: false) == .success)
            let table = String(env.out.text.dropFirst(before)).split(separator: "\n").map(String.init).drop { !$0.hasPrefix("PIPELINE") }
            let rows = table.dropFirst().filter { Self.pipelines.contains(String($0.prefix { $0 != " " })) }
            #expect(rows.count == Self.pipelines.count, "\(table)")
            for line in table where !line.contains("last error") {
                #expect(Self.unzonedTimes(line).isEmpty, "COLUMNS=\(columns): a time without its zone: \(line)")
            }
            if table.first?.contains("LAST RUN") == true { #expect(rows.allSatisfy { $0.contains(" UTC") }, "\(table)") }
            if table.first?.contains("NEXT RUN") == true { #expect(rows.contains { $0.contains(" Asia/Seoul") }, "\(table)") }
        }
    }
}
