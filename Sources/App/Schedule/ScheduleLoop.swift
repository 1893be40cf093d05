import Dispatch
import Domain
import Foundation
import Logging
import Pipeline
import Storage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Stop requests

/// A request to stop the scheduler, made once by a signal (or a test) and awaited by sleeps.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: String?
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    public init() {}

    /// Why a stop was requested (`SIGTERM`), or nil.
    public var requestedBy: String? { lock.withLock { reason } }
    public var isRequested: Bool { requestedBy != nil }

    /// Requests a stop (later requests keep the first reason) and wakes every waiter.
    public func request(_ why: String) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            if reason == nil { reason = why }
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for w in woken { w.resume() }
    }

    /// Returns once a stop is requested, or when the calling task is cancelled.
    public func wait() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = lock.withLock {
                    if reason != nil || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}

/// Turns SIGTERM and SIGINT into a `StopSignal` request through DispatchSource signal sources,
/// so a run in hand is never interrupted: the scheduler finishes it and then exits.
///
/// The default action is replaced by "ignore", and `init` returns once the sources are
/// registered, so from then on every signal becomes a stop request and none kills a load.
public final class SignalStopper: @unchecked Sendable {
    private let signals: [Int32]
    private var sources: [DispatchSourceSignal] = []

    public init(signals: [Int32] = [SIGTERM, SIGINT], stop: StopSignal, queue: DispatchQueue = DispatchQueue(label: "feedline.signals"),
                onSignal: @escaping @Sendable (String) -> Void = { _ in }) {
        self.signals = signals
        let registered = DispatchGroup()
        for number in signals {
            signal(number, SIG_IGN)  // the source, not the default action, handles it
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let name = Self.name(of: number)
            source.setEventHandler {
                // Report first: once the stop is requested the process may exit at any moment.
                onSignal(stop.isRequested ? "\(name) again" : name)
                stop.request(name)
            }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
            sources.append(source)
        }
        // Registration is asynchronous; until it is done a signal would be ignored. Wait for it,
        // so that once this returns every signal is seen.
        _ = registered.wait(timeout: .now() + 5)
    }

    /// Removes the sources and restores the default actions.
    public func cancel() {
        for source in sources {
            // Cancellation completes on libdispatch's own thread: the source stays alive until it
            // has (a source freed before then can crash that thread).
            source.setCancelHandler { withExtendedLifetime(source) {} }
            source.cancel()
        }
        sources = []
        for number in signals { signal(number, SIG_DFL) }
    }

    static func name(of number: Int32) -> String {
        switch number {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        case SIGUSR1: return "SIGUSR1"
        case SIGUSR2: return "SIGUSR2"
        default: return "signal \(number)"
        }
    }
}

// MARK: - Sleeping

/// Waits until an instant or a stop request, whichever comes first. Tests pass one that moves
/// a fake clock instead of waiting.
public struct Sleeper: Sendable {
    public var sleep: @Sendable (_ until: Date, _ stop: StopSignal) async -> Void

    public init(sleep: @escaping @Sendable (_ until: Date, _ stop: StopSignal) async -> Void) { self.sleep = sleep }

    /// Real waiting. A nap lasts at most `maximumNap` seconds before the scheduler looks at the
    /// wall clock again: `Task.sleep` measures elapsed time, which drifts from the wall clock
    /// across a suspend or a clock step. There is no polling in between.
    public static func live(clock: @escaping @Sendable () -> Date, maximumNap: TimeInterval = 300) -> Sleeper {
        Sleeper { until, stop in
            let delay = min(until.timeIntervalSince(clock()), maximumNap)
            guard delay > 0, !stop.isRequested else { return }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
                group.addTask { await stop.wait() }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

// MARK: - The scheduler shell

extension Console {
    /// `feedline schedule`: runs the scheduled pipelines (those named, or all with a `schedule:`)
    /// at their fire times until a stop is requested, through `run(names:source:paths:)` — the
    /// very path of `feedline run` — so each run takes the pipeline's lock and writes the ledger.
    ///
    /// Missed slots since each pipeline's last start in the ledger are caught up first by its
    /// `catch_up` policy. On a stop request the run in hand finishes (its load commits or rolls
    /// back) and the scheduler returns `.success`; runs still queued are left for the next start,
    /// which catches them up from the ledger.
    ///
    /// As a `cycle` (a process `ScheduleSupervisor` started), the loop starts from the cursors
    /// the last cycle reported, prints its banner only if it is the first, and instead of
    /// sleeping until a fire time at least `ScheduleCycle.handBackAfter` away (or stopping),
    /// reports to the supervisor and returns.
    public func schedule(names: [String], source: RunMode, paths: Paths, sleeper: Sleeper, stop: StopSignal,
                         maximumCatchUp: Int = 100) async -> ExitStatus {
        await schedule(names: names, source: source, paths: paths, sleeper: sleeper, stop: stop, maximumCatchUp: maximumCatchUp, cycle: nil)
    }

    func schedule(names: [String], source: RunMode, paths: Paths, sleeper: Sleeper, stop: StopSignal,
                  maximumCatchUp: Int = 100, cycle: ScheduleCycle?) async -> ExitStatus {
        if let cycle, !ScheduleSupervisor.supervisorIsAlive(cycle) {
            environment.errorOutput("error: feedline schedule: the waiting process is gone; stopping.")
            return .failure
        }
        guard let pipelines = scheduledPipelines(names: names, paths: paths) else { return .configuration }
        // A metrics file it may not write stops the scheduler at once, not at every run.
        do throws(CommandRefusal) { _ = try preparedMetricsFile(paths) } catch { return refused(error) }
        let lockWait: TimeInterval
        do { lockWait = try Self.scheduleLockWait(environment.variables) } catch {
            environment.errorOutput("error: \(error)")
            return .configuration
        }
        let ledgerMode: RunMode = source == .live ? .live : .fixtures
        let lastStarts: [String: Date]
        do {
            let store = try environment.openStore(paths)
            lastStarts = try store.lastRunStarts(mode: ledgerMode)
        } catch let error as DatabaseAccessError {
            return databaseOpenFailure(error, paths: paths)
        } catch {
            environment.errorOutput("error: cannot read the run ledger in \(paths.databaseName): \(error)")
            return .failure
        }
        let clock = environment.clock, logger = environment.logger
        // A cycle goes on from where the last one was: a slot it handled (ran, or found claimed
        // or given up) is not caught up again from the ledger.
        let starts = lastStarts.merging(cycle?.cursors ?? [:]) { max($0, $1) }
        var core = SchedulerCore(pipelines: pipelines, lastStarts: starts, now: clock(), maximumCatchUp: maximumCatchUp)
        if cycle?.first ?? true {
            environment.output("feedline schedule: \(pipelines.count) pipeline\(pipelines.count == 1 ? "" : "s") (\(ledgerMode.rawValue)), database \(paths.databaseName); stop with SIGTERM or Ctrl-C.")
            for next in core.upcoming(after: clock()) {
                let zone = pipelines.first { $0.name == next.pipeline }?.schedule.timeZone ?? .current
                environment.output("  \(next.pipeline)\tnext \(Self.localTime(next.at, zone: zone))")
            }
        }

        var runs = 0
        /// A cycle's report: the supervisor waits (or stops) and starts the next cycle from it.
        func handBack(next: Date?) -> ExitStatus {
            ScheduleSupervisor.report(CycleOutcome(runs: runs, next: next, stoppedBy: stop.requestedBy, cursors: core.cursors))
            return .success
        }
        while !stop.isRequested {
            switch core.decide(now: clock()) {
            case .run(let due):
                // Each slot is claimed in the database before it runs, so schedulers on several
                // hosts sharing it run each slot once. A pipeline's only due slot is also skipped
                // when a run of it started since (by hand, from cron); of several slots caught up
                // at once (`catch_up: all` after downtime) each runs unless already claimed.
                let slotsPerPipeline = Dictionary(due.map { ($0.pipeline, 1) }, uniquingKeysWith: +)
                for item in due {
                    if stop.isRequested { break }
                    var metadata: Logger.Metadata = ["schedule.pipeline": "\(item.pipeline)", "schedule.slot": "\(iso8601UTC(item.slot))"]
                    if item.skippedSlots > 0 { metadata["schedule.skipped_slots"] = "\(item.skippedSlots)" }
                    if item.truncated { metadata["schedule.catch_up_truncated"] = "true" }
                    logger.notice("running scheduled pipeline", metadata: metadata)
                    let status = await run(names: [item.pipeline], source: source, paths: paths,
                                           slot: .init(at: item.slot, coveredByLaterRuns: slotsPerPipeline[item.pipeline] == 1,
                                                       lockWait: lockWait, isStopping: { stop.isRequested }))
                    runs += 1
                    if status != .success {
                        logger.warning("scheduled run did not succeed", metadata: metadata.merging(["run.exit_status": "\(status.rawValue)"]) { _, b in b })
                    }
                }
            case .sleep(let until):
                if cycle != nil, until.timeIntervalSince(clock()) >= ScheduleCycle.handBackAfter {
                    logger.debug("waiting in the supervisor until the next fire time", metadata: ["schedule.until": "\(iso8601UTC(until))"])
                    return handBack(next: until)
                }
                logger.debug("sleeping until the next fire time", metadata: ["schedule.until": "\(iso8601UTC(until))"])
                await sleeper.sleep(until, stop)
            case .idle:
                logger.notice("no pipeline has a future fire time; waiting for a stop signal")
                if cycle != nil { return handBack(next: nil) }
                await sleeper.sleep(.distantFuture, stop)
            }
        }
        // A cycle's supervisor says it: it knows the runs of every cycle.
        if cycle != nil { return handBack(next: nil) }
        environment.output("feedline schedule: stopped on \(stop.requestedBy ?? "request") after \(runs) run\(runs == 1 ? "" : "s").")
        return .success
    }

    /// `FEEDLINE_SCHEDULE_LOCK_WAIT_MS`: how long a claimed slot waits for its pipeline's run
    /// lock (default 10 minutes).
    static func scheduleLockWait(_ variables: [String: String]) throws -> TimeInterval {
        guard let raw = variables["FEEDLINE_SCHEDULE_LOCK_WAIT_MS"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return 600 }
        guard let ms = Int(raw), (0...86_400_000).contains(ms) else {
            throw RetryConfigurationError(message: "FEEDLINE_SCHEDULE_LOCK_WAIT_MS must be a whole number in 0…86400000, not '\(raw)'.")
        }
        return Double(ms) / 1000
    }

    /// The pipelines to schedule, each with its parsed schedule; nil (after printing why) when
    /// a pipeline file is invalid, a name is unknown or nothing has a schedule.
    func scheduledPipelines(names: [String], paths: Paths) -> [ScheduledPipeline]? {
        let (all, problems) = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory).loadAll()
        // A bad file is named and left out; the scheduler still starts for the valid ones
        // (unless that file's pipeline was asked for by name).
        for problem in problems { environment.errorOutput("error: \(problem) (not scheduled)") }
        var selected: [PipelineDefinition] = []
        for name in names {
            guard let p = all.first(where: { $0.name == name }) else {
                if problems.contains(where: { $0.pipelineName == name }) { return nil }
                environment.errorOutput("error: no pipeline named '\(name)'. Known: \(all.map(\.name).joined(separator: ", ")).")
                return nil
            }
            guard p.schedule != nil else {
                environment.errorOutput("error: \(p.file) has no schedule; add e.g. schedule: \"20 * * * *\".")
                return nil
            }
            selected.append(p)
        }
        if names.isEmpty { selected = all.filter { $0.schedule != nil } }
        guard !selected.isEmpty else {
            environment.errorOutput("error: no pipeline in \(paths.pipelines.path) has a schedule.")
            return nil
        }
        var scheduled: [ScheduledPipeline] = []
        for p in selected {
            do {
                scheduled.append(ScheduledPipeline(name: p.name, schedule: try CronSchedule(p.schedule ?? "", timeZone: p.timeZone),
                                                   catchUp: p.catchUp))
            } catch {
                environment.errorOutput("error: \(p.file): field 'schedule': \(error)")
                return nil
            }
        }
        return scheduled
    }

    /// `2024-03-06 15:20 Asia/Seoul (2024-03-06T06:20:00Z)`: local time for people, UTC to be sure.
    static func localTime(_ instant: Date, zone: TimeZone) -> String {
        let local = instant.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: instant)))
        let iso = iso8601UTC(local)  // the local wall time, formatted
        return "\(iso.prefix(10)) \(iso.dropFirst(11).prefix(5)) \(zone.identifier) (\(iso8601UTC(instant)))"
    }
}
