import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `feedline` executable beside the test binary (SwiftPM builds both into one
/// directory), if there is one.
enum FeedlineExecutable {
    static var url: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("feedline"),
            Bundle.main.bundleURL.appendingPathComponent("feedline"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

/// Text a child process writes, collected off its pipe.
final class PipeText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    init(_ pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            if !chunk.isEmpty { self?.lock.withLock { self?.data.append(chunk) } }
        }
    }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// The real process: `feedline schedule` in its own process, stopped with a real SIGTERM.
@Suite("Schedule: the feedline schedule process")
struct ScheduleProcessTests {
    /// Polls `condition` every 20 ms until it holds or `seconds` pass.
    func waitFor(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    @Test("SIGTERM stops `feedline schedule` with exit 0 and says so", .enabled(if: FeedlineExecutable.url != nil))
    func sigtermStopsTheProcess() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "0 0 1 1 *", stations: "0 0 1 1 *")
        let process = Process()
        process.executableURL = FeedlineExecutable.url!
        process.arguments = ["schedule", "--from-fixtures", "--db", env.database.path, "--pipelines-dir", pipelines.path,
                             "--fixtures", FixturePaths.fixtures.path]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") }
        process.currentDirectoryURL = env.dir.url
        let stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let stdout = PipeText(stdoutPipe), stderr = PipeText(stderrPipe)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // The banner means the signal sources are in place and the scheduler is asleep (until next 1 January).
        let started = waitFor(90) { stdout.text.contains("stop with SIGTERM") || !process.isRunning }
        #expect(started && process.isRunning, "no banner: stdout \(stdout.text) stderr \(stderr.text)")
        #expect(stdout.text.contains("feedline schedule: 2 pipelines (fixtures)"))
        kill(process.processIdentifier, SIGTERM)
        let exited = waitFor(60) { !process.isRunning }
        #expect(exited, "still running 60 s after SIGTERM: stdout \(stdout.text) stderr \(stderr.text)")
        guard exited else { return }
        process.waitUntilExit()
        _ = waitFor(5) { stdout.text.contains("stopped") }

        #expect(process.terminationReason == .exit, "killed by the signal instead of stopping")
        #expect(process.terminationStatus == 0)
        #expect(stdout.text.contains("feedline schedule: stopped on SIGTERM after 0 runs."))
        #expect(stderr.text.contains("feedline schedule: SIGTERM received; finishing the run in hand, then stopping."))
    }
}
