import App
import Dispatch
import Foundation
import Pipeline
import Storage
import Testing
import TestSupport

/// Run locks in the database: one run per pipeline per database, whoever starts it.
@Suite("Schedule: run locks")
struct ScheduleLockTests {
    let me = RunLockSettings.live
    var staleness: RunLockStaleness { RunLockStaleness(host: me.host, heartbeatTimeout: 900, isProcessAlive: RunLockSettings.processIsAlive) }
    let now = instant("2024-03-06T06:00:00Z")

    @Test("eight stores racing for one lock: exactly one acquires it, the others see the winner")
    func concurrentAcquisitionsOneWins() throws {
        let dir = try TemporaryDirectory("locks")
        defer { dir.remove() }
        let path = dir.path("feedline.sqlite").path
        _ = try SQLiteStore(path: path, schema: .feedline)  // migrate once
        let stores = try (0..<8).map { _ in try SQLiteStore(path: path, schema: .feedline) }  // separate connections, like separate processes
        let outcomes = OutcomeList()
        let staleness = self.staleness, pid = me.pid, now = self.now
        DispatchQueue.concurrentPerform(iterations: stores.count) { i in
            do {
                outcomes.append(i, try stores[i].acquireRunLock(pipeline: "airkorea-seoul", holder: "holder-\(i)", pid: pid, now: now, staleness: staleness))
            } catch {
                outcomes.fail("\(error)")
            }
        }
        #expect(outcomes.errors.isEmpty, "\(outcomes.errors)")
        let all = outcomes.values
        #expect(all.count == 8)
        let winners = all.filter { if case .acquired = $0.1 { return true } else { return false } }
        #expect(winners.count == 1)
        let winner = try #require(winners.first)
        for (_, outcome) in all where outcome != winner.1 {
            guard case .held(let by) = outcome else { Issue.record("expected held, got \(outcome)"); continue }
            #expect(by.holder == "holder-\(winner.0)")
            #expect(by.pid == pid)
        }
        #expect(try stores[0].runLocks().map(\.holder) == ["holder-\(winner.0)"])
    }

    @Test("a lock left by a dead process on this host is taken over")
    func deadPidIsTakenOver() throws {
        let dir = try TemporaryDirectory("locks")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("feedline.sqlite").path, schema: .feedline)
        let dead = try deadProcessID()
        #expect(!RunLockSettings.processIsAlive(dead))
        let assumeAlive = RunLockStaleness(host: me.host, heartbeatTimeout: 900, isProcessAlive: { _ in true })
        #expect(try store.acquireRunLock(pipeline: "p", holder: "crashed", pid: dead, now: now, staleness: assumeAlive) == .acquired(tookOverFrom: nil))

        let outcome = try store.acquireRunLock(pipeline: "p", holder: "new", pid: me.pid, now: now.addingTimeInterval(5), staleness: staleness)
        guard case .acquired(let previous) = outcome else { Issue.record("not taken over: \(outcome)"); return }
        #expect(previous?.holder == "crashed")
        #expect(previous?.pid == dead)
        #expect(try store.runLocks().map(\.holder) == ["new"])
    }

    @Test("a live holder keeps its lock; a holder on another host is stale only when its heartbeat is old")
    func liveAndRemoteHolders() throws {
        let dir = try TemporaryDirectory("locks")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("feedline.sqlite").path, schema: .feedline)
        _ = try store.acquireRunLock(pipeline: "live", holder: "me", pid: me.pid, now: now, staleness: staleness)
        guard case .held(let by) = try store.acquireRunLock(pipeline: "live", holder: "other", pid: me.pid, now: now, staleness: staleness) else {
            Issue.record("a live lock was taken"); return
        }
        #expect(by.holder == "me")

        // Another host: its pid cannot be probed from here. Even a probe that calls every pid dead
        // leaves it alone; only its heartbeat counts.
        let remote = RunLockStaleness(host: "other-host", heartbeatTimeout: 900, isProcessAlive: { _ in true })
        _ = try store.acquireRunLock(pipeline: "remote", holder: "far", pid: 999_999, now: now, staleness: remote)
        let deadProbe = RunLockStaleness(host: me.host, heartbeatTimeout: 900, isProcessAlive: { _ in false })
        #expect(try store.acquireRunLock(pipeline: "remote", holder: "here", pid: me.pid, now: now.addingTimeInterval(600), staleness: deadProbe)
                != .acquired(tookOverFrom: nil))
        #expect(try store.runLocks().first { $0.pipeline == "remote" }?.holder == "far")
        // A heartbeat keeps it fresh; 15 minutes of silence make it stale.
        #expect(try store.heartbeatRunLock(pipeline: "remote", holder: "far", now: now.addingTimeInterval(600)))
        guard case .held = try store.acquireRunLock(pipeline: "remote", holder: "here", pid: me.pid, now: now.addingTimeInterval(1200), staleness: deadProbe) else {
            Issue.record("a lock with a fresh heartbeat was taken"); return
        }
        guard case .acquired(let previous) = try store.acquireRunLock(pipeline: "remote", holder: "here", pid: me.pid, now: now.addingTimeInterval(1600), staleness: deadProbe) else {
            Issue.record("a silent remote lock was not taken"); return
        }
        #expect(previous?.host == "other-host")
        #expect(try !store.heartbeatRunLock(pipeline: "remote", holder: "far", now: now.addingTimeInterval(1700)), "the old holder learns it lost the lock")
        try store.releaseRunLock(pipeline: "remote", holder: "far")  // not its lock any more: no effect
        #expect(try store.runLocks().first { $0.pipeline == "remote" }?.holder == "here")
    }

    @Test("`feedline run` on a pipeline a live process runs exits 10 (deferred) with who and since when, and writes no run")
    func runExits75WhenLocked() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let store = try SQLiteStore(path: env.database.path, schema: .feedline)
        _ = try store.acquireRunLock(pipeline: "airkorea-seoul", holder: "cron", pid: me.pid, now: instant("2024-03-06T05:59:30Z"), staleness: staleness)

        let status = await env.feedline.run(names: ["airkorea-seoul"], source: .fixtures, paths: env.paths())
        #expect(status == .deferred, "held by another run: nothing failed")
        #expect(status.rawValue == 10)
        #expect(env.err.text == "error: pipeline airkorea-seoul is already running (pid \(me.pid) since 2024-03-06T05:59:30Z); try again later.")
        #expect(try env.count("SELECT count(*) FROM run") == 0)

        // Other pipelines still run; the locked one makes the whole run partial.
        let mixed = await env.feedline.run(names: ["airkorea-seoul", "airkorea-stations"], source: .fixtures, paths: env.paths())
        #expect(mixed == .partial)
        #expect(try env.rows("SELECT pipeline FROM run") == [["airkorea-stations"]])
    }

    @Test("`feedline run` takes over a lock left by a dead process, runs, and releases the lock")
    func runTakesOverDeadLock() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let store = try SQLiteStore(path: env.database.path, schema: .feedline)
        let dead = try deadProcessID()
        let assumeAlive = RunLockStaleness(host: me.host, heartbeatTimeout: 900, isProcessAlive: { _ in true })
        _ = try store.acquireRunLock(pipeline: "airkorea-seoul", holder: "crashed", pid: dead, now: instant("2024-03-06T05:59:30Z"), staleness: assumeAlive)

        let status = await env.feedline.run(names: ["airkorea-seoul"], source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.err.text)")
        #expect(try env.rows("SELECT pipeline, status FROM run") == [["airkorea-seoul", "succeeded"]])
        #expect(try env.count("SELECT count(*) FROM run_lock") == 0, "released after the run")
        #expect(env.logs.text.contains("took over a stale run lock"))
        #expect(env.logs.text.contains("lock.previous_pid=\(dead)"))
    }
}

/// Outcomes collected from concurrent threads.
final class OutcomeList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, RunLockOutcome)] = []
    private var failures: [String] = []
    func append(_ i: Int, _ outcome: RunLockOutcome) { lock.withLock { items.append((i, outcome)) } }
    func fail(_ message: String) { lock.withLock { failures.append(message) } }
    var values: [(Int, RunLockOutcome)] { lock.withLock { items } }
    var errors: [String] { lock.withLock { failures } }
}
