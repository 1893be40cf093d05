import Foundation

/// How a run got its payloads.
public enum RunMode: String, Sendable, Codable {
    /// Fetched from the API over HTTP.
    case live
    /// Read from the bundled fixture files a pipeline names.
    case fixtures
    /// Re-read from an archive or a directory of saved payloads.
    case replay
}

/// Identifies one run in the ledger.
public struct RunID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// What a load did to the rows it touched.
public enum WriteOutcome: Sendable {
    case inserted, updated, unchanged
    /// The store writes the row later, in one statement with others of its table
    /// (`TableWriting.upsertBatched`), and counts it then: see `LoadSession.settle()`.
    case deferred
}

/// Row counts of a load, per outcome.
public struct LoadCounts: Sendable, Equatable, Codable {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var diagnostics = 0
    public var payloadsLoaded = 0
    /// Payloads skipped because the same bytes were already loaded.
    public var payloadsAlreadyLoaded = 0

    public init() {}

    public mutating func count(_ outcome: WriteOutcome) {
        switch outcome {
        case .inserted: inserted += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        case .deferred: break
        }
    }

    public mutating func add(_ other: LoadCounts) {
        inserted += other.inserted; updated += other.updated; unchanged += other.unchanged
        diagnostics += other.diagnostics; payloadsLoaded += other.payloadsLoaded
        payloadsAlreadyLoaded += other.payloadsAlreadyLoaded
    }

    /// Rows written or confirmed.
    public var rows: Int { inserted + updated + unchanged }

    /// One outcome for these counts (a record written as several rows): inserted if a row was,
    /// else updated, else unchanged; deferred when nothing was counted yet.
    public var outcome: WriteOutcome {
        inserted > 0 ? .inserted : updated > 0 ? .updated : unchanged > 0 ? .unchanged : .deferred
    }
}

/// Writes inside one open load transaction. Implemented by Storage; used by the runner.
public protocol LoadSession: TableWriting {
    /// Upserts one record by its natural key, through the writer registered for its type
    /// (throws `UnregisteredRecordError` when there is none).
    func write(_ record: FeedRecord, payload: RawPayload?) throws -> WriteOutcome
    /// Stores one diagnostic.
    func record(_ diagnostic: Diagnostic, payload: RawPayload?) throws
    /// Whether these exact bytes were already loaded by an earlier successful run.
    func wasLoaded(sha256: String) throws -> Bool
    /// Which of `sha256s` were already loaded by earlier successful runs (one question for many
    /// payloads, where the store can ask it so).
    func loaded(among sha256s: [String]) throws -> Set<String>
    /// Records that a payload was loaded in this run (archive index).
    func markLoaded(_ payload: RawPayload, itemCount: Int, archivePath: String?) throws
    /// Sets a bookmark of this run's pipeline (e.g. the newest hour loaded).
    func setBookmark(_ name: String, to value: String) throws
    /// Upserts `drift` of `source` `operation` in `field_drift` for this run's pipeline: a new
    /// row first seen and last seen at `seenAt` with a payload count of 1, else last seen,
    /// payload count + 1 and the sample updated.
    func recordFieldDrift(_ drift: FieldDrift, source: String, operation: String, seenAt: Date) throws
    /// Evaluates `checks` on what the open transaction holds (this run's rows included),
    /// reading only: the connection is switched to query-only while they run, and a statement
    /// that would write is refused. Records nothing; a check that cannot be evaluated gives a
    /// result with status `error`.
    func evaluate(_ checks: [DataCheck], context: CheckContext) throws -> [CheckResult]
    /// Records check results with this run; they commit with the load.
    func record(_ results: [CheckResult]) throws
    /// Has the ledger mark this run `failed` with `error` when the load commits: an `error`
    /// check that keeps its rows.
    func markFailed(_ error: String)
    /// Writes the rows the session holds back (`upsertBatched`) and returns the outcomes of the
    /// deferred writes written since the last call. The runner calls it after each payload's
    /// records; a store that writes every row at once returns no counts.
    func settle() throws -> LoadCounts
}

extension LoadSession {
    public func settle() throws -> LoadCounts { LoadCounts() }
    public func loaded(among sha256s: [String]) throws -> Set<String> { Set(try sha256s.filter { try wasLoaded(sha256: $0) }) }
}

/// The run ledger and the transaction boundary. Implemented by Storage.
public protocol RunStore: Sendable {
    /// Records a run as started (committed at once, so a crash leaves it visibly unfinished).
    func beginRun(pipeline: String, mode: RunMode, startedAt: Date) throws -> RunID
    /// Runs `body` in one write transaction; on return the rows, bookmarks and the ledger row
    /// (status succeeded, counts) commit together. If `body` throws nothing is kept and the
    /// error propagates (the caller then calls `failRun`).
    func load(run: RunID, finishedAt: @escaping @Sendable () -> Date, _ body: (LoadSession) throws -> LoadCounts) throws -> LoadCounts
    /// Marks a run failed with a one-line error.
    func failRun(_ run: RunID, error: String, finishedAt: Date) throws
    /// Records the check results of a run whose load was rolled back (in a transaction of
    /// their own, so a failed run still says which checks failed).
    func recordCheckResults(_ results: [CheckResult], run: RunID) throws
}
