import App
import Foundation
import Pipeline
import Storage
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `feedline schedule`'s loop with a fake clock and a sleeper that moves it: fixture pipelines
/// run at their fire times through `Console.run`, and a simulated signal stops the loop.
@Suite("Schedule: the scheduler loop", .serialized)
struct ScheduleLoopTests {
    /// A sleeper that jumps the clock to the wake-up time, or "receives SIGTERM" instead of
    /// sleeping past `stopAt`. It records every wake-up asked for.
    final class FakeSleeper: @unchecked Sendable {
        let clock: FakeClock
        let stopAt: Date
        private let lock = NSLock()
        private(set) var wakeUps: [Date] = []
        init(clock: FakeClock, stopAt: Date) { self.clock = clock; self.stopAt = stopAt }

        var sleeper: Sleeper {
            Sleeper { until, stop in
                self.lock.withLock { self.wakeUps.append(until) }
                if until > self.stopAt { stop.request("SIGTERM (simulated)"); return }
                self.clock.set(until)
            }
        }
    }

    @Test("runs fixture pipelines at their fire times, writes the ledger and stops on a simulated SIGTERM")
    func runsAtFireTimes() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines()
        let clock = FakeClock(instant("2024-03-06T06:00:10Z"))
        let sleeper = FakeSleeper(clock: clock, stopAt: instant("2024-03-06T08:00:00Z"))
        let feedline = Console(environment: env.environment(clock: clock))

        let status = await feedline.schedule(names: [], source: .fixtures, paths: env.paths(pipelines: pipelines),
                                             sleeper: sleeper.sleeper, stop: StopSignal())

        #expect(status == .success)
        // Every run started exactly at its slot (the fake clock only moves while sleeping).
        #expect(try env.rows("SELECT pipeline, started_at, status, mode FROM run ORDER BY id") == [
            ["sched-seoul", "2024-03-06T06:30:00Z", "succeeded", "fixtures"],
            ["sched-seoul", "2024-03-06T07:00:00Z", "succeeded", "fixtures"],
            ["sched-stations", "2024-03-06T07:00:00Z", "succeeded", "fixtures"],
            ["sched-seoul", "2024-03-06T07:30:00Z", "succeeded", "fixtures"],
            ["sched-seoul", "2024-03-06T08:00:00Z", "succeeded", "fixtures"],
            ["sched-stations", "2024-03-06T08:00:00Z", "succeeded", "fixtures"],
        ])
        #expect(try env.count("SELECT count(*) FROM measurement") > 0)
        #expect(try env.count("SELECT count(*) FROM station") > 0)
        #expect(try env.count("SELECT count(*) FROM run_lock") == 0, "every lock was released")
        // It slept until each next fire time, never for nothing.
        #expect(sleeper.wakeUps.map(iso8601) == ["2024-03-06T06:30:00Z", "2024-03-06T07:00:00Z", "2024-03-06T07:30:00Z",
                                                 "2024-03-06T08:00:00Z", "2024-03-06T08:30:00Z"])
        #expect(env.out.text.contains("feedline schedule: 2 pipelines (fixtures)"))
        #expect(env.out.text.contains("sched-seoul\tnext 2024-03-06 15:30 Asia/Seoul (2024-03-06T06:30:00Z)"))
        #expect(env.out.text.contains("stopped on SIGTERM (simulated) after 6 runs."))
    }

    /// Two hourly pipelines (seoul `catch_up: latest`, stations `all`) that last ran at 03:00 (a
    /// plain `feedline run`, same ledger), with the clock moved to 06:10: 04:00, 05:00 and 06:00
    /// were missed.
    static func afterDowntime(store: TestStore) async throws -> (TestEnvironment, Paths, FakeClock) {
        let env = try TestEnvironment(store: store)
        let pipelines = try env.writeScheduledPipelines(seoul: "0 * * * *", seoulCatchUp: "latest", stations: "0 * * * *", stationsCatchUp: "all")
        let paths = env.paths(pipelines: pipelines)
        let clock = FakeClock(instant("2024-03-06T03:00:05Z"))
        #expect(await Console(environment: env.environment(clock: clock)).run(names: ["sched-seoul", "sched-stations"], source: .fixtures, paths: paths) == .success)
        clock.set(instant("2024-03-06T06:10:00Z"))
        return (env, paths, clock)
    }

    @Test("after downtime it catches up from the ledger: latest runs once, all runs each missed slot")
    func catchesUpFromTheLedger() async throws {
        let (env, paths, clock) = try await Self.afterDowntime(store: .sqlite)
        defer { env.dir.remove() }
        let sleeper = FakeSleeper(clock: clock, stopAt: instant("2024-03-06T06:30:00Z"))
        let status = await Console(environment: env.environment(clock: clock))
            .schedule(names: [], source: .fixtures, paths: paths, sleeper: sleeper.sleeper, stop: StopSignal())
        #expect(status == .success)
        #expect(try env.count("SELECT count(*) FROM run WHERE pipeline = 'sched-seoul' AND started_at > '2024-03-06T04'") == 1)
        #expect(try env.count("SELECT count(*) FROM run WHERE pipeline = 'sched-stations' AND started_at > '2024-03-06T04'") == 3)
        #expect(try env.count("SELECT count(*) FROM run WHERE status <> 'succeeded'") == 0)
        #expect(env.logs.text.contains("schedule.skipped_slots=2"), "latest says it folded two older slots into one run")
        #expect(sleeper.wakeUps.map(iso8601) == ["2024-03-06T07:00:00Z"])
    }

    @Test("a stop requested while a run is loading lets that run commit, starts nothing more and exits 0")
    func stopDuringARunFinishesIt() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "0 * * * *", stations: "0 * * * *")
        let clock = FakeClock(instant("2024-03-06T05:59:00Z"))
        let stop = StopSignal()
        // The "signal" arrives the moment the first payload is being loaded.
        let feedline = Console(environment: env.environment(clock: clock) { line in
            if line.contains("loaded payload") { stop.request("SIGTERM (simulated, mid-run)") }
        })
        let sleeper = FakeSleeper(clock: clock, stopAt: instant("2024-03-07T00:00:00Z"))
        let status = await feedline.schedule(names: [], source: .fixtures, paths: env.paths(pipelines: pipelines),
                                             sleeper: sleeper.sleeper, stop: stop)
        #expect(status == .success)
        // Both pipelines were due at 06:00; only the one in hand ran, and it committed whole.
        #expect(try env.rows("SELECT pipeline, status FROM run") == [["sched-seoul", "succeeded"]])
        #expect(try env.count("SELECT rows_inserted FROM run") > 0)
        #expect(try env.count("SELECT count(*) FROM measurement") > 0)
        #expect(try env.count("SELECT count(*) FROM run_lock") == 0)
        #expect(env.out.text.contains("stopped on SIGTERM (simulated, mid-run) after 1 run."))
    }

    @Test("a scheduled run whose pipeline stays locked by a live process past the lock wait is skipped with exit 10 (deferred), and the loop goes on")
    func lockedPipelineIsSkipped() async throws {
        var env = try TestEnvironment()
        env.variables["FEEDLINE_SCHEDULE_LOCK_WAIT_MS"] = "500"
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "0 * * * *", stations: "30 * * * *")
        let store = try SQLiteStore(path: env.database.path, schema: .feedline)
        let me = RunLockSettings.live
        _ = try store.acquireRunLock(pipeline: "sched-seoul", holder: "someone-else", pid: me.pid, now: instant("2024-03-06T05:58:30Z"),
                                     staleness: RunLockStaleness(host: me.host, heartbeatTimeout: 900, isProcessAlive: { _ in true }))
        let clock = FakeClock(instant("2024-03-06T05:59:00Z"))
        let sleeper = FakeSleeper(clock: clock, stopAt: instant("2024-03-06T06:45:00Z"))
        let status = await Console(environment: env.environment(clock: clock))
            .schedule(names: [], source: .fixtures, paths: env.paths(pipelines: pipelines), sleeper: sleeper.sleeper, stop: StopSignal())
        #expect(status == .success)
        #expect(try env.rows("SELECT pipeline FROM run") == [["sched-stations"]])
        #expect(env.err.text.contains("error: pipeline sched-seoul is already running (pid \(me.pid) since 2024-03-06T05:58:30Z); try again later."))
        #expect(env.logs.text.contains("run.exit_status=10"))
        #expect(env.logs.text.contains("waiting for the run lock of the scheduled slot"))
    }

    @Test("a lock wait that is not a whole number of milliseconds in range stops the scheduler before anything runs, exit 78")
    func badLockWaitIsAConfigurationError() async throws {
        for bad in ["soon", "-1", "86400001", "1.5"] {
            var env = try TestEnvironment()
            defer { env.dir.remove() }
            env.variables["FEEDLINE_SCHEDULE_LOCK_WAIT_MS"] = bad
            let pipelines = try env.writeScheduledPipelines()
            let clock = FakeClock(instant("2024-03-06T06:29:50Z"))
            let status = await Console(environment: env.environment(clock: clock)).schedule(
                names: [], source: .fixtures, paths: env.paths(pipelines: pipelines),
                sleeper: FakeSleeper(clock: clock, stopAt: instant("2024-03-06T07:00:00Z")).sleeper, stop: StopSignal())
            #expect(status == .configuration, "\(bad)")
            #expect(env.err.text.contains("FEEDLINE_SCHEDULE_LOCK_WAIT_MS must be a whole number in 0…86400000, not '\(bad)'"), "\(env.err.text)")
            #expect(!FileManager.default.fileExists(atPath: env.database.path), "nothing was opened or run")
        }
    }

    /// Holds each arriving thread until `count` have arrived (or `timeout` passed).
    final class Barrier: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        private let count: Int
        init(_ count: Int) { self.count = count }
        /// Whether everyone arrived in time.
        var completed: Bool { condition.withLock { arrived >= count } }
        func arrive(timeout: TimeInterval = 20) {
            condition.withLock {
                arrived += 1
                condition.broadcast()
                let deadline = Date().addingTimeInterval(timeout)
                while arrived < count && condition.wait(until: deadline) {}
            }
        }
    }

    @Test("two hosts' schedulers catching up on the same missed slots run each slot exactly once, none lost", arguments: TestStore.all)
    func twoHostsCatchUpEachSlotOnce(store: TestStore) async throws {
        let (env, paths, clock) = try await Self.afterDowntime(store: store)
        defer { env.dir.remove() }
        // Both schedulers come back at 06:10: stations (catch_up: all) has 04:00, 05:00 and 06:00
        // due, seoul (latest) 06:00. Each holds its first run until the other has read the ledger
        // and reached its first run too, so both try every slot.
        let barrier = Barrier(2)
        func host(_ name: String) -> Console {
            let first = FirstTime()
            var e = env.environment(clock: clock) { line in
                if line.contains("running scheduled pipeline"), first.take() { barrier.arrive() }
            }
            e.variables["FEEDLINE_SCHEDULE_LOCK_WAIT_MS"] = "60000"
            e.runLocks = RunLockSettings(host: name, pid: getpid(), isProcessAlive: { _ in true })
            return Console(environment: e)
        }
        let a = host("host-a"), b = host("host-b")
        let stopAt = instant("2024-03-06T06:30:00Z")
        async let statusA = onOwnThread {
            await a.schedule(names: [], source: .fixtures, paths: paths, sleeper: FakeSleeper(clock: clock, stopAt: stopAt).sleeper, stop: StopSignal())
        }
        async let statusB = onOwnThread {
            await b.schedule(names: [], source: .fixtures, paths: paths, sleeper: FakeSleeper(clock: clock, stopAt: stopAt).sleeper, stop: StopSignal())
        }
        #expect(try await statusA == .success)
        #expect(try await statusB == .success)
        #expect(barrier.completed, "both schedulers read the ledger before either ran: the race was exercised")

        // Every due slot claimed once and run once, all succeeded.
        #expect(try env.rows("SELECT pipeline, slot FROM schedule_slot ORDER BY pipeline, slot") == [
            ["sched-seoul", "2024-03-06T06:00:00Z"],
            ["sched-stations", "2024-03-06T04:00:00Z"], ["sched-stations", "2024-03-06T05:00:00Z"], ["sched-stations", "2024-03-06T06:00:00Z"],
        ])
        #expect(try env.count("SELECT count(*) FROM run WHERE pipeline = 'sched-stations' AND started_at > '2024-03-06T04:00:00Z'") == 3)
        #expect(try env.count("SELECT count(*) FROM run WHERE pipeline = 'sched-seoul' AND started_at > '2024-03-06T04:00:00Z'") == 1)
        #expect(try env.count("SELECT count(*) FROM run WHERE status <> 'succeeded'") == 0)
        #expect(try env.count("SELECT count(*) FROM run_lock") == 0)
        #expect(env.out.text.contains("already run for this slot"), "the slower host found the slots claimed")
    }

    /// True the first time only.
    final class FirstTime: @unchecked Sendable {
        private let lock = NSLock()
        private var taken = false
        func take() -> Bool { lock.withLock { defer { taken = true }; return !taken } }
    }

    @Test("SIGUSR2 through a DispatchSource signal source becomes a stop request, without killing the process")
    func realSignalRequestsStop() async throws {
        let stop = StopSignal()
        let stopper = SignalStopper(signals: [SIGUSR2], stop: stop)
        defer { stopper.cancel() }
        let sleeper = Sleeper.live(clock: { Date() }, maximumNap: 20)
        let started = Date()
        kill(getpid(), SIGUSR2)  // the stopper's init returned: the source is registered
        await sleeper.sleep(Date().addingTimeInterval(120), stop)  // returns early on the stop request
        #expect(stop.requestedBy == "SIGUSR2")
        // Far below the 120 s it would otherwise sleep; generous, because on a machine busy with
        // the whole suite a wake-up can wait seconds for a thread.
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test("the live sleeper wakes at the deadline when nothing stops it")
    func liveSleeperWakesUp() async {
        let stop = StopSignal()
        let started = Date()
        await Sleeper.live(clock: { Date() }, maximumNap: 300).sleep(Date().addingTimeInterval(0.3), stop)
        let slept = Date().timeIntervalSince(started)
        // Woken by the deadline, not by the five-minute nap; the upper bound is generous because
        // on a machine busy with the whole suite the wake-up can wait seconds for a thread (5.9 s
        // has been seen).
        #expect(slept >= 0.25 && slept < 60)
        #expect(!stop.isRequested)
    }

    @Test("`schedule --next` lists upcoming fire times in each pipeline's zone")
    func printsUpcoming() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines()
        let status = env.feedline.printUpcoming(names: ["sched-stations"], paths: env.paths(pipelines: pipelines), count: 2)
        #expect(status == .success)
        #expect(env.out.text == """
            PIPELINE        SCHEDULE   TIME ZONE   CATCH-UP  NEXT (LOCAL)      UTC
            sched-stations  0 * * * *  Asia/Seoul  all       2024-03-06 16:00  2024-03-06T07:00:00Z
                                                             2024-03-06 17:00  2024-03-06T08:00:00Z
            """)
    }
}

func iso8601(_ date: Date) -> String {
    let f = ISO8601DateFormatter()
    f.timeZone = TimeZone(identifier: "UTC")
    return f.string(from: date)
}
