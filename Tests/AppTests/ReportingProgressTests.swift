@testable import App
import Foundation
import Logging
import Testing
import TestSupport

/// The terminal progress line: counting the runner's events, redrawing in place, staying out of
/// the way of summaries and warnings.
@Suite struct ReportingProgressTests {
    /// A clock the test moves by hand.
    final class ManualClock: @unchecked Sendable {
        private let lock = NSLock()
        private var now = Date(timeIntervalSince1970: 1_709_704_800)
        func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
        var date: Date { lock.withLock { now } }
    }

    @Test func theLineCountsPagesRowsRateAndShowsAnETAOnlyWithATotal() {
        let clock = ManualClock()
        let terminal = TextSink()
        let progress = TerminalProgress(write: { terminal.append($0) }, clock: { clock.date }, interval: 0)
        progress.observe("fetched page", metadata: ["fetch.items": "1000", "feed.operation": "getCtprvnRltmMesureDnsty"])
        clock.advance(2)
        progress.observe("fetched page", metadata: ["fetch.items": "1000"])
        progress.observe("loaded payload", metadata: ["load.rows": "2000"])
        progress.observe("payload already loaded; skipped", metadata: nil)
        progress.observe("something else", metadata: nil)
        let line = progress.line(at: clock.date)
        #expect(line == "feedline: fetched 2 pages (2,000 items, getCtprvnRltmMesureDnsty) · loaded 1 payload, 2,000 rows, 1 already loaded · 1,000 rows/s · 0:02")
        #expect(!line.contains("ETA"))

        progress.observe("fetched page", metadata: ["fetch.items": "1000", "fetch.total": "12000"])
        clock.advance(1)
        // 3,000 of 12,000 items in 3 s: 9,000 more at 1,000/s.
        #expect(progress.line(at: clock.date).hasSuffix("0:03 · ETA 0:09"))
        #expect(terminal.text.contains("\r\u{1B}[2Kfeedline: fetched 1 page"))
    }

    @Test func logsBelowTheChosenLevelOnlyFeedTheLineAndWarningsClearItFirst() {
        let clock = ManualClock()
        let terminal = TextSink()
        let logs = TextSink()
        let progress = TerminalProgress(write: { terminal.append($0) }, clock: { clock.date }, interval: 0)
        var logger = Logger(label: "t") { _ in CapturingLogHandler(sink: logs) }
        logger.handler = ProgressLogHandler(inner: logger.handler, progress: progress, forwardLevel: .warning)
        logger.info("fetched page", metadata: ["fetch.items": "7"])
        logger.debug("loaded payload", metadata: ["load.rows": "7"])
        #expect(logs.text.isEmpty, "info and debug are below --log-level warning")
        #expect(progress.line(at: clock.date).contains("loaded 1 payload, 7 rows"))

        logger.warning("file could not be loaded", metadata: ["load.file": "x.xml"])
        #expect(logs.text.contains("file could not be loaded"))
        #expect(progress.line(at: clock.date).contains("1 failed"))
        // Cleared before the warning, drawn again after it.
        #expect(terminal.text.hasSuffix("\r\u{1B}[2K\n\r\u{1B}[2Kfeedline: fetched 1 page (7 items) · loaded 1 payload, 7 rows, 1 failed · 0:00"))

        // Setting the level on the logger sets what is forwarded.
        logger.logLevel = .info
        logger.info("fetched page", metadata: ["fetch.items": "1"])
        #expect(logs.text.contains("fetched page"))
    }

    @Test func aRunDrawsProgressAndClearsItBeforeEachSummaryLine() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let terminal = TextSink()
        let progress = TerminalProgress(write: { terminal.append($0.replacingOccurrences(of: "\r\u{1B}[2K", with: "CLEAR ")) },
                                        clock: { Date() }, interval: 0)
        let screen = TextSink()
        var base = env.environment
        base.output = { screen.append("OUT " + $0) }
        let attached = progress.installed(in: base)
        let status = await Console(environment: attached).run(names: ["airkorea-seoul", "airkorea-jongno"], source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.err.text)")
        #expect(terminal.text.contains("feedline: airkorea-seoul · files 1/2 (50%)"))
        #expect(terminal.text.contains("feedline: airkorea-seoul · files 2/2 (100%)"))
        #expect(screen.text.contains("OUT airkorea-seoul"))
        // One write per draw or clear; the last thing done to the terminal is clearing the line.
        let draws = terminal.text.split(separator: "\n").map(String.init)
        #expect(draws.last == "CLEAR ")
        // Counters restart after a summary: the second pipeline counts its own files.
        let firstTwo = try #require(draws.firstIndex { $0.contains("airkorea-seoul · files 2/2") })
        let lastOne = try #require(draws.lastIndex { $0.contains("airkorea-jongno · files 1/2") })
        #expect(firstTwo < lastOne)
        #expect(draws.allSatisfy { $0.hasPrefix("CLEAR ") })
    }

    @Test func attachLeavesTheEnvironmentAloneWhenProgressIsOff() throws {
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["FEEDLINE_PROGRESS"] = "0"
        let attached = TerminalProgress.attach(to: env.environment)
        #expect(!(attached.logger.handler is ProgressLogHandler))
    }
}
