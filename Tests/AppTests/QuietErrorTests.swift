@testable import App
import Foundation
import Testing
import TestSupport

/// --quiet leaves out progress and summaries, never what went wrong.
@Suite struct QuietErrorTests {
    @Test("--quiet: a failed replay's error still reaches standard error; the summary does not")
    func quietReplayFailureShowsItsError() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let bad = env.dir.path("bad")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: bad.appendingPathComponent("a.xml"))
        try Data("{\"x\": 1}".utf8).write(to: bad.appendingPathComponent("b.json"))

        let out = TextSink(), err = TextSink()
        var environment = env.environment
        environment.output = { out.append($0) }
        environment.errorOutput = { err.append($0) }
        let quiet = GlobalOptions.quieted(environment, summaryOnStandardOutput: true)
        let status = await Console(environment: quiet).replay(inputs: ["bad"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .failure)
        #expect(out.text.isEmpty, "no summary under --quiet: \(out.text)")
        #expect(err.text.contains("error: None of the 2 files could be loaded"), "the run's error: \(err.text)")
        #expect(!err.text.contains("FAILED  run #"), "only the error line, not the summary: \(err.text)")
    }

    @Test("--quiet passes a summary's error and warning lines to standard error and drops the rest")
    func quietKeepsSummaryErrors() throws {
        let out = TextSink(), err = TextSink()
        var env = try TestEnvironment().environment
        env.output = { out.append($0) }
        env.errorOutput = { err.append($0) }
        let quiet = GlobalOptions.quieted(env, summaryOnStandardOutput: true)
        quiet.output("air  [replay]  FAILED  run #3  payloads 0\n  error: database or disk is full\n  warning: check 'x': 2 rows")
        quiet.output("air  [replay]  ok  run #4  payloads 1")
        #expect(out.text.isEmpty)
        #expect(err.text == "error: database or disk is full\nwarning: check 'x': 2 rows")
    }
}
