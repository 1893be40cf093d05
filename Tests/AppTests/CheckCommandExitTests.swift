@testable import App
import Foundation
import Pipeline
import Testing
import TestSupport

/// `feedline check` itself (not only `run`) fails when a check of severity `error` fails, and
/// passes when only a `warn` check fails.
@Suite(.serialized) struct CheckCommandExitTests {
    /// A pipeline over the bundled 종로구 fixture with one check of `severity` that the fixture's
    /// rows break (at most one row per table, and there are many).
    func pipelines(_ env: TestEnvironment, severity: String) throws -> URL {
        try env.writePipeline("jongno-strict", """
            source: airkorea
            operation: realtime-by-station
            parameters:
              stationName: 종로구
              dataTerm: DAILY
              ver: "1.4"
            format: xml
            fixtures:
              - airkorea/realtime-station-v14.xml
            checks:
              - check: row_count
                name: at-most-one-row
                table: measurement
                min: 1
                max: 1
                severity: \(severity)
            """)
    }

    func paths(_ env: TestEnvironment, pipelines: URL) -> Paths {
        Paths(environment: env.environment, database: env.database.path, pipelines: pipelines.path, fixtures: FixturePaths.fixtures.path)
    }

    @Test("a failing error-severity check makes `feedline check` exit 1, in text, --json and --junit")
    func failingErrorCheckFailsTheCommand() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try pipelines(env, severity: "error")
        #expect(await env.feedline.check(names: ["jongno-strict"], paths: paths(env, pipelines: directory)) == .failure, "\(env.out.text)\n\(env.err.text)")
        #expect(env.out.text.contains("at-most-one-row"), "\(env.out.text)")
        #expect(await env.feedline.check(names: ["jongno-strict"], paths: paths(env, pipelines: directory), json: true) == .failure)
        let junit = env.dir.path("checks.xml")
        #expect(await env.feedline.check(names: [], paths: paths(env, pipelines: directory), junit: junit.path) == .failure)
        #expect(try String(contentsOf: junit, encoding: .utf8).contains("<failure"))
    }

    @Test("a failing warn-severity check is reported but `feedline check` exits 0")
    func failingWarnCheckPasses() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try pipelines(env, severity: "warn")
        #expect(await env.feedline.check(names: ["jongno-strict"], paths: paths(env, pipelines: directory)) == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(env.out.text.contains("at-most-one-row"), "\(env.out.text)")
    }
}
