import App
import Foundation
import GRDB
import Logging
import TestSupport

/// A clock tests move by hand (the scheduler's fake sleeper moves it to the wake-up time).
final class FakeClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func set(_ date: Date) { lock.withLock { current = date } }
}

/// A log handler that hands every message to a closure (to act "during" a run).
struct HookLogHandler: LogHandler {
    let hook: @Sendable (String) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let all = self.metadata.merging(event.metadata ?? [:]) { _, b in b }
        hook("\(event.level) \(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
    }
}

extension TestEnvironment {
    /// The test environment with a movable clock (and optionally a log hook).
    func environment(clock: FakeClock, logHook: (@Sendable (String) -> Void)? = nil) -> AppEnvironment {
        var e = environment
        e.clock = { clock.now }
        if let logHook {
            let logs = self.logs
            var logger = Logger(label: "feedline-test") { _ in HookLogHandler { line in logs.append(line); logHook(line) } }
            logger.logLevel = .trace
            e.logger = logger
        }
        return e
    }

    /// Two fixture pipelines with schedules, in `<tmp>/Pipelines`.
    func writeScheduledPipelines(seoul: String = "*/30 * * * *", seoulCatchUp: String = "latest",
                                 stations: String = "0 * * * *", stationsCatchUp: String = "all") throws -> URL {
        _ = try writePipeline("sched-seoul", """
            source: airkorea
            operation: realtime-by-province
            parameters:
              sidoName: 서울
              ver: "1.3"
            schedule: "\(seoul)"
            timezone: Asia/Seoul
            catch_up: \(seoulCatchUp)
            fixtures:
              - airkorea/realtime-province-seoul.xml
            """)
        return try writePipeline("sched-stations", """
            source: airkorea
            operation: stations
            schedule: "\(stations)"
            timezone: Asia/Seoul
            catch_up: \(stationsCatchUp)
            fixtures:
              - airkorea/station-list.xml
            """)
    }

    func rows(_ sql: String) throws -> [[String]] { try db.rows(sql) }

    func count(_ sql: String) throws -> Int { try db.integer(sql) }
}

/// `2024-03-06T06:00:00Z` → Date.
func instant(_ text: String) -> Date {
    let parts = text.dropLast().split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5]))!
}

/// The pid of a process that has exited (spawned `/bin/true`, waited for).
func deadProcessID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}
