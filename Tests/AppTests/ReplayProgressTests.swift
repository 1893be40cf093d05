@testable import App
import Foundation
import Testing
import TestSupport

/// The progress line of a load whose file count is known: pipeline · files k/N (p%) · rows ·
/// rate · elapsed · ETA.
@Suite struct ReplayProgressTests {
    final class ManualClock: @unchecked Sendable {
        private let lock = NSLock()
        private var now = Date(timeIntervalSince1970: 1_709_704_800)
        func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
        var date: Date { lock.withLock { now } }
    }

    @Test func theLineNamesThePipelineAndCountsFilesOfTheTotalWithAnETA() {
        let clock = ManualClock()
        let progress = TerminalProgress(write: { _ in }, clock: { clock.date }, interval: 0)
        progress.observe("run started", metadata: ["run.pipeline": "replay"])
        progress.observe("payloads staged", metadata: ["load.total": "108"])
        for _ in 0..<54 { progress.observe("loaded payload", metadata: ["load.rows": "960"]) }
        clock.advance(2)
        // 54 of 108 files in 2 s: 54 more at the same pace take 2 s.
        #expect(progress.line(at: clock.date) == "feedline: replay · files 54/108 (50%) · 51,840 rows · 25,920 rows/s · 0:02 · ETA 0:02")

        progress.observe("payload already loaded; skipped", metadata: nil)
        progress.observe("file could not be loaded", metadata: nil)
        #expect(progress.line(at: clock.date).contains("files 56/108 (51%, 1 already loaded, 1 failed)"))
        for _ in 0..<52 { progress.observe("loaded payload", metadata: ["load.rows": "0"]) }
        #expect(!progress.line(at: clock.date).contains("ETA"), "nothing left")
    }

    @Test func aReplayDrawsItsNameAndFileCount() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let terminal = TextSink()
        let progress = TerminalProgress(write: { terminal.append($0) }, clock: { Date() }, interval: 0)
        let attached = progress.installed(in: env.environment)
        let fixtures = FixturePaths.fixtures.appendingPathComponent("airkorea")
        let files = Console.payloadFiles(under: fixtures).filter { $0.lastPathComponent.hasPrefix("realtime-province") }
        #expect(files.count >= 2)
        _ = await Console(environment: attached).replay(inputs: files.map(\.path), sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(terminal.text.contains("feedline: replay · files 1/\(files.count) ("), "\(terminal.text)")
        #expect(terminal.text.contains("feedline: replay · files \(files.count)/\(files.count) (100%"), "\(terminal.text)")
    }
}
