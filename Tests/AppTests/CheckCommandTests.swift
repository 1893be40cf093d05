@testable import App
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Pipeline
import Storage
import Testing
import TestSupport

/// `feedline check` and `feedline snapshot` on the bundled pipelines and on copies of their
/// fixtures, and the problems `feedline pipelines` finds in `checks:` and `snapshots:`.
@Suite(.serialized) struct CheckCommandTests {
    /// A copy of the repository's fixtures (snapshots included) inside `env`'s directory.
    func copiedFixtures(_ env: TestEnvironment) throws -> URL {
        let copy = env.dir.path("fixtures")
        try FileManager.default.copyItem(at: FixturePaths.fixtures, to: copy)
        return copy
    }

    func paths(_ env: TestEnvironment, fixtures: URL, pipelines: URL? = nil) -> Paths {
        Paths(environment: env.environment, database: env.database.path,
              pipelines: (pipelines ?? FixturePaths.repositoryRoot.appendingPathComponent("Pipelines")).path,
              fixtures: fixtures.path)
    }

    @Test func theBundledPipelinesPassTheirChecksAndSnapshots() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let junit = env.dir.path("reports/checks.xml")
        let status = await env.feedline.check(names: [], paths: env.paths(), junit: junit.path, makeDirectories: true)
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        let pipelines = try FileManager.default.contentsOfDirectory(atPath: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines").path)
            .filter { $0.hasSuffix(".yaml") }
        // Every bundled pipeline declares checks and snapshots, and each was checked.
        #expect(!env.err.text.contains("no checks or snapshots declared"),
                "every bundled pipeline declares example checks and snapshots (README: Testing your pipelines): \(env.err.text)")
        #expect(env.out.text.contains("check: \(pipelines.count) pipelines"), "\(env.out.text)")
        #expect(env.out.text.contains("— passed"))
        #expect(!env.out.text.contains("FAIL"))
        // The user's database was never created: the fixtures went to temporary ones.
        #expect(!FileManager.default.fileExists(atPath: env.database.path))

        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"feedline check\""))
        #expect(xml.contains("failures=\"0\" errors=\"0\""))
        #expect(!xml.contains("<failure") && !xml.contains("<error"))
        #expect(xml.components(separatedBy: "<testsuite ").count - 1 == pipelines.count)
        #expect(xml.contains("classname=\"airkorea-seoul.snapshots\" name=\"measurement (airkorea/snapshots/airkorea-seoul.measurement.csv)\""))
        // The JUnit file is well-formed XML.
        let parsed = try XMLDocument(data: Data(xml.utf8))
        #expect(parsed.rootElement()?.name == "testsuites")
    }

    @Test func oneAlteredFixtureValueFailsWithARowLevelDiffAndOneFailingTestcase() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = try copiedFixtures(env)
        let seoul = fixtures.appendingPathComponent("airkorea/realtime-province-seoul.xml")
        let original = try String(contentsOf: seoul, encoding: .utf8)
        #expect(original.components(separatedBy: "<pm10Value>28</pm10Value>").count == 2, "the value to alter is no longer unique")
        try original.replacingOccurrences(of: "<pm10Value>28</pm10Value>", with: "<pm10Value>29</pm10Value>")
            .write(to: seoul, atomically: true, encoding: .utf8)

        let junit = env.dir.path("checks.xml")
        let status = await env.feedline.check(names: ["airkorea-seoul"], paths: paths(env, fixtures: fixtures), junit: junit.path)
        #expect(status == .failure)
        let out = env.out.text
        // Table, key and column of the changed cell, and the values before and after.
        #expect(out.contains("changed  measurement (station_name=강동구, observed_at=2023-05-13T16:00:00Z) pm10: 28.0 → 29.0"), "\(out)")
        #expect(out.contains("FAIL  snapshot measurement"))
        #expect(out.contains("1 cell changed"))
        #expect(out.contains("— FAILED"))

        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<failure ").count - 1 == 1, "\(xml)")
        #expect(xml.contains("failures=\"1\" errors=\"0\""))
        let failing = try #require(xml.range(of: "<failure ")).lowerBound
        let testcase = try #require(xml.range(of: "<testcase ", options: .backwards, range: xml.startIndex..<failing))
        #expect(xml[testcase.lowerBound..<failing].contains("classname=\"airkorea-seoul.snapshots\" name=\"measurement"))
        #expect(xml.contains("pm10: 28.0 → 29.0"))
        _ = try XMLDocument(data: Data(xml.utf8))

        // --json says the same for scripts.
        let jsonEnv = try TestEnvironment()
        defer { jsonEnv.dir.remove() }
        #expect(await jsonEnv.feedline.check(names: ["airkorea-seoul"], paths: paths(jsonEnv, fixtures: fixtures), json: true) == .failure)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(jsonEnv.out.text.utf8)) as? [String: Any])
        #expect(document["passed"] as? Bool == false)
        let pipeline = try #require((document["pipelines"] as? [[String: Any]])?.first)
        let snapshot = try #require((pipeline["snapshots"] as? [[String: Any]])?.first)
        #expect(snapshot["status"] as? String == "differs" && snapshot["changed_cells"] as? Int == 1)
        let difference = try #require((snapshot["differences"] as? [[String: Any]])?.first)
        #expect(difference["column"] as? String == "pm10" && difference["expected"] as? String == "28.0" && difference["actual"] as? String == "29.0")
        #expect((difference["key"] as? [String: String]) == ["station_name": "강동구", "observed_at": "2023-05-13T16:00:00Z"])
    }

    @Test func aSnapshotIsWrittenThenUnchangedThenUpdatedWithItsDifferences() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = try copiedFixtures(env)
        let file = fixtures.appendingPathComponent("airkorea/snapshots/airkorea-nearby.nearby_station.csv")
        try FileManager.default.removeItem(at: file)

        #expect(await env.feedline.check(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .failure)
        #expect(env.out.text.contains("no snapshot file yet; write it with `feedline snapshot airkorea-nearby`"), "\(env.out.text)")

        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .success)
        #expect(env.out.text.contains("created   "), "\(env.out.text)")
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(written == (try String(contentsOf: FixturePaths.fixtures.appendingPathComponent("airkorea/snapshots/airkorea-nearby.nearby_station.csv"), encoding: .utf8)))
        #expect(written.hasPrefix("tm_x,tm_y,station_name,address,distance_km\n"))

        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .success)
        #expect(env.out.text.contains("unchanged "))

        // A recorded value that no longer matches: snapshot says how the file changes.
        try written.replacingOccurrences(of: ",1.1\n", with: ",1.5\n").write(to: file, atomically: true, encoding: .utf8)
        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .success)
        #expect(env.out.text.contains("updated   "))
        #expect(env.out.text.contains("distance_km: 1.5 → 1.1"), "\(env.out.text)")
        #expect(try String(contentsOf: file, encoding: .utf8) == written)
        #expect(!FileManager.default.fileExists(atPath: env.database.path))
    }

    @Test func aSnapshotFileNoPipelineDeclaresIsNamedNotIgnored() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = try copiedFixtures(env)
        try Data("a\n1\n".utf8).write(to: fixtures.appendingPathComponent("saramin/snapshots/saramin-postings.job_posting_keyword.csv"))
        #expect(await env.feedline.check(names: [], paths: paths(env, fixtures: fixtures)) == .success, "\(env.out.text)")
        #expect(env.err.text.contains("warning: fixtures/saramin/snapshots/saramin-postings.job_posting_keyword.csv is no pipeline's snapshot"), "\(env.err.text)")
        #expect(env.err.text.components(separatedBy: "warning:").count == 2, "only the stray file: \(env.err.text)")
    }

    @Test func badCheckDefinitionsAreProblemsNamingTheFileAndTheCheck() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("bad-checks", """
            source: airkorea
            operation: realtime-by-province
            parameters:
              sidoName: 서울
            fixtures:
              - airkorea/realtime-province-seoul.xml
            checks:
              - check: not_nul
                table: measurement
                columns: pm10
              - check: not_null
                table: measurment
                columns: pm10
              - check: accepted_range
                name: pm10-range
                table: measurement
                column: pm1O
                max: 1000
              - check: sql
                name: tidy-up
                sql: delete from measurement where pm10 is null
              - check: sql
                name: two-statements
                sql: select 1; select 2
              - check: unique
                table: measurement
                columns: [station_name]
                severity: fatal
                colour: red
            snapshots:
              - table: measurement
                exclude: [station_name]
                file: ../outside.csv
            """)
        let status = env.feedline.listPipelines(paths: env.paths(pipelines: pipelines))
        #expect(status == .configuration)
        let out = env.out.text
        let file = "Pipelines/bad-checks.yaml"
        func row(_ field: String, _ fragments: String...) -> Bool {
            out.split(separator: "\n").contains { line in
                line.hasPrefix(file) && line.contains(" \(field) ") && fragments.allSatisfy { line.contains($0) }
            }
        }
        #expect(row("checks[0].check", "check 'not_nul(measurement.pm10)'", "'not_nul' is not a known check", "did you mean 'not_null'?"), "\(out)")
        #expect(row("checks[1].table", "check 'not_null(measurment.pm10)'", "no table or view 'measurment'", "did you mean 'measurement'?"), "\(out)")
        #expect(row("checks[2].column", "check 'pm10-range'", "measurement has no column 'pm1O'", "did you mean 'pm10'?"), "\(out)")
        #expect(row("checks[3].sql", "check 'tidy-up'", "read-only", "DELETE statement would change the database"), "\(out)")
        #expect(row("checks[4].sql", "check 'two-statements'", "only one SQL statement"), "\(out)")
        #expect(row("checks[5].severity", "check 'unique(measurement.station_name)'", "must be warn or error, not 'fatal'"), "\(out)")
        #expect(row("checks[5].colour", "'colour' is not a field of a unique check"), "\(out)")
        #expect(row("snapshots[0].exclude", "station_name is a key column"), "\(out)")
        #expect(row("snapshots[0].file", "must be a path inside the fixtures directory"), "\(out)")
        #expect(env.err.text.contains("error: 1 pipeline file is invalid (9 problems): \(file)."), "\(env.err.text)")

        // Nothing runs from an invalid file: `run` and `check` refuse it by name.
        let runEnv = try TestEnvironment()
        defer { runEnv.dir.remove() }
        let refused = try runEnv.writePipeline("bad-checks", try String(contentsOf: pipelines.appendingPathComponent("bad-checks.yaml"), encoding: .utf8))
        #expect(await runEnv.feedline.check(names: ["bad-checks"], paths: runEnv.paths(pipelines: refused)) == .configuration)
        #expect(runEnv.err.text.contains("Pipelines/bad-checks.yaml: field 'checks[0].check': check 'not_nul(measurement.pm10)'"), "\(runEnv.err.text)")
        #expect(await runEnv.feedline.run(names: ["bad-checks"], source: .fixtures, paths: runEnv.paths(pipelines: refused)) == .configuration)
        #expect(!FileManager.default.fileExists(atPath: runEnv.database.path))
    }

    @Test func theShapeOfAChecksListIsCheckedFieldByField() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("shapes", """
            source: airkorea
            operation: stations
            checks:
              - just a string
              - check: [not_null, unique]
                table: station
              - check: row_count
                table: station
              - check: completeness
                table: station
                entity: name
                time: name
                min: 1.5
              - check: not_null
                table: station
                columns: name
                where: "no_such_column = 1"
            snapshots: station
            """)
        #expect(env.feedline.listPipelines(paths: env.paths(pipelines: pipelines)) == .configuration)
        let out = env.out.text
        #expect(out.contains("checks[0]") && out.contains("must be a mapping (check: not_null, table: …, columns: […])"), "\(out)")
        #expect(out.contains("checks[1].check") && out.contains("must be one check name"), "\(out)")
        #expect(out.contains("checks[2].min") && out.contains("a row_count check needs min, max or both"), "\(out)")
        #expect(out.contains("checks[3].min") && out.contains("must be a share of the expected station-hours"), "\(out)")
        #expect(out.contains("checks[4].where") && out.contains("is not a condition on the rows of station") && out.contains("no_such_column"), "\(out)")
        #expect(out.contains("snapshots ") && out.contains("must be a list of mappings"), "\(out)")
    }

    @Test func snapshotFilesKeepNullApartFromTheEmptyStringAndReadBackAsWritten() throws {
        let spec = SnapshotSpec(table: "t", columns: ["k", "a", "b"], key: ["k"], filter: nil, format: .csv, file: "x/t.csv")
        let rows: [[SQLValue]] = [
            [.integer(1), .null, .text("")],
            [.integer(2), .text("comma, \"quote\"\nnew line"), .real(12.5)],
            [.integer(3), .text(" padded "), .real(3)],
        ]
        for format in SnapshotSpec.Format.allCases {
            var typed = spec
            typed.format = format
            let text = SnapshotFile.render(typed, rows: rows)
            let table = try SnapshotFile.parse(text, format: format)
            #expect(table.columns == ["k", "a", "b"])
            #expect(table.rows == [["1", nil, ""], ["2", "comma, \"quote\"\nnew line", "12.5"], ["3", " padded ", "3.0"]], "\(format): \(text)")
        }
        #expect(SnapshotFile.render(spec, rows: rows).hasPrefix("k,a,b\n1,,\"\"\n"))

        // A keyed diff: a changed cell, a removed row and an added one, each with its key.
        let expected = SnapshotFile.Table(columns: ["k", "v"], rows: [["1", "a"], ["2", "b"], ["3", nil]])
        let actual = SnapshotFile.Table(columns: ["k", "v"], rows: [["1", "a"], ["3", ""], ["4", "d"]])
        let (notes, differences) = SnapshotFile.diff(expected: expected, actual: actual, key: ["k"])
        #expect(notes.isEmpty)
        #expect(differences.map { SnapshotFile.line($0, table: "t") } == [
            "removed  t (k=2): a row of the snapshot is no longer produced",
            "changed  t (k=3) v: NULL → \"\"",
            "added    t (k=4): a row the snapshot does not have",
        ])
        #expect(throws: SnapshotFile.ParseError.self) { try SnapshotFile.parse("a,b\n1\n", format: .csv) }
    }

    @Test func aMaxAgeBeyondAHundredYearsIsRefusedNotComputed() {
        #expect(CheckDefinitions.duration("1h30m") == 5400)
        #expect(CheckDefinitions.duration("36500d").map { Int($0) } == 3_153_600_000)
        #expect(CheckDefinitions.duration("36501d") == nil)
        #expect(CheckDefinitions.duration("99999999999999999999d") == nil)
    }
}
