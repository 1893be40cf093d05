import Domain
import Foundation

/// A pipeline as declared in `Pipelines/NAME.yaml`, after validation.
public struct PipelineDefinition: Sendable {
    public var name: String
    public var description: String?
    /// Feed name (`airkorea`).
    public var source: String
    public var spec: SourceSpec
    /// Target table(s), informational (`measurement`).
    public var target: String?
    /// Cron expression and time zone, for `feedline schedule` and `feedline crontab`.
    public var schedule: String?
    public var timeZone: String
    /// What `feedline schedule` does about slots missed while it was down (`catch_up:`).
    public var catchUp: CatchUpPolicy = .latest
    /// Fixture files (relative to the fixtures directory) replayed by fixture runs.
    public var fixtures: [String]
    /// The file the definition came from.
    public var file: String
    /// Checks evaluated after every load, inside its transaction (`checks:`).
    public var checks: [DataCheck] = []
    /// What the fixtures must produce (`snapshots:`), for `feedline snapshot` and `feedline check`.
    public var snapshots: [SnapshotSpec] = []
    /// How old its newest data may grow (`freshness:`), for `feedline status --check` and
    /// `feedline metrics`; nil: twice the schedule's interval is a warning.
    public var freshness: FreshnessContract?
    /// What a payload whose fields drifted does to the run (`on_drift:`).
    public var onDrift: DriftPolicy = .warn

    public init(name: String, description: String?, source: String, spec: SourceSpec, target: String?,
                schedule: String?, timeZone: String, fixtures: [String], file: String, catchUp: CatchUpPolicy = .latest) {
        self.name = name; self.description = description; self.source = source; self.spec = spec
        self.target = target; self.schedule = schedule; self.timeZone = timeZone; self.fixtures = fixtures; self.file = file
        self.catchUp = catchUp
    }

    /// The first value of each parameter: context for payloads that omit what was asked for.
    public var fallbackParameters: [String: String] {
        Dictionary(spec.parameters.compactMap { p in p.values.first.map { (p.name, $0) } }, uniquingKeysWith: { a, _ in a })
    }
}

/// A live run of a pipeline, planned once: placeholders expanded, resumed from the bookmarks it
/// was planned with, and its first-page requests built (or why they cannot be). The quota check,
/// the dry run and the runner all use this one value.
public struct PlannedRun: Sendable {
    public var pipeline: PipelineDefinition
    public var bookmarks: [String: String]
    public var requests: Result<[FeedRequest], FeedError>

    public init(pipeline: PipelineDefinition, bookmarks: [String: String], requests: Result<[FeedRequest], FeedError>) {
        self.pipeline = pipeline; self.bookmarks = bookmarks; self.requests = requests
    }
}

/// Fetches one request: the live HTTP path (with archive) or a test double. Implemented in FeedCore.
public protocol PayloadFetching: Sendable {
    func fetch(_ request: FeedRequest) async throws -> RawPayload
}

/// Something the runner reports while it works (pages, rows); the CLI shows it as progress.
public enum RunEvent: Sendable {
    /// A run of `pipeline` (its ledger name) began.
    case started(pipeline: String)
    /// The payloads of the run are known: `count` files or pages to load (in a replay, the
    /// files that could not be read are counted too).
    case staged(count: Int)
    /// A page arrived; `reportedTotal` is the API's own item count for the request, when it
    /// gives one (used only to estimate progress, never to stop paging).
    case fetched(FeedRequest, page: Int, items: Int, reportedTotal: Int?)
    case loaded(file: String, counts: LoadCounts)
    case skippedUnchanged(file: String)
    case fileFailed(file: String, error: String)
    /// The declared checks were evaluated (inside the load, before it commits).
    case checked([CheckResult])
}

/// The outcome of one run.
public struct RunReport: Sendable {
    public var pipeline: String
    public var run: RunID?
    public var mode: RunMode
    public var counts: LoadCounts
    /// Set when the run failed as a whole (nothing was loaded).
    public var error: FeedError?
    /// Files that could not be read in a replay (the rest loaded).
    public var fileErrors: [(file: String, error: String)]
    /// The results of the pipeline's declared checks, in declaration order (empty when it
    /// declares none or the load failed before they ran).
    public var checks: [CheckResult] = []
    /// Whether the load committed (also when `error` checks failed but kept their rows).
    public var committed = false
    /// Pages of a live run taken from the archive of an interrupted run of the same plan
    /// instead of fetched again (`ResumeJournal`).
    public var resumedPages = 0

    public var succeeded: Bool { error == nil }

    public init(pipeline: String, run: RunID?, mode: RunMode, counts: LoadCounts, error: FeedError?,
                fileErrors: [(file: String, error: String)]) {
        self.pipeline = pipeline; self.run = run; self.mode = mode; self.counts = counts
        self.error = error; self.fileErrors = fileErrors
    }
}

/// One payload ready to load, with what is known about it.
public struct StagedPayload: Sendable {
    public var payload: RawPayload
    public var feed: any Feed
    public var context: DecodeContext
    /// Where the bytes are kept (archive or fixture path), for the payload index.
    public var archivePath: String?

    public init(payload: RawPayload, feed: any Feed, context: DecodeContext, archivePath: String?) {
        self.payload = payload; self.feed = feed; self.context = context; self.archivePath = archivePath
    }
}

/// Runs pipelines through the stages: fetch (or read) → parse/map → transform → load.
///
/// Live runs fetch and archive every page first, checking each for API errors and for the
/// end of paging, and only then load all pages in one transaction: a failure anywhere leaves
/// the database as it was. The runner does no I/O itself; it drives the ports it is given.
public struct PipelineRunner: Sendable {
    public let feeds: [String: any Feed]
    public let store: any RunStore
    public let clock: @Sendable () -> Date
    public let events: @Sendable (RunEvent) -> Void
    /// Makes the spool a live run keeps its fetched pages' rows in until the load (one per run,
    /// released with it); nil keeps them in memory.
    public let makeSpool: (@Sendable () throws -> any RowSpooling)?

    public init(feeds: [any Feed], store: any RunStore, clock: @escaping @Sendable () -> Date,
                makeSpool: (@Sendable () throws -> any RowSpooling)? = nil,
                events: @escaping @Sendable (RunEvent) -> Void = { _ in }) {
        self.feeds = Dictionary(feeds.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
        self.store = store
        self.clock = clock
        self.makeSpool = makeSpool
        self.events = events
    }

    /// Fetches every page of every planned request through `fetcher`, stopping at a short or
    /// empty page (or `maxPages`).
    public func fetchAll(_ plan: PlannedRun, feed: any Feed, fetcher: any PayloadFetching) async throws -> [StagedPayload] {
        let pipeline = plan.pipeline
        var staged: [StagedPayload] = []
        var spool: (any RowSpooling)?
        for first in try plan.requests.get() {
            var page = 1
            while true {
                let request = feed.request(first, page: page) ?? first
                var payload = try await fetcher.fetch(request)
                let context = DecodeContext(request: request, fallbackParameters: pipeline.fallbackParameters)
                // Decoded once: by the fetch stage when it inspects pages (live runs), else here.
                var inspection = try payload.inspection ?? PageInspection(prepared: Self.prepare(
                    StagedPayload(payload: payload, feed: feed, context: context, archivePath: payload.file.path)))
                // The page's rows wait for the load in the spool, not in memory.
                if spool == nil { spool = try makeSpool?() }
                if let spool { inspection = try inspection.spilled(into: spool) }
                payload.inspection = inspection
                payload.bytes = nil  // decoded: the archive copy is the bytes from now on
                let summary = inspection.summary
                events(.fetched(request, page: page, items: summary.itemCount, reportedTotal: summary.reportedTotal))
                staged.append(StagedPayload(payload: payload, feed: feed, context: context, archivePath: payload.file.path))
                if feed.request(first, page: page + 1) == nil || feed.isLastPage(summary, of: request) { break }
                page += 1
                if page > pipeline.spec.maxPages {
                    throw FeedError(.invalidRequest, .terminal,
                                    "Stopped after \(pipeline.spec.maxPages) pages of \(request.operation) without reaching a short page; raise max_pages if the data is really that large.",
                                    context: request.displayURL)
                }
            }
        }
        return staged
    }

    /// Runs a pipeline live: fetch everything, then load it in one transaction. Each page is
    /// decoded once, while it is fetched; its encoded rows wait for the load in the run's spool
    /// (`makeSpool`), so memory stays that of a page whatever the number of pages, and the write
    /// transaction begins only after the last page arrived: no lock is held while feedline waits
    /// on the network.
    public func runLive(_ plan: PlannedRun, fetcher: any PayloadFetching) async -> RunReport {
        await run(plan.pipeline.name, mode: .live, checks: plan.pipeline.checks, onDrift: plan.pipeline.onDrift) {
            let feed = try self.feed(named: plan.pipeline.source)
            return try await self.fetchAll(plan, feed: feed, fetcher: fetcher)
        }
    }

    /// Runs a pipeline from already staged payloads (fixture files): the same parse → load path,
    /// then `checks` inside the load's transaction.
    public func runStaged(_ name: String, mode: RunMode, payloads: [StagedPayload], checks: [DataCheck] = [],
                          onDrift: DriftPolicy = .warn) async -> RunReport {
        await run(name, mode: mode, checks: checks, onDrift: onDrift) { payloads }
    }

    /// Replays files (an archive or any directory) in one run: a file that cannot be read is
    /// reported and the others still load. When no file loads at all (every one failed), the
    /// run fails: nothing is kept and the ledger records it as `failed`.
    ///
    /// Parsing, mapping and transforming run in a child task, at most two payloads ahead of the
    /// writer, so the two stages overlap on a machine with more than one core while memory
    /// stays bounded by a few pages of records. The transaction runs on a queue of its own (a
    /// store's load is blocking work, kept off the concurrency pool) and writes in file order,
    /// so the result is the same as one-by-one loading.
    ///
    /// `checks` (a pipeline's, when the replay is checked against one) run inside the load's
    /// transaction, as after any run.
    public func replay(_ name: String, payloads: [StagedPayload], unreadable: [(file: String, error: String)], force: Bool,
                       checks: [DataCheck] = [], onDrift: DriftPolicy = .warn) async -> RunReport {
        let started = clock()
        var report = RunReport(pipeline: name, run: nil, mode: .replay, counts: LoadCounts(), error: nil, fileErrors: unreadable)
        events(.started(pipeline: name))
        events(.staged(count: payloads.count + unreadable.count))
        for failure in unreadable { events(.fileFailed(file: failure.file, error: failure.error)) }
        let ahead = PreparationQueue(capacity: 2)
        let outcome: Result<(RunID, LoadCounts, [(file: String, error: String)], [CheckResult]), Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The writer says which payloads need parsing once its transaction has begun.
                guard let work = await ahead.work() else { return }
                for staged in work {
                    guard await ahead.push(Result { try Self.prepare(staged) }) else { return }
                }
            }
            let written = await Self.blocking { () throws -> (RunID, LoadCounts, [(file: String, error: String)], [CheckResult]) in
                defer { ahead.cancel() }
                return try self.writeReplay(name, started: started, payloads: payloads, unreadable: unreadable, force: force,
                                            checks: checks, onDrift: onDrift, ahead: ahead)
            }
            ahead.cancel()  // also when the load failed before its body began
            await group.waitForAll()
            return written
        }
        switch outcome {
        case .success(let (run, counts, fileErrors, results)):
            report.run = run; report.counts = counts; report.fileErrors += fileErrors; report.checks = results
            report.committed = true
            if let kept = Self.keptFailure(results) { report.error = kept }
        case .failure(let error):
            report.error = asFeedError(error)
            var underlying = error
            if let failure = error as? ReplayLoadFailure {
                report.run = failure.run; report.fileErrors += failure.fileErrors
                report.error = asFeedError(failure.underlying)
                underlying = failure.underlying
            }
            if let run = report.run { recordFailure(of: run, underlying, in: &report) }
        }
        return report
    }

    /// The writer's side of `replay`: begins the run and loads every payload in one transaction,
    /// taking prepared payloads from `ahead` in file order.
    private func writeReplay(_ name: String, started: Date, payloads: [StagedPayload], unreadable: [(file: String, error: String)],
                             force: Bool, checks: [DataCheck], onDrift: DriftPolicy, ahead: PreparationQueue) throws -> (RunID, LoadCounts, [(file: String, error: String)], [CheckResult]) {
        let run = try store.beginRun(pipeline: name, mode: .replay, startedAt: started)
        let drift = DriftLog(policy: onDrift)
        var fileErrors: [(file: String, error: String)] = []
        var results: [CheckResult] = []
        do {
            let counts = try store.load(run: run, finishedAt: clock) { session in
                // Payloads loaded by earlier runs are not parsed at all.
                let known = force ? [] : try session.loaded(among: payloads.map(\.payload.sha256))
                let wanted = payloads.map { !known.contains($0.payload.sha256) }
                ahead.begin(zip(payloads, wanted).filter(\.1).map(\.0))

                var total = LoadCounts()
                for (staged, isWanted) in zip(payloads, wanted) {
                    guard isWanted else { total.add(try self.write(nil, staged, into: session, drift: drift)); continue }
                    // A file that cannot be parsed is reported and skipped: nothing of it was
                    // written, so nothing needs undoing. A failure while writing is not a bad
                    // file and fails the whole run.
                    switch ahead.pop() {
                    case .failure(let error):
                        let line = "\(staged.payload.file.path): \(error)"
                        fileErrors.append((staged.payload.file.path, "\(error)"))
                        events(.fileFailed(file: staged.payload.file.path, error: "\(error)"))
                        try session.record(Diagnostic(code: .unreadablePayload, message: line, location: staged.payload.file.lastPathComponent), payload: nil)
                    case .success(let prepared):
                        // The same bytes twice in one replay load once.
                        let duplicate = try !force && session.wasLoaded(sha256: staged.payload.sha256)
                        total.add(try self.write(duplicate ? nil : prepared, staged, into: session, drift: drift))
                    }
                }
                let failures = unreadable + fileErrors
                if let first = failures.first, total.payloadsLoaded + total.payloadsAlreadyLoaded == 0 {
                    throw FeedError(.malformed, .terminal, failures.count == 1
                        ? "The only file could not be loaded: \(first.file): \(first.error)"
                        : "None of the \(failures.count) files could be loaded (the first: \(first.file): \(first.error))")
                }
                results = try self.check(checks, in: session, run: run, pipeline: name, mode: .replay, loaded: total)
                return total
            }
            return (run, counts, fileErrors, results)
        } catch {
            throw ReplayLoadFailure(run: run, fileErrors: fileErrors, underlying: error)
        }
    }

    /// Runs blocking work (a store's transaction) on a queue of its own, so it never occupies a
    /// thread of the concurrency pool that the preparing task needs.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, Error> {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "feedline.replay.load").async { continuation.resume(returning: Result { try body() }) }
        }
    }

    // MARK: - Internals

    /// Marks `run` failed with `report`'s error; when checks failed it (their load rolled
    /// back), their results are kept with the run, in a transaction of their own.
    private func recordFailure(of run: RunID, _ error: Error, in report: inout RunReport) {
        try? store.failRun(run, error: report.error?.description ?? "\(error)", finishedAt: clock())
        if let failure = error as? CheckFailure {
            report.checks = failure.results
            try? store.recordCheckResults(failure.results, run: run)
        }
    }

    private func feed(named source: String) throws -> any Feed {
        guard let feed = feeds[source] else {
            throw FeedError(.invalidRequest, .terminal, "No feed named '\(source)'; known feeds: \(feeds.keys.sorted().joined(separator: ", ")).")
        }
        return feed
    }

    private func run(_ name: String, mode: RunMode, checks: [DataCheck], onDrift: DriftPolicy,
                     stage: () async throws -> [StagedPayload]) async -> RunReport {
        var report = RunReport(pipeline: name, run: nil, mode: mode, counts: LoadCounts(), error: nil, fileErrors: [])
        events(.started(pipeline: name))
        do {
            let run = try store.beginRun(pipeline: name, mode: mode, startedAt: clock())
            report.run = run
            do {
                let payloads = try await stage()
                events(.staged(count: payloads.count))
                var results: [CheckResult] = []
                let drift = DriftLog(policy: onDrift)
                report.counts = try store.load(run: run, finishedAt: clock) { session in
                    var total = LoadCounts()
                    for staged in payloads { total.add(try self.load(staged, into: session, force: false, drift: drift)) }
                    results = try self.check(checks, in: session, run: run, pipeline: name, mode: mode, loaded: total)
                    return total
                }
                report.checks = results
                report.committed = true
                if let kept = Self.keptFailure(results) { report.error = kept }
            } catch {
                report.error = asFeedError(error)
                recordFailure(of: run, error, in: &report)
            }
        } catch {
            report.error = asFeedError(error)
        }
        return report
    }

    /// Evaluates `checks` inside the load's transaction, after every payload is written. A
    /// failing `error` check that asks for a rollback throws `CheckFailure` (the transaction
    /// then keeps nothing, and the caller records the results on their own); otherwise the
    /// results are recorded with the load, and a failing `error` check marks the run failed.
    private func check(_ checks: [DataCheck], in session: LoadSession, run: RunID, pipeline: String, mode: RunMode,
                       loaded: LoadCounts) throws -> [CheckResult] {
        guard !checks.isEmpty else { return [] }
        let context = CheckContext(run: run, pipeline: pipeline, mode: mode, asOf: clock(), payloadsLoaded: loaded.payloadsLoaded)
        let results = try session.evaluate(checks, context: context)
        events(.checked(results))
        let failing = results.filter(\.failsRun)
        if failing.contains(where: { $0.onFailure == .rollback }) { throw CheckFailure(results: results, rolledBack: true) }
        try session.record(results)
        if !failing.isEmpty { session.markFailed(CheckFailure(results: results, rolledBack: false).description) }
        return results
    }

    /// The run's error when `error` checks failed but their rows were kept; nil otherwise.
    static func keptFailure(_ results: [CheckResult]) -> FeedError? {
        guard results.contains(where: \.failsRun) else { return nil }
        return asFeedError(CheckFailure(results: results, rolledBack: false))
    }

    /// Parse → map → transform → load for one payload of a `run` (any failure rolls the whole
    /// load back). Memory is one payload's records, as in `replay`.
    private func load(_ staged: StagedPayload, into session: LoadSession, force: Bool, drift: DriftLog) throws -> LoadCounts {
        if !force, try session.wasLoaded(sha256: staged.payload.sha256) { return try write(nil, staged, into: session, drift: drift) }
        return try write(staged.payload.inspection?.prepared() ?? Self.prepare(staged), staged, into: session, drift: drift)
    }

    /// Parse, map and transform one payload into memory, touching no database (`replay` runs it
    /// in its preparing task). Memory is one payload's records (a page).
    static func prepare(_ staged: StagedPayload) throws -> PreparedPayload {
        var sink = PreparingSink(preparers: staged.feed.schema.preparerByType, payload: staged.payload)
        let summary = try staged.feed.decode(staged.payload, context: staged.context, into: &sink)
        return PreparedPayload(entries: sink.entries, rows: sink.rows, summary: summary, newestSlot: sink.newestSlot,
                               drift: drift(of: staged, censuses: sink.censuses))
    }

    /// How the fields of `staged`'s pages differ from what its operation declares (nil when
    /// they do not, or the feed declares nothing for it).
    static func drift(of staged: StagedPayload, censuses: [FieldCensus]) -> PageDrift? {
        guard !censuses.isEmpty, let operation = staged.payload.operation ?? staged.payload.request?.operation,
              let shape = staged.feed.answerShape(operation: operation) else { return nil }
        var seen: Set<FieldDrift> = []
        var drifts: [FieldDrift] = []
        for census in censuses {
            for drift in shape.drift(in: census) where seen.insert(drift).inserted { drifts.append(drift) }
        }
        return drifts.isEmpty ? nil : PageDrift(source: staged.feed.source, operation: operation, drifts: drifts)
    }

    /// Writes a prepared payload's records and diagnostics in order, then its bookmark and its
    /// entry in the payload index; nil counts the payload as already loaded.
    private func write(_ prepared: PreparedPayload?, _ staged: StagedPayload, into session: LoadSession, drift: DriftLog) throws -> LoadCounts {
        let payload = staged.payload
        var counts = LoadCounts()
        guard let prepared else {
            counts.payloadsAlreadyLoaded = 1
            events(.skippedUnchanged(file: payload.file.path))
            return counts
        }
        if let page = prepared.drift { try drift.record(page, payload: payload, into: session, at: clock()) }
        for entry in prepared.entries {
            switch entry {
            case .record(let record): counts.count(try session.write(record, payload: payload))
            case .rows(let bytes): counts.add(try session.write(prepared.rows, in: bytes))
            case .diagnostic(let diagnostic): try session.record(diagnostic, payload: payload)
            }
        }
        counts.add(try session.settle())
        if let newest = prepared.newestSlot { try session.setBookmark("newest_observed_at", to: iso8601UTC(newest.end)) }
        try session.markLoaded(payload, itemCount: prepared.summary.itemCount, archivePath: staged.archivePath)
        counts.payloadsLoaded = 1
        events(.loaded(file: payload.file.path, counts: counts))
        return counts
    }
}

/// One payload parsed, mapped and transformed, not yet written: memory is one page of records
/// (or of their encoded rows).
struct PreparedPayload: Sendable {
    var entries: [PreparingSink.Entry]
    /// The rows of records whose writers encode them (`RecordWriter(_:rows:)`); entries name
    /// them by byte range.
    var rows: EncodedRows
    var summary: PageSummary
    var newestSlot: HourSlot?
    /// How the page's fields differ from what its operation declares.
    var drift: PageDrift?
}

/// Transforms records as they arrive and keeps records and diagnostics in arrival order (a
/// record's transform diagnostics just before it), until the whole payload has parsed. Records
/// whose writer encodes rows are kept as those rows only.
struct PreparingSink: RecordSink {
    enum Entry: Sendable {
        case record(FeedRecord)
        /// Consecutive records' encoded rows: a byte range of `rows`.
        case rows(Range<Int>)
        case diagnostic(Diagnostic)
    }
    let preparers: [ObjectIdentifier: RecordWriter.Preparer]
    let payload: RawPayload?
    var entries: [Entry] = []
    var rows = EncodedRows()
    var newestSlot: HourSlot?
    /// The fields the payload's pages carried, as the decoder's readers counted them.
    var censuses: [FieldCensus] = []

    mutating func observe(_ census: FieldCensus) { censuses.append(census) }

    init(preparers: [ObjectIdentifier: RecordWriter.Preparer] = [:], payload: RawPayload? = nil) {
        self.preparers = preparers
        self.payload = payload
    }

    mutating func accept(_ record: FeedRecord) throws {
        // `transformed()` returns its own type, so the record's type picks the preparer.
        if let prepare = preparers[ObjectIdentifier(record.recordType)] {
            let from = rows.byteCount
            // A page of measurements is some 300 KB of rows: start at 64 KiB rather than 16 bytes.
            if from == 0 { rows.reserveCapacity(64 << 10) }
            for d in prepare(record.value, payload, &rows) { diagnose(d) }
            if case .rows(let previous)? = entries.last, previous.upperBound == from {
                entries[entries.count - 1] = .rows(previous.lowerBound..<rows.byteCount)
            } else {
                entries.append(.rows(from..<rows.byteCount))
            }
        } else {
            let (transformed, diagnostics) = record.transformed()
            for d in diagnostics { entries.append(.diagnostic(d)) }
            entries.append(.record(transformed))
        }
        if let slot = record.value.observedSlot, newestSlot.map({ slot > $0 }) ?? true { newestSlot = slot }
    }

    /// Diagnostics go to a table of their own, in their own order, so one goes before the run of
    /// rows still open rather than splitting it: the writer inserts a run's rows several at a
    /// time (`TableWriting.write(_:in:)`), and one grade mismatch in five rows left runs of five.
    mutating func diagnose(_ diagnostic: Diagnostic) {
        if case .rows? = entries.last {
            entries.insert(.diagnostic(diagnostic), at: entries.count - 1)
        } else {
            entries.append(.diagnostic(diagnostic))
        }
    }
}

/// A replay load that failed after its run began: the run, and the files already reported.
private struct ReplayLoadFailure: Error {
    var run: RunID
    var fileErrors: [(file: String, error: String)]
    var underlying: Error
}

/// The bounded, ordered hand-over of prepared payloads from `replay`'s preparing task to its
/// writer. The task side is async: it waits for the list of payloads to prepare (`work`) and,
/// while `capacity` prepared payloads wait, suspends in `push` without holding a thread. The
/// writer side blocks (it runs inside a store transaction, which is synchronous): `begin` hands
/// over the list, `pop` takes the next result in order, `cancel` (the writer is done or failed)
/// releases the task.
final class PreparationQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Result<PreparedPayload, Error>] = []
    private var pending: [StagedPayload]?
    private var cancelled = false
    private var waitingForSpace: CheckedContinuation<Void, Never>?
    private var waitingForWork: CheckedContinuation<[StagedPayload]?, Never>?
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    // MARK: The preparing task

    /// The payloads to prepare, once the writer knows them; nil when it stopped first.
    func work() async -> [StagedPayload]? {
        await withCheckedContinuation { continuation in
            condition.lock()
            if cancelled || pending != nil {
                let work = cancelled ? nil : pending
                condition.unlock()
                continuation.resume(returning: work)
                return
            }
            waitingForWork = continuation
            condition.unlock()
        }
    }

    /// Hands one result to the writer, suspending while the queue is full. False once
    /// cancelled: the task should stop.
    func push(_ item: Result<PreparedPayload, Error>) async -> Bool {
        while true {
            if let accepted = offer(item) { return accepted }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in waitForSpace(continuation) }
        }
    }

    /// True: queued; false: cancelled; nil: full.
    private func offer(_ item: Result<PreparedPayload, Error>) -> Bool? {
        condition.lock()
        defer { condition.unlock() }
        if cancelled { return false }
        guard items.count < capacity else { return nil }
        items.append(item)
        condition.broadcast()
        return true
    }

    private func waitForSpace(_ continuation: CheckedContinuation<Void, Never>) {
        condition.lock()
        if cancelled || items.count < capacity {
            condition.unlock()
            continuation.resume()
            return
        }
        waitingForSpace = continuation
        condition.unlock()
    }

    // MARK: The writer

    /// Starts the preparing task on `work`.
    func begin(_ work: [StagedPayload]) {
        condition.lock()
        pending = work
        let waiter = waitingForWork
        waitingForWork = nil
        condition.unlock()
        waiter?.resume(returning: work)
    }

    /// The next prepared payload in order, waiting for it (one `pop` per payload of `begin`).
    func pop() -> Result<PreparedPayload, Error> {
        condition.lock()
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        let waiter = waitingForSpace
        waitingForSpace = nil
        condition.unlock()
        waiter?.resume()
        return item
    }

    /// Stops the preparing task wherever it waits. Safe to call more than once.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        let space = waitingForSpace, work = waitingForWork
        waitingForSpace = nil; waitingForWork = nil
        condition.broadcast()
        condition.unlock()
        space?.resume()
        work?.resume(returning: nil)
    }
}

/// An error from a port (such as the store) that knows whether a later try may succeed, for
/// instance a database that stayed busy past its timeout.
public protocol RetryabilityReporting: Error {
    var retryability: Retryability { get }
}

/// Converts any error to a `FeedError` for reporting (storage errors are terminal unless they
/// say otherwise through `RetryabilityReporting`).
public func asFeedError(_ error: Error) -> FeedError {
    if let feedError = error as? FeedError { return feedError }
    if let failure = error as? CheckFailure { return FeedError(.checkFailed, .terminal, failure.description) }
    return FeedError(.malformed, (error as? RetryabilityReporting)?.retryability ?? .terminal, "\(error)")
}

/// A page decoded once — records mapped and transformed, diagnostics, summary — carried with its
/// `RawPayload` from the fetch stage to the load, so a live page is never decoded twice.
///
/// Its encoded rows and diagnostics may wait in a `RowSpooling` instead of memory
/// (`spilled(into:)`), read back when the load writes the page; only records whose writers do
/// not encode rows (small reference lists) stay in memory.
public final class PageInspection: Sendable {
    private let kept: PreparedPayload
    /// Where the page waits when it is not in `kept`: the spool, the offset, the byte count.
    private let spool: (spool: any RowSpooling, offset: Int, byteCount: Int)?
    /// What the page held: item count and the paging numbers the API reported.
    public var summary: PageSummary { kept.summary }

    init(prepared: PreparedPayload) { kept = prepared; spool = nil }

    private init(kept: PreparedPayload, spool: (spool: any RowSpooling, offset: Int, byteCount: Int)) {
        self.kept = kept; self.spool = spool
    }

    /// The same inspection with its rows and diagnostics in `spool` rather than in memory
    /// (itself when it already spilled). The records that stay are kept in `entries` order.
    func spilled(into spool: any RowSpooling) throws -> PageInspection {
        guard self.spool == nil else { return self }
        var page = SpooledPage()
        page.put(UInt64(kept.rows.byteCount))
        kept.rows.withUnsafeBytes { page.bytes.append(contentsOf: $0) }
        page.put(UInt32(kept.entries.count))
        var light = kept
        light.entries = []
        for entry in kept.entries {
            switch entry {
            case .rows(let range): page.put(UInt8(0)); page.put(UInt64(range.lowerBound)); page.put(UInt64(range.upperBound))
            case .diagnostic(let d):
                page.put(UInt8(1)); page.put(d.code.rawValue); page.put(d.message); page.put(d.location)
                page.put(UInt8(d.value == nil ? 0 : 1)); if let value = d.value { page.put(value) }
            case .record:
                page.put(UInt8(2)); light.entries.append(entry)
            }
        }
        let offset = try page.bytes.withUnsafeBytes { try spool.append($0) }
        light.rows = EncodedRows(byteCount: 0, count: kept.rows.count, tables: kept.rows.tables) { _ in }
        return PageInspection(kept: light, spool: (spool, offset, page.bytes.count))
    }

    /// The prepared page, read back from the spool when it waits there.
    func prepared() throws -> PreparedPayload {
        guard let (spool, offset, byteCount) = spool else { return kept }
        var bytes = [UInt8](repeating: 0, count: byteCount)
        try bytes.withUnsafeMutableBytes { try spool.read(at: offset, into: $0) }
        var reader = SpooledPage.Reader(bytes: bytes)
        var whole = kept
        let rowBytes = Int(try reader.take(UInt64.self))
        let start = reader.offset
        whole.rows = EncodedRows(byteCount: rowBytes, count: kept.rows.count, tables: kept.rows.tables) { buffer in
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<start + rowBytes])) }
        }
        reader.offset += rowBytes
        var records = kept.entries.makeIterator()
        whole.entries = []
        for _ in 0..<Int(try reader.take(UInt32.self)) {
            switch try reader.take(UInt8.self) {
            case 0: whole.entries.append(.rows(Int(try reader.take(UInt64.self))..<Int(try reader.take(UInt64.self))))
            case 1:
                let code = try reader.text(), message = try reader.text(), location = try reader.text()
                let value = try reader.take(UInt8.self) == 1 ? try reader.text() : nil
                whole.entries.append(.diagnostic(Diagnostic(code: DiagnosticCode(code), message: message, location: location, value: value)))
            default:
                guard let record = records.next() else { throw SpooledPage.Damaged() }
                whole.entries.append(record)
            }
        }
        return whole
    }
}

/// One page's rows and diagnostics as the spool keeps them: the rows' bytes after their length,
/// then the entries (tag 0 a byte range of rows, 1 a diagnostic's four texts, 2 a record kept in
/// memory), numbers little-endian, texts as a UInt32 byte count and UTF-8.
struct SpooledPage {
    var bytes: [UInt8] = []

    mutating func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func put(_ text: String) { let utf8 = Array(text.utf8); put(UInt32(utf8.count)); bytes += utf8 }

    /// The spool gave back bytes that do not read as a page (it cannot happen unless the spool
    /// file was changed under the run).
    struct Damaged: Error, CustomStringConvertible {
        var description: String { "the run's spool file does not read back as the pages written to it." }
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take<T: FixedWidthInteger>(_: T.Type) throws -> T {
            guard offset + MemoryLayout<T>.size <= bytes.count else { throw Damaged() }
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[offset..<offset + MemoryLayout<T>.size]) }
            offset += MemoryLayout<T>.size
            return T(littleEndian: value)
        }

        mutating func text() throws -> String {
            let count = Int(try take(UInt32.self))
            guard offset + count <= bytes.count else { throw Damaged() }
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }
    }
}

/// Decodes fetched pages once, for the fetch stage: a decorator runs it on every page it
/// fetches, so an API error envelope inside an HTTP 200 (quota, rate, gateway) surfaces inside
/// the retried unit, and the load reuses the result.
public struct PageInspector: Sendable {
    let feeds: [String: any Feed]

    public init(feeds: [any Feed]) {
        self.feeds = Dictionary(feeds.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// `payload` decoded with the feed that requested it; throws the decoder's `FeedError`
    /// (API error envelopes, malformed documents). A payload of no known feed is returned as
    /// it is, for the runner to report.
    public func inspect(_ payload: RawPayload, request: FeedRequest) throws -> RawPayload {
        guard let feed = feeds[request.source] else { return payload }
        var inspected = payload
        let staged = StagedPayload(payload: payload, feed: feed, context: DecodeContext(request: request), archivePath: payload.file.path)
        inspected.inspection = PageInspection(prepared: try PipelineRunner.prepare(staged))
        inspected.bytes = nil  // decoded: the archive copy is the bytes from now on
        return inspected
    }
}

