import Domain
import FeedCore
import Foundation
import Logging
import Pipeline
import Storage

/// Retry and quota settings of live runs, read once from the environment (flags > environment >
/// defaults): `FEEDLINE_RETRY_ATTEMPTS`, `FEEDLINE_RETRY_BASE_MS`, `FEEDLINE_RETRY_CAP_MS`,
/// `FEEDLINE_RETRY_BUDGET_MS`, `FEEDLINE_QUOTA_<FEED>`, `FEEDLINE_FETCH_DEADLINE_MS`.
struct LiveRunSettings: Sendable {
    var retry: RetryPolicy
    var limits: QuotaLimits
    /// Seconds one fetch (one attempt) may take in all, however slowly bytes arrive.
    var fetchDeadline: TimeInterval = LiveRunSettings.defaultFetchDeadline
    /// 120 s: four times the transport's 30 s idle timeout.
    static let defaultFetchDeadline: TimeInterval = 120
    /// Waits between retries (the environment's).
    var sleep: @Sendable (TimeInterval) async throws -> Void
    /// Jitter source (the environment's).
    var random: @Sendable () -> Double

    /// The settings in `environment`; throws a sentence naming a bad variable.
    static func from(_ environment: AppEnvironment) throws -> LiveRunSettings {
        var control = LiveRunSettings(retry: try RetryPolicy.fromEnvironment(environment.variables),
                                      limits: try QuotaLimits.fromEnvironment(environment.variables, feeds: environment.feeds),
                                      sleep: environment.sleep, random: environment.random)
        if let raw = environment.variables["FEEDLINE_FETCH_DEADLINE_MS"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            guard let ms = Int(raw), (1...3_600_000).contains(ms) else {
                throw RetryConfigurationError(message: "FEEDLINE_FETCH_DEADLINE_MS must be a whole number in 1…3600000, not '\(raw)'.")
            }
            control.fetchDeadline = Double(ms) / 1000
        }
        return control
    }

    /// The live fetch path: retries (outermost) around quota counting around pacing to the
    /// feed's rate limits around decoding each page once (API error envelopes surface there)
    /// around a deadline around the `LiveFetcher` (innermost: key, HTTP, archive).
    /// Every attempt is counted.
    func fetcher(_ live: LiveFetcher, ledger: any QuotaLedger, environment: AppEnvironment) -> any PayloadFetching {
        let logger = environment.logger
        let bounded = DeadlineFetcher(base: live, seconds: fetchDeadline, sleep: sleep)
        let checked = InspectingFetcher(base: bounded, inspector: PageInspector(feeds: environment.feeds))
        let paced = PacingFetcher(base: checked, pacer: environment.pacer, feeds: environment.feeds, clock: environment.clock, sleep: sleep)
        let counted = QuotaCountingFetcher(base: paced, ledger: ledger, limits: limits, environment: environment.variables,
                                           clock: environment.clock, policy: retry)
        return RetryingFetcher(base: counted, policy: retry, sleep: sleep, random: random) { event in
            logger.warning("retrying after a transient error", metadata: [
                "feed.operation": "\(event.request.operation)", "fetch.url": "\(event.request.displayURL)",
                "retry.attempt": "\(event.attempt)", "retry.delay_ms": "\(Int((event.delay * 1000).rounded()))",
                "retry.error": "\(event.error.description)",
            ])
        }
    }
}

extension AppEnvironment {
    /// The runner every command loads through (run, replay, schedule, backfill), logging its events.
    func makeRunner(store: any FeedlineStore) -> PipelineRunner {
        let logger = logger
        // A live run's fetched rows wait for its load in an unlinked file under TMPDIR.
        let spoolDirectory = variables["TMPDIR"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        return PipelineRunner(feeds: feeds, store: store, clock: clock, makeSpool: { try FileRowSpool(directory: spoolDirectory) }) { event in
            Console.log(event, logger: logger)
        }
    }

    /// Runs `plan` live, resumably: the pages an interrupted run of the same plan archived (within
    /// `resumeWindow`) are loaded from the archive instead of fetched again, and the journal that
    /// lists them is removed once the load commits. `fresh` fetches every page again.
    func resumableLive(_ plan: PlannedRun, runner: PipelineRunner, fetcher: any PayloadFetching, paths: Paths, fresh: Bool) async -> RunReport {
        guard let requests = try? plan.requests.get() else { return await runner.runLive(plan, fetcher: fetcher) }
        let journal: ResumeJournal
        do {
            journal = try ResumeJournal(archive: PayloadArchive(root: paths.archive), pipeline: plan.pipeline.name, requests: requests,
                                        window: fresh ? 0 : resumeWindow(plan.pipeline), now: clock())
        } catch {
            logger.warning("cannot keep the run's resume journal: an interruption of this run will fetch every page again",
                           metadata: ["pipeline": "\(plan.pipeline.name)", "error": "\(error)"])
            return await runner.runLive(plan, fetcher: fetcher)
        }
        if journal.pagesFound > 0 {
            logger.notice("resuming an interrupted run: its archived pages are loaded from the archive, not fetched again", metadata: [
                "pipeline": "\(plan.pipeline.name)", "resume.pages": "\(journal.pagesFound)",
                "resume.plan_started": "\(iso8601UTC(journal.planStarted))",
            ])
        }
        var report = await runner.runLive(plan, fetcher: ResumingFetcher(base: fetcher, journal: journal))
        report.resumedPages = journal.resumedPages
        // Kept for the next run only when the source failed in a way worth trying again (down,
        // timing out, over its rate): a page that loaded but broke a check, or a request the
        // API refused for good, is fetched afresh.
        if report.committed || report.error?.retryability != .transient { journal.finish() }
        return report
    }

    /// How long an interrupted run's pages stay worth resuming from: one interval of the
    /// pipeline's schedule (a later slot asks for newer data and fetches afresh), or a day for a
    /// pipeline without one (a backfill or a run by hand).
    func resumeWindow(_ pipeline: PipelineDefinition) -> TimeInterval {
        let schedule = pipeline.schedule.flatMap { try? CronSchedule($0, timeZone: pipeline.timeZone) }
        return schedule?.typicalInterval(around: clock()) ?? 86_400
    }

    /// The innermost live fetcher (key at send time, HTTP, archive under `paths.archive`); a live
    /// run wraps it with `LiveRunSettings.fetcher` (through `prepareLiveRun`, or backfill's plan).
    func makeLiveFetcher(paths: Paths) -> LiveFetcher {
        var fetcher = LiveFetcher(transport: transport, environment: variables, archive: PayloadArchive(root: paths.archive), clock: clock, pacer: pacer)
        let bySource = Dictionary(feeds.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
        fetcher.httpErrors = { request, status, body in bySource[request.source]?.httpError(status: status, body: body, context: request.displayURL) }
        return fetcher
    }

    /// Reads the run-control settings, checks that the first pages of every planned run fit in
    /// what is left of today's quotas (refusing with exit 75 when they do not, before anything
    /// is fetched), and wraps `live` in retries and quota counting.
    func prepareLiveRun(_ plans: [PlannedRun], base live: LiveFetcher, store: any FeedlineStore) throws(CommandRefusal) -> any PayloadFetching {
        let control: LiveRunSettings
        do { control = try LiveRunSettings.from(self) } catch { throw CommandRefusal(.configuration, error: "\(error)") }
        let checks: [QuotaCheck]
        do {
            checks = try quotaChecks(plans, limits: control.limits) { scopes, day in try store.callsMade(scopes, on: day) }
        } catch {
            throw CommandRefusal(.failure, error: "cannot read the quota ledger in \(store.location): \(error)")
        }
        for check in checks {
            logger.info("quota", metadata: [
                "quota.scope": "\(check.scope)", "quota.day": "\(check.day)", "quota.used": "\(check.used)",
                "quota.limit": "\(check.limit.map(String.init) ?? "none")", "quota.minimum_calls": "\(check.minimumCalls)",
            ])
        }
        let short = checks.filter { !$0.fits }
        if !short.isEmpty {
            throw CommandRefusal(.deferred, short.map { check in
                "error: not starting: today's quota would run out. \(check.sentence). "
                    + "Try after midnight KST, or set \(QuotaLimits.variableName(for: check.scope.source)) if the key allows more."
            })
        }
        return control.fetcher(live, ledger: store, environment: self)
    }

    /// The quota position of every scope the planned runs' first pages call, with `used` read
    /// through `usage`. Runs whose requests cannot be built are left out (their run reports it).
    func quotaChecks(_ plans: [PlannedRun], limits: QuotaLimits,
                     usage: ([QuotaScope], LocalDate) throws -> [QuotaScope: Int]) throws -> [QuotaCheck] {
        let requests = plans.flatMap { (try? $0.requests.get()) ?? [] }
        let minimum = QuotaPlanner.minimumCalls(requests) { QuotaCountingFetcher.scope(of: $0, environment: variables) }
        let day = quotaDay(clock())
        let used = try usage(Array(minimum.keys), day)
        return QuotaPlanner.check(minimum, used: used, limits: limits, day: day)
    }
}
