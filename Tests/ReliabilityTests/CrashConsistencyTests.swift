import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A seeded pseudo-random source (SplitMix64), so a failing trial can be replayed.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Payload directories big enough that loading them takes a while.
enum LoadData {
    /// `files` realtime pages of `items` items each (distinct stations), as plain XML files.
    static func write(to directory: URL, files: Int, items: Int, dataTime: String = "2024-03-06 15:00") throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for f in 0..<files {
            let page = AirKoreaPages.items(first: f * items, count: items, dataTime: dataTime)
            try AirKoreaPages.xml(page, pageNo: f + 1, numOfRows: items, totalCount: files * items)
                .write(to: directory.appendingPathComponent(String(format: "page-%03d.xml", f)))
        }
    }
}

/// Runs the built `feedline` binary.
struct FeedlineProcess: @unchecked Sendable {
    let process = Process()
    private let sawLoad = Flag()

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private var count = 0
        func set(_ chunk: String) {
            lock.withLock {
                text += chunk
                // Count whole lines only; keep the unfinished tail for the next chunk.
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                text = String(lines.removeLast())
                count += lines.filter { $0.contains("loaded payload") }.count
            }
        }
        var loaded: Int { lock.withLock { count } }
    }

    /// Starts `feedline ARGUMENTS` with debug logging on stderr (to see loads begin).
    init(_ binary: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = binary
        process.arguments = arguments + ["--log-level", "debug"]
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") && !$0.key.hasSuffix("_KEY") }
        env.merge(environment) { _, b in b }
        process.environment = env
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        let flag = sawLoad
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { flag.set(String(decoding: data, as: UTF8.self)) }
        }
        try process.run()
    }

    /// Whether a payload was loaded inside the open transaction (a debug log line).
    var loadStarted: Bool { sawLoad.loaded > 0 }
    /// How many payloads were loaded inside the open transaction so far.
    var payloadsLoaded: Int { sawLoad.loaded }

    func killHard() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        (process.standardError as? Pipe)?.fileHandleForReading.readabilityHandler = nil
    }

    /// Waits for the exit; returns the status.
    func wait(timeout: TimeInterval = 120) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { killHard(); return -1 }
        process.waitUntilExit()
        (process.standardError as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }
}

/// SIGKILL a loading `feedline` at random points, on each store: the database stays intact
/// (SQLite: `PRAGMA integrity_check`), a killed run stays `running` in the ledger with none of its rows
/// visible until the next run notices its process is gone and marks it `abandoned`, and a
/// re-run converges on the uninterrupted result. On PostgreSQL the killed session's transaction
/// is rolled back and its run lock freed by the server.
///
/// Trials default to 20 (seeded); `FEEDLINE_CRASH_TRIALS` and `FEEDLINE_CRASH_SEED` change them
/// (`scripts/crash-soak N` runs many more).
@Suite(.serialized) struct CrashConsistencyTests {
    static let binary = FeedlineBinary.url

    @Test(.enabled(if: binary != nil, "the feedline executable is not built beside the tests (swift build first); crash trials need it"),
          arguments: TestStore.all)
    func sigkillDuringLoadsNeverCorruptsAndReRunsConverge(store: TestStore) async throws {
        try await onOwnThread { try trials(store) }
    }

    /// The trials, on the test's own thread (they block while processes run).
    func trials(_ store: TestStore) throws {
        let binary = try #require(Self.binary)
        let env = ProcessInfo.processInfo.environment
        let trials = Int(env["FEEDLINE_CRASH_TRIALS"] ?? "") ?? 20
        let seed = UInt64(env["FEEDLINE_CRASH_SEED"] ?? "") ?? 20_240_306
        var random = SeededRandom(seed: seed)
        let dir = try TemporaryDirectory("crash")
        defer { dir.remove() }
        let pages = dir.path("pages")
        let files = 6, items = 300
        try LoadData.write(to: pages, files: files, items: items)

        // The uninterrupted result, and how long a whole run takes.
        let reference = try TestDatabase(store, file: dir.path("reference.sqlite"), name: "crashref")
        let started = Date()
        let calibration = try FeedlineProcess(binary, ["replay", pages.path, "--db", reference.argument])
        var loadBegan = started
        while calibration.process.isRunning && !calibration.loadStarted { Thread.sleep(forTimeInterval: 0.002) }
        loadBegan = Date()
        #expect(calibration.wait() == 0)
        let duration = Date().timeIntervalSince(started)
        // From the first payload written inside the transaction to the exit (commit included).
        let loadWindow = max(0.05, Date().timeIntervalSince(loadBegan))
        let expected = try reference.dump(excludingColumns: ["run_id", "fetched_at"])
        #expect(try reference.integer("SELECT count(*) FROM measurement") == files * items)

        var killedMidLoad = 0, killedBeforeRun = 0, finishedFirst = 0
        for trial in 1...trials {
            let label = "\(store) trial \(trial) (seed \(seed))"
            let db = try TestDatabase(store, file: dir.path("trial-\(trial).sqlite"), name: "crash\(trial)")
            let run = try FeedlineProcess(binary, ["replay", pages.path, "--db", db.argument])
            if trial % 2 == 0 {
                // Anywhere in the run: start-up, migrations, staging, loading, commit.
                Thread.sleep(forTimeInterval: random.unit() * duration)
            } else {
                // Inside the load transaction: right after the k-th payload was written, with
                // more payloads still to go. Counting payloads, not seconds, keeps this true
                // however busy the machine is.
                let k = 1 + Int(random.next() % UInt64(files - 1))
                let deadline = Date().addingTimeInterval(60)
                while run.payloadsLoaded < k && run.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            }
            let finished = !run.process.isRunning
            run.killHard()

            var statusesBefore: [String] = []
            if store == .postgres || FileManager.default.fileExists(atPath: db.file.path) {
                #expect(try db.isIntact(), "\(label)")
                // Killed during the first migrations, the tables may not exist yet (nothing was kept).
                let migrated = try db.hasTables(["run", "measurement", "payload"])
                let statuses = migrated ? try db.strings("SELECT status FROM run ORDER BY id") : []
                let rows = migrated ? try db.integer("SELECT count(*) FROM measurement") : 0
                statusesBefore = statuses
                if statuses == ["succeeded"] {
                    finishedFirst += 1
                    #expect(rows == files * items, "\(label): a succeeded run must hold everything")
                } else {
                    #expect(!finished, "\(label): the run ended on its own but did not succeed: \(statuses)")
                    #expect(statuses.allSatisfy { $0 == "running" }, "\(label): a killed run must stay 'running': \(statuses)")
                    #expect(rows == 0, "\(label): \(rows) rows of a killed load are visible")
                    #expect(try !migrated || db.integer("SELECT count(*) FROM payload") == 0, "\(label)")
                    if statuses == ["running"] { killedMidLoad += 1 } else { killedBeforeRun += 1 }
                }
            } else {
                killedBeforeRun += 1
            }

            // Re-running converges on the uninterrupted result; the killed run stays visible, and
            // the re-run, finding its process gone, records it as abandoned.
            #expect(try FeedlineProcess(binary, ["replay", pages.path, "--db", db.argument]).wait() == 0, "\(label)")
            #expect(try db.dump(excludingColumns: ["run_id", "fetched_at"]) == expected, "\(label): re-run did not converge")
            #expect(try db.isIntact(), "\(label)")
            let after = try db.strings("SELECT status FROM run ORDER BY id")
            #expect(after.last == "succeeded", "\(label)")
            #expect(after.dropLast().allSatisfy { $0 == "abandoned" || $0 == "succeeded" }, "\(label): \(after)")
            #expect(after.filter { $0 == "abandoned" }.count == statusesBefore.filter { $0 == "running" }.count, "\(label): \(after)")
            #expect(try db.integer("SELECT count(*) FROM run WHERE status = 'abandoned' AND (abandoned_at IS NULL OR finished_at IS NOT NULL)") == 0, "\(label)")
            try? FileManager.default.removeItem(at: db.file)
        }
        print("\(store) crash trials (seed \(seed)): \(trials) kills: \(killedMidLoad) inside the load transaction, \(killedBeforeRun) before the run began, \(finishedFirst) after it committed; whole run \(String(format: "%.2f", duration)) s, load \(String(format: "%.2f", loadWindow)) s")
        #expect(killedMidLoad >= trials / 4, "only \(killedMidLoad) of \(trials) kills landed inside a load; the test is not exercising crashes")
    }
}
