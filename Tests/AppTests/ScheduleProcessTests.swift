import Foundation
import GRDB
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

/// What a child process writes to a file (standard output or error), read back whenever asked.
/// A file rather than a pipe: a pipe's `readabilityHandler` is a libdispatch source, and closing
/// its descriptor while the source is registered is a crash waiting to happen in a test process
/// that runs many of them at once.
final class OutputFile: @unchecked Sendable {
    let url: URL
    let handle: FileHandle
    init(_ directory: URL, _ name: String) throws {
        url = directory.appendingPathComponent(name)
        FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
    }
    var text: String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
    deinit { try? handle.close() }
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
        let stdout = try OutputFile(env.dir.url, "stdout.txt"), stderr = try OutputFile(env.dir.url, "stderr.txt")
        process.standardOutput = stdout.handle
        process.standardError = stderr.handle
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

    /// `feedline schedule` started in its own process, output collected.
    struct Scheduler {
        let process = Process()
        let stdout: OutputFile
        let stderr: OutputFile
        var pid: Int32 { process.processIdentifier }

        init(_ env: TestEnvironment, pipelines: URL, names: [String] = [], variables: [String: String] = [:]) throws {
            process.executableURL = FeedlineExecutable.url!
            process.arguments = ["schedule"] + names + ["--from-fixtures", "--db", env.database.path, "--pipelines-dir", pipelines.path,
                                                        "--fixtures", FixturePaths.fixtures.path]
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") }.merging(variables) { _, b in b }
            process.currentDirectoryURL = env.dir.url
            stdout = try OutputFile(env.dir.url, "stdout.txt")
            stderr = try OutputFile(env.dir.url, "stderr.txt")
            process.standardOutput = stdout.handle
            process.standardError = stderr.handle
            try process.run()
        }

        /// The process's threads, and the processes it started that are still running.
        var threads: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0 }
        var children: [Int32] {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
        var output: String { "stdout: \(stdout.text) stderr: \(stderr.text)" }

        func kill(_ signal: Int32 = SIGKILL) { if process.isRunning { Glibc.kill(pid, signal) } }
    }

    /// Sends SIGTERM and waits for the scheduler to exit and say so; false (recorded) if it did not exit.
    func stop(_ scheduler: Scheduler) -> Bool {
        scheduler.kill(SIGTERM)
        let exited = waitFor(60) { !scheduler.process.isRunning }
        #expect(exited, "still running 60 s after SIGTERM: \(scheduler.output)")
        guard exited else { return false }
        scheduler.process.waitUntilExit()
        _ = waitFor(5) { scheduler.stdout.text.contains("stopped") }
        return true
    }

    /// A scheduler of a pipeline due every minute, once its scheduling process has started: that
    /// process stays (the next slot is always under a minute away).
    func schedulerWithACycle(_ env: TestEnvironment) throws -> Scheduler {
        let pipelines = try env.writeScheduledPipelines(seoul: "* * * * *", stations: "0 0 1 1 *")
        let scheduler = try Scheduler(env, pipelines: pipelines, names: ["sched-seoul"])
        let started = waitFor(90) { (scheduler.stdout.text.contains("stop with SIGTERM") && !scheduler.children.isEmpty) || !scheduler.process.isRunning }
        #expect(started && scheduler.process.isRunning, "no scheduling process: \(scheduler.output)")
        return scheduler
    }

    @Test("between runs the scheduler waits in one thread with no database open, and counts the runs of every cycle",
          .enabled(if: FeedlineExecutable.url != nil))
    func waitsInOneThreadBetweenRuns() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "0 0 1 1 *", stations: "0 0 1 1 *")
        // A run of sched-seoul two New Years ago: the scheduler catches up this year's slot at once.
        let status = await env.feedline.run(names: ["sched-seoul"], source: .fixtures, paths: env.paths(pipelines: pipelines))
        #expect(status == .success)
        let queue = try DatabaseQueue(path: env.database.path)
        try await queue.write { try $0.execute(sql: "UPDATE run SET started_at = ?", arguments: [iso8601Years(ago: 2)]) }
        try queue.close()

        let scheduler = try Scheduler(env, pipelines: pipelines)
        defer { scheduler.kill() }
        // The caught-up run prints its summary; then the cycle reports back and exits.
        let waiting = waitFor(90) { (scheduler.stdout.text.contains("sched-seoul") && scheduler.stdout.text.contains("run #2")
                                     && scheduler.children.isEmpty && scheduler.threads == 1) || !scheduler.process.isRunning }
        #expect(waiting && scheduler.process.isRunning, "not waiting in one thread (threads \(scheduler.threads), children \(scheduler.children)): \(scheduler.output)")
        #expect(try env.count("SELECT count(*) FROM run WHERE pipeline = 'sched-seoul'") == 2)
        // No database file is held open by the waiting process.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(scheduler.pid)/fd")) ?? []
        let held = open.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(scheduler.pid)/fd/\($0)") }
        #expect(!held.contains { $0.hasPrefix(env.database.path) }, "held open: \(held)")

        guard stop(scheduler) else { return }
        #expect(scheduler.process.terminationReason == .exit && scheduler.process.terminationStatus == 0)
        #expect(scheduler.stdout.text.components(separatedBy: "stop with SIGTERM or Ctrl-C.").count == 2, "the banner once: \(scheduler.output)")
        #expect(scheduler.stdout.text.contains("feedline schedule: stopped on SIGTERM after 1 run."))
    }

    @Test("SIGTERM reaches a scheduling process that is waiting for a slot due within a minute, and both stop",
          .enabled(if: FeedlineExecutable.url != nil))
    func sigtermIsPassedToARunningCycle() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let scheduler = try schedulerWithACycle(env)
        defer { scheduler.kill() }
        guard let cycle = scheduler.children.first else { return }

        guard stop(scheduler) else { return }
        #expect(scheduler.process.terminationReason == .exit && scheduler.process.terminationStatus == 0, "\(scheduler.output)")
        #expect(Glibc.kill(cycle, 0) != 0, "the scheduling process \(cycle) outlived its supervisor")
        #expect(scheduler.stderr.text.contains("feedline schedule: SIGTERM received; finishing the run in hand, then stopping."))
        #expect(scheduler.stdout.text.contains("feedline schedule: stopped on SIGTERM after"), "\(scheduler.output)")
    }

    @Test("a scheduling process whose supervisor is killed (SIGKILL) stops on its own",
          .enabled(if: FeedlineExecutable.url != nil))
    func aCycleStopsWhenItsSupervisorDies() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let scheduler = try schedulerWithACycle(env)
        defer { scheduler.kill() }
        guard let cycle = scheduler.children.first else { return }
        defer { Glibc.kill(cycle, SIGKILL) }
        // Longer than an idle worker thread lives: the request to be told of the supervisor's
        // death must not go with the thread that made it.
        Thread.sleep(forTimeInterval: 7)
        scheduler.kill(SIGKILL)
        // Its parent is gone: the orphan is reparented, so poll the pid itself.
        let gone = waitFor(60) { Glibc.kill(cycle, 0) != 0 || (try? String(contentsOfFile: "/proc/\(cycle)/stat", encoding: .utf8))?.split(separator: " ")[2] == "Z" }
        #expect(gone, "the scheduling process \(cycle) still runs after its supervisor was killed: \(scheduler.output)")
        _ = waitFor(5) { scheduler.stderr.text.contains("SIGTERM received") }
        #expect(scheduler.stderr.text.contains("feedline schedule: SIGTERM received; finishing the run in hand, then stopping."), "\(scheduler.output)")
    }

    @Test("a report larger than a pipe holds (1,500 pipelines' cursors) reaches the waiting process",
          .enabled(if: FeedlineExecutable.url != nil))
    func aLargeReportDoesNotBlockTheCycle() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        var pipelines: URL?
        for number in 1...1_500 {
            // About 60 bytes of report per pipeline: 90 KB against a pipe's 64 KiB.
            pipelines = try env.writePipeline("stations-pipeline-with-a-name-long-enough-\(number)", """
                source: airkorea
                operation: stations
                schedule: "0 0 1 1 *"
                fixtures:
                  - airkorea/station-list.xml
                """)
        }
        let scheduler = try Scheduler(env, pipelines: pipelines!)
        defer { scheduler.kill() }
        let waiting = waitFor(120) { (scheduler.stdout.text.contains("stop with SIGTERM") && scheduler.children.isEmpty && scheduler.threads == 1)
                                     || !scheduler.process.isRunning }
        #expect(waiting && scheduler.process.isRunning, "the scheduling process did not hand back (threads \(scheduler.threads), children \(scheduler.children)): \(scheduler.stderr.text)")
        guard stop(scheduler) else { return }
        #expect(scheduler.process.terminationStatus == 0, "\(scheduler.stderr.text)")
        #expect(scheduler.stdout.text.contains("feedline schedule: stopped on SIGTERM after 0 runs."))
    }

    @Test("a scheduling process that fails (unknown pipeline) ends the scheduler with its exit status and message",
          .enabled(if: FeedlineExecutable.url != nil))
    func aFailingCycleEndsTheScheduler() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines()
        let scheduler = try Scheduler(env, pipelines: pipelines, names: ["no-such-pipeline"])
        defer { scheduler.kill() }
        let exited = waitFor(90) { !scheduler.process.isRunning }
        #expect(exited, "still running: \(scheduler.output)")
        guard exited else { return }
        scheduler.process.waitUntilExit()
        _ = waitFor(5) { scheduler.stderr.text.contains("no pipeline named") }
        #expect(scheduler.process.terminationStatus == 78, "\(scheduler.output)")
        #expect(scheduler.stderr.text.contains("error: no pipeline named 'no-such-pipeline'"), "\(scheduler.output)")
    }

    @Test("FEEDLINE_SCHEDULE_PROCESS=single keeps the scheduler in one process, which still stops on SIGTERM",
          .enabled(if: FeedlineExecutable.url != nil))
    func singleProcessMode() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "0 0 1 1 *", stations: "0 0 1 1 *")
        let scheduler = try Scheduler(env, pipelines: pipelines, variables: ["FEEDLINE_SCHEDULE_PROCESS": "single"])
        defer { scheduler.kill() }
        #expect(waitFor(90) { scheduler.stdout.text.contains("stop with SIGTERM") || !scheduler.process.isRunning }, "\(scheduler.output)")
        // The loop itself sleeps: the concurrency runtime's threads are there, no process was started.
        #expect(scheduler.children.isEmpty && scheduler.threads > 1, "threads \(scheduler.threads), children \(scheduler.children)")
        guard stop(scheduler) else { return }
        #expect(scheduler.process.terminationStatus == 0)
        #expect(scheduler.stdout.text.contains("feedline schedule: stopped on SIGTERM after 0 runs."))
    }
}

/// `2024-06-01T00:00:00Z`, `years` before now (mid-year, so that the New Year slot after it is in the past).
func iso8601Years(ago years: Int) -> String {
    let year = Calendar(identifier: .gregorian).component(.year, from: Date()) - years
    return "\(year)-06-01T00:00:00Z"
}
