import App
import Foundation
import Pipeline
import Testing
import TestSupport

/// The use cases return what happened and print nothing; `Console` is what prints.
@Suite struct UseCaseTests {
    @Test func aFixtureRunReturnsItsReportsAndPrintsNothing() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let runs = PipelineRuns(environment: env.environment)
        let selection = try runs.select(names: ["airkorea-seoul", "careernet-majors"], paths: env.paths())
        #expect(selection.pipelines.map(\.name) == ["airkorea-seoul", "careernet-majors"])
        let finished = Finished()
        let outcome = try await runs.run(selection, mode: .fixtures, paths: env.paths()) { finished.append($0.pipeline) }
        #expect(outcome.reports.map(\.pipeline) == ["airkorea-seoul", "careernet-majors"])
        #expect(outcome.reports.allSatisfy { $0.succeeded && $0.counts.inserted > 0 })
        #expect(finished.names == ["airkorea-seoul", "careernet-majors"], "each run is told as it finishes")
        #expect(outcome.exitStatus == .success)
        #expect(env.out.text.isEmpty && env.err.text.isEmpty, "a use case prints nothing: \(env.out.text)\(env.err.text)")
    }

    @Test func anUnknownPipelineIsARefusalNamingTheKnownOnes() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect {
            try PipelineRuns(environment: env.environment).select(names: ["nope"], paths: env.paths())
        } throws: { error in
            guard let refusal = error as? CommandRefusal else { return false }
            return refusal.status == .configuration && refusal.lines.count == 1
                && refusal.lines[0].hasPrefix("error: no pipeline named 'nope'. Known: airkorea-alerts, airkorea-forecast")
        }
        #expect(env.err.text.isEmpty)
    }

    @Test func aLiveRunWithoutItsKeyIsRefusedBeforeTheDatabaseIsOpened() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let runs = PipelineRuns(environment: env.environment)
        let selection = try runs.select(names: ["airkorea-seoul"], paths: env.paths())
        do {
            _ = try await runs.run(selection, mode: .live, paths: env.paths(), names: ["airkorea-seoul"])
            Issue.record("a live run without AIRKOREA_SERVICE_KEY ran")
        } catch {
            #expect(error.status == .configuration)
            #expect(error.lines.first?.contains("AIRKOREA_SERVICE_KEY") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: env.database.path))
    }

    @Test func statusIsAReportValue() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["airkorea-stations"], source: .fixtures, paths: env.paths()) == .success)
        let report = try StatusReport.read(env.environment, paths: env.paths())
        let stations = try #require(report.rows.first { $0.pipeline == "airkorea-stations" })
        #expect(stations.lastRun?.status == "succeeded")
        #expect(report.rows.first { $0.pipeline == "airkorea-seoul" }?.lastRun == nil)
    }

    final class Finished: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ name: String) { lock.withLock { list.append(name) } }
        var names: [String] { lock.withLock { list } }
    }
}
