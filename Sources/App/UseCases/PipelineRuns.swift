import AirKorea
import Domain
import FeedCore
import Foundation
import OpenWeather
import Pipeline
import Storage

/// Why a command stopped before doing its work: the exit status, and the lines that say why
/// (each a whole line, `error: …`), for the command to print.
public struct CommandRefusal: Error, Sendable, CustomStringConvertible {
    public var status: ExitStatus
    public var lines: [String]

    public init(_ status: ExitStatus, _ lines: [String]) { self.status = status; self.lines = lines }
    public init(_ status: ExitStatus, error message: String) { self.init(status, ["error: " + message]) }

    public var description: String { lines.joined(separator: "\n") }
}

/// The use cases of `run` and `replay`: they choose, plan and run pipelines and return what
/// happened. They print nothing (progress goes through the logger and the runner's events);
/// `Console` prints their results and picks the exit status.
public struct PipelineRuns: Sendable {
    public let environment: AppEnvironment

    public init(environment: AppEnvironment) { self.environment = environment }

    /// The pipelines a run will take, and the invalid files left out of an unnamed run.
    public struct Selection: Sendable {
        public var pipelines: [PipelineDefinition]
        /// Files that could not be read; set only when no names were given (a named pipeline
        /// whose file is invalid refuses the run instead).
        public var skipped: [PipelineCatalog.Problem]
    }

    /// A scheduler's fire time for a run.
    public struct ScheduledSlot: Sendable {
        /// The fire time.
        public var at: Date
        /// Whether any run started since `at` (by hand, from cron) counts as this slot's run:
        /// true when the slot is its pipeline's only due one. Of several slots caught up at
        /// once, each is run unless a scheduler already claimed it.
        public var coveredByLaterRuns: Bool
        /// How long a claimed slot waits for its pipeline's run lock (held by another host's
        /// scheduler running an earlier slot, or by a run started by hand) before giving up.
        public var lockWait: TimeInterval
        /// Ends the wait early (a stop was requested).
        public var isStopping: @Sendable () -> Bool

        public init(at: Date, coveredByLaterRuns: Bool = true, lockWait: TimeInterval = 0, isStopping: @escaping @Sendable () -> Bool = { false }) {
            self.at = at
            self.coveredByLaterRuns = coveredByLaterRuns
            self.lockWait = lockWait
            self.isStopping = isStopping
        }
    }

    /// What a run of several pipelines did.
    public struct Outcome: Sendable {
        public var reports: [RunReport]
        /// Pipelines not run because another run held their lock (or the lock could not be
        /// read), with the reason.
        public var lockedOut: [(pipeline: String, reason: String)]
        /// Whether every pipeline in `lockedOut` was held by another run (nothing failed).
        public var lockedOutByOtherRuns = true
        public var skipped: [PipelineCatalog.Problem]
        /// Pipelines not run because their scheduled slot was already run: another scheduler
        /// (on any host) claimed it first, or — for a pipeline's only due slot — a run started
        /// since it (read under the run lock).
        public var alreadyRun: [String] = []
        /// Pipelines a fixture run left out because their files list no fixtures (a pipeline of
        /// one's own before `feedline fixtures add`); they change no exit status.
        public var withoutFixtures: [PipelineDefinition] = []

        /// 0 all ran and succeeded; 3 some did not (or files were skipped); 10 nothing failed but
        /// pipelines were held by other runs or out of quota; 75 runs failed transiently; 78 a
        /// key was missing; 1 otherwise.
        public var exitStatus: ExitStatus {
            if !lockedOut.isEmpty {
                if reports.contains(where: \.succeeded) { return .partial }
                if !lockedOutByOtherRuns { return .temporaryFailure }
                let failed = reports.filter { !$0.succeeded }
                return failed.isEmpty ? .deferred : Console.status(failed)
            }
            let status = Console.status(reports)
            return !skipped.isEmpty && status == .success ? .partial : status
        }
    }

    /// The pipeline's run lock; for a scheduled slot, waited for (polling every 200 ms, up to
    /// `slot.lockWait`, until a stop is requested) while another run holds it.
    func acquireRunLock(_ pipeline: String, store: any FeedlineStore, slot: ScheduledSlot?) async -> Result<HeldRunLock, RunLockRefusal> {
        var result = environment.acquireRunLock(pipeline, store: store)
        guard let slot, case .failure(let refusal) = result, slot.lockWait > 0 else { return result }
        environment.logger.notice("waiting for the run lock of the scheduled slot", metadata: [
            "lock.pipeline": "\(pipeline)", "schedule.slot": "\(iso8601UTC(slot.at))", "lock.refusal": "\(refusal.message)",
        ])
        let deadline = Date().addingTimeInterval(slot.lockWait)
        while case .failure = result, Date() < deadline, !slot.isStopping() {
            try? await Task.sleep(nanoseconds: 200_000_000)
            result = environment.acquireRunLock(pipeline, store: store)
        }
        return result
    }

    /// The named pipelines (all when `names` is empty) from the pipelines directory.
    public func select(names: [String], paths: Paths) throws(CommandRefusal) -> Selection {
        let catalog = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory)
        let (all, problems) = catalog.loadAll()
        if names.isEmpty {
            // A bad file is named and skipped; it never keeps the valid pipelines from running.
            if all.isEmpty && !problems.isEmpty { throw CommandRefusal(.configuration, problems.map { "error: \($0)" }) }
            if all.isEmpty { throw CommandRefusal(.configuration, ["No pipelines to run in \(paths.pipelines.path)."]) }
            return Selection(pipelines: all, skipped: problems)
        }
        var selected: [PipelineDefinition] = []
        for name in names {
            if let p = all.first(where: { $0.name == name }) { selected.append(p); continue }
            if let problem = problems.first(where: { $0.pipelineName == name }) { throw CommandRefusal(.configuration, error: "\(problem)") }
            throw CommandRefusal(.configuration, error: "no pipeline named '\(name)'. Known: \(all.map(\.name).joined(separator: ", ")). See `feedline pipelines`.")
        }
        return Selection(pipelines: selected, skipped: [])
    }

    /// Runs the selected pipelines from their fixtures or live, one after another, each under
    /// its run lock and in one transaction. `each` is told of every finished run as it finishes.
    ///
    /// A live run checks its keys and today's quotas first, and refuses (before anything is
    /// fetched or written) when a key is missing or the first pages would not fit.
    ///
    /// `slot`, for the scheduler: the slot is claimed in the database first (`schedule_slot`,
    /// one statement); a slot another scheduler claimed is not run again. A claimed slot waits
    /// (up to `lockWait`) for its pipeline's run lock, so a slot is never lost to another host
    /// running an earlier one; under the lock, a pipeline's only due slot is still skipped when
    /// a run of this mode started since it. So schedulers on several hosts sharing one database
    /// run each slot once, also when they catch up on several slots together.
    ///
    /// A live run resumes: pages an interrupted run of the same plan archived are loaded from the
    /// archive rather than fetched again (`resumableLive`); `fresh` fetches everything.
    public func run(_ selection: Selection, mode: RunMode, paths: Paths, names: [String] = [], slot: ScheduledSlot? = nil,
                    fresh: Bool = false, each: @Sendable (RunReport) -> Void = { _ in }) async throws(CommandRefusal) -> Outcome {
        guard mode != .replay else {
            throw CommandRefusal(.usage, error: "pipelines run from their fixtures or live; to load saved payloads use `feedline replay PATH…`.")
        }
        let pipelines = selection.pipelines
        let fetcher = environment.makeLiveFetcher(paths: paths)
        if mode == .live {
            // Missing keys fail at once, before anything is fetched or written, all named in one line.
            var missing: [String] = []
            for feedName in Set(pipelines.map(\.source)).sorted() {
                guard let feed = environment.feed(named: feedName) else { continue }
                if (try? fetcher.checkCredential(CredentialRequirement(environmentVariable: feed.credentialVariable, placement: .query("")))) == nil {
                    missing.append(feed.credentialVariable)
                }
            }
            if !missing.isEmpty { throw CommandRefusal(.configuration, error: environment.missingKeysMessage(missing, names: names, paths: paths, pipelines: pipelines)) }
        }

        let store: any FeedlineStore
        do { store = try environment.openStore(paths) } catch { throw environment.databaseOpenRefusal(error, paths: paths) }
        let runner = environment.makeRunner(store: store)
        var liveFetcher: any PayloadFetching = fetcher
        var plans: [String: PlannedRun] = [:]
        if mode == .live {
            // Each pipeline's requests are built once, here: the quota check and the run use the same.
            for pipeline in pipelines {
                plans[pipeline.name] = environment.plan(pipeline, bookmarks: (try? store.bookmarks(pipeline: pipeline.name)) ?? [:], reader: store)
            }
            liveFetcher = try environment.prepareLiveRun(pipelines.compactMap { plans[$0.name] }, base: fetcher, store: store)
        }

        var outcome = Outcome(reports: [], lockedOut: [], skipped: selection.skipped)
        for pipeline in pipelines {
            if mode == .fixtures && pipeline.fixtures.isEmpty {
                outcome.withoutFixtures.append(pipeline)
                continue
            }
            if let slot {
                do {
                    guard try store.claimSlot(pipeline: pipeline.name, mode: mode, slot: slot.at, host: environment.runLocks.host,
                                              now: environment.clock()) else {
                        outcome.alreadyRun.append(pipeline.name)
                        continue
                    }
                } catch {
                    outcome.lockedOutByOtherRuns = false
                    outcome.lockedOut.append((pipeline.name, "cannot claim the scheduled slot \(iso8601UTC(slot.at)) of pipeline \(pipeline.name) in \(store.location): \(error)"))
                    continue
                }
            }
            // One run of a pipeline per database at a time (Schedule/RunLocking.swift).
            let lock: HeldRunLock
            switch await acquireRunLock(pipeline.name, store: store, slot: slot) {
            case .success(let held): lock = held
            case .failure(let refusal):
                if !refusal.heldElsewhere { outcome.lockedOutByOtherRuns = false }
                outcome.lockedOut.append((pipeline.name, refusal.message))
                continue
            }
            defer { lock.release() }
            if let slot, slot.coveredByLaterRuns, let last = try? store.lastRunStarts(mode: mode)[pipeline.name], last >= slot.at {
                outcome.alreadyRun.append(pipeline.name)
                continue
            }
            let report: RunReport
            switch mode {
            case .live:
                var plan = plans[pipeline.name] ?? environment.plan(pipeline, bookmarks: [:], reader: store)
                // Another process may have moved the bookmarks between planning and the lock.
                let bookmarks = (try? store.bookmarks(pipeline: pipeline.name)) ?? [:]
                if bookmarks != plan.bookmarks { plan = environment.plan(pipeline, bookmarks: bookmarks, reader: store) }
                report = await environment.resumableLive(plan, runner: runner, fetcher: liveFetcher, paths: paths, fresh: fresh)
            case .fixtures, .replay:
                do {
                    let staged = try environment.stageFixtures(pipeline, fixtures: paths.fixtures)
                    report = await runner.runStaged(pipeline.name, mode: .fixtures, payloads: staged, checks: pipeline.checks, onDrift: pipeline.onDrift)
                } catch {
                    report = RunReport(pipeline: pipeline.name, run: nil, mode: .fixtures, counts: LoadCounts(),
                                       error: asFeedError(error), fileErrors: [])
                }
            }
            outcome.reports.append(report)
            each(report)
        }
        return outcome
    }

    /// What a replay did, with the notes on files it left aside.
    public struct ReplayOutcome: Sendable {
        public var report: RunReport
        /// `note: skipping …` lines: entries that are not regular files.
        public var notes: [String]

        /// 0 every file loaded (or was loaded before); 3 some files failed; 1 none loaded.
        public var exitStatus: ExitStatus {
            if report.error != nil { return Console.status([report]) }
            if !report.fileErrors.isEmpty {
                return report.counts.payloadsLoaded + report.counts.payloadsAlreadyLoaded > 0 ? .partial : .failure
            }
            return .success
        }
    }

    /// Replays files or directories (an archive, or any saved payloads) with no network.
    ///
    /// `checksFrom` names a pipeline whose declared checks run on the load, as after a run of it
    /// (and whose `on_drift:` applies).
    public func replay(inputs: [String], sourceHint: String?, parameters: [String: String], paths: Paths,
                       force: Bool, checksFrom: String? = nil) async throws(CommandRefusal) -> ReplayOutcome {
        let feeds = environment.feeds
        if let sourceHint, environment.feed(named: sourceHint) == nil {
            throw CommandRefusal(.configuration, error: "--source '\(sourceHint)' is not a known feed; known: \(feeds.map(\.source).joined(separator: ", ")).")
        }
        var checks: [DataCheck] = []
        var onDrift = DriftPolicy.warn
        if let checksFrom {
            let pipeline = try select(names: [checksFrom], paths: paths).pipelines[0]  // a named pipeline or a refusal
            if pipeline.checks.isEmpty { throw CommandRefusal(.configuration, error: "\(pipeline.file) declares no checks (--checks \(checksFrom)).") }
            checks = pipeline.checks
            onDrift = pipeline.onDrift  // the pipeline's on_drift too, as after a run of it
        }
        // Only regular files are opened: a FIFO, socket or device is skipped with a note. Inside a
        // directory, a link that leads nowhere is a file that failed; named on the command line,
        // anything but a file or directory is a usage mistake.
        var files: [URL] = []
        var notes: [String] = []
        var unreadable: [(file: String, error: String)] = []
        for input in inputs {
            let url = environment.resolve(input)
            let kind = ReplayPathKind.of(url.path)
            switch kind {
            case .directory:
                let found = Console.replayFiles(under: url)
                files += found.files
                notes += found.skipped.map { "note: skipping \($0.0.path): \($0.1)." }
                unreadable += found.unreadable
            case .regular:
                files.append(url)
            case .special(let what):
                notes.append("note: skipping \(input): not a regular file (\(what)).")
            case .missing, .danglingLink, .linkLoop, .inaccessible:
                throw CommandRefusal(.configuration, notes + ["error: \(input): \(kind.problem ?? "cannot be read")."])
            }
        }
        if files.isEmpty && unreadable.isEmpty {
            throw CommandRefusal(.configuration, notes + ["error: no .xml or .json payload files found in \(inputs.joined(separator: ", "))."])
        }

        // Staging reads and hashes every file, spread over the cores; a file unchanged since an
        // earlier replay hashed it is not read again (`FileHashCache`; `--force` hashes all).
        let environment = environment
        let hashes = force ? nil : FileHashCache.standard(variables: environment.variables)
        let results = Console.concurrentMap(files) { file in
            Result { try environment.stageReplay(file, sourceHint: sourceHint, parameters: parameters, hashes: hashes) }
        }
        hashes?.save()
        // Each file is read under the context its bytes were first loaded with (`ReplayContext`).
        let bare = results.compactMap { try? $0.get() }.filter { $0.payload.request == nil && $0.context.request == nil }
        let catalog = PipelineCatalog(directory: paths.pipelines, feeds: feeds, workingDirectory: environment.workingDirectory)
        let context = ReplayContext(firstLoads: ReplayContext.firstLoads(of: bare.map(\.payload.sha256), environment: environment, paths: paths),
                                    pipelines: { Dictionary(catalog.loadAll().0.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }) })
        var staged: [StagedPayload] = []
        for (file, result) in zip(files, results) {
            switch result.flatMap({ payload in Result { try context.apply(to: payload, explicit: parameters) } }) {
            case .success(let payload): staged.append(payload)
            case .failure(let error): unreadable.append((file.path, "\(error)"))
            }
        }
        let store: any FeedlineStore
        do { store = try environment.openStore(paths) } catch {
            var refusal = environment.databaseOpenRefusal(error, paths: paths)
            refusal.lines = notes + refusal.lines
            throw refusal
        }
        let report = await environment.makeRunner(store: store).replay("replay", payloads: staged, unreadable: unreadable, force: force, checks: checks,
                                                                          onDrift: onDrift)
        return ReplayOutcome(report: report, notes: notes)
    }
}

/// A live run of a pipeline, planned: placeholders expanded, resumed from its bookmarks, its
/// first-page requests built. The quota check, `--dry-run` and the runner all use this one value.
/// A parameter value that stands for a list of points the database knows.
struct CoordinatePlaceholder: Sendable {
    /// `{stations}`.
    var token: String
    /// "every AirKorea station".
    var meaning: String
    /// What to run first when the list is empty.
    var remedy: String
    var read: @Sendable (any LedgerReading) throws -> [NamedCoordinate]

    /// `{stations}`: every AirKorea station of the station table; `{places}`: every place the
    /// geocoding pipeline resolved (the place table). Each becomes `lat,lon` (four decimals).
    static let all = [
        CoordinatePlaceholder(token: "{stations}", meaning: "the coordinates of every AirKorea station",
                              remedy: "run the airkorea-stations pipeline first", read: { try AirKoreaQueries.stationCoordinates($0.reading()) }),
        CoordinatePlaceholder(token: "{places}", meaning: "the coordinates of every place resolved by geocoding",
                              remedy: "run the openweather-places pipeline first", read: { try OpenWeatherQueries.placeCoordinates($0.reading()) }),
    ]
}

extension AppEnvironment {
    func feed(named source: String) -> (any Feed)? { feeds.first { $0.source == source } }

    /// Plans a live run of `pipeline` now, from `bookmarks`. A parameter value `{stations}` or
    /// `{places}` (`CoordinatePlaceholder`) becomes the list of points `reader` holds.
    func plan(_ pipeline: PipelineDefinition, bookmarks: [String: String], reader: (any LedgerReading)? = nil) -> PlannedRun {
        var resumed = Console.expandingPlaceholders(pipeline, now: clock())
        for placeholder in CoordinatePlaceholder.all
        where resumed.spec.parameters.contains(where: { $0.values.contains(placeholder.token) }) {
            let known = (try? reader.map(placeholder.read)) ?? []
            guard !known.isEmpty else {
                return PlannedRun(pipeline: resumed, bookmarks: bookmarks, requests: .failure(FeedError(.invalidRequest, .terminal,
                    "\(pipeline.file): \(placeholder.token) stands for \(placeholder.meaning), but the database has none yet; \(placeholder.remedy).")))
            }
            // Two stations at one point (four decimals) are asked about once.
            var seen: Set<String> = []
            let points = known.map { String(format: "%.4f,%.4f", $0.latitude, $0.longitude) }.filter { seen.insert($0).inserted }
            resumed.spec.parameters = resumed.spec.parameters.map { p in
                (p.name, p.values.flatMap { $0 == placeholder.token ? points : [$0] })
            }
        }
        guard let feed = feed(named: pipeline.source) else {
            return PlannedRun(pipeline: resumed, bookmarks: bookmarks, requests: .failure(
                FeedError(.invalidRequest, .terminal, "No feed named '\(pipeline.source)'; known feeds: \(feeds.map(\.source).joined(separator: ", ")).")))
        }
        resumed.spec = feed.resuming(resumed.spec, bookmarks: bookmarks)
        return PlannedRun(pipeline: resumed, bookmarks: bookmarks, requests: Result { try feed.requests(for: resumed.spec) }.mapError(asFeedError))
    }
}
