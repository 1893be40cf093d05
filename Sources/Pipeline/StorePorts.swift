import Domain
import Foundation

// The ports a store offers the commands beyond `RunStore` and `QuotaLedger`: run locks shared by
// every host writing to one database, and the reads behind `status`, the scheduler, dry runs,
// backfill and `intake`. SQLite implements them today (Storage); a second store implements the
// same, and the commands never see which one they have.

// MARK: - Values

/// Who holds a pipeline's run lock (a row of `run_lock`).
public struct RunLockHolder: Sendable, Hashable {
    public var pipeline: String
    /// Unique per acquisition (`host:pid:uuid`).
    public var holder: String
    public var pid: Int32
    public var host: String
    public var acquiredAt: Date
    public var heartbeatAt: Date

    public init(pipeline: String, holder: String, pid: Int32, host: String, acquiredAt: Date, heartbeatAt: Date) {
        self.pipeline = pipeline; self.holder = holder; self.pid = pid; self.host = host
        self.acquiredAt = acquiredAt; self.heartbeatAt = heartbeatAt
    }
}

/// The result of trying to take a run lock.
public enum RunLockOutcome: Sendable, Hashable {
    /// The lock is ours; `tookOverFrom` is the stale holder it was taken from, if any.
    case acquired(tookOverFrom: RunLockHolder?)
    /// Someone live holds it.
    case held(by: RunLockHolder)
}

/// When a holder counts as stale: its process is gone from this host, or it has not
/// refreshed its heartbeat within the timeout (the only test that works across hosts).
public struct RunLockStaleness: Sendable {
    /// This host's name, as stored in `run_lock.host`.
    public var host: String
    /// A holder whose heartbeat is older than this is stale, wherever it runs.
    public var heartbeatTimeout: TimeInterval
    /// Whether a process id is alive on this host (`kill(pid, 0)` is not ESRCH).
    public var isProcessAlive: @Sendable (Int32) -> Bool

    public init(host: String, heartbeatTimeout: TimeInterval, isProcessAlive: @escaping @Sendable (Int32) -> Bool) {
        self.host = host; self.heartbeatTimeout = heartbeatTimeout; self.isProcessAlive = isProcessAlive
    }

    /// Whether `holder` may be replaced at `now`.
    public func isStale(_ holder: RunLockHolder, now: Date) -> Bool {
        if holder.heartbeatAt < now.addingTimeInterval(-heartbeatTimeout) { return true }
        return holder.host == host && !isProcessAlive(holder.pid)
    }
}

/// The newest run of one pipeline, from the ledger, with what is known about its data.
public struct PipelineRunSummary: Sendable, Hashable {
    public var pipeline: String
    public var run: RunID
    public var mode: RunMode?
    public var startedAt: Date?
    public var finishedAt: Date?
    /// `running`, `succeeded`, `failed` or `abandoned`.
    public var status: String
    public var rowsInserted: Int
    public var rowsUpdated: Int
    public var rowsUnchanged: Int
    public var diagnostics: Int
    public var error: String?
    /// When the newest successful run of this pipeline finished.
    public var lastSuccessAt: Date?
    /// The newest observation loaded (`newest_observed_at` bookmark), for measurement pipelines.
    public var newestObservedAt: Date?

    public init(pipeline: String, run: RunID, mode: RunMode?, startedAt: Date?, finishedAt: Date?, status: String,
                rowsInserted: Int, rowsUpdated: Int, rowsUnchanged: Int, diagnostics: Int, error: String?,
                lastSuccessAt: Date?, newestObservedAt: Date?) {
        self.pipeline = pipeline; self.run = run; self.mode = mode; self.startedAt = startedAt; self.finishedAt = finishedAt
        self.status = status; self.rowsInserted = rowsInserted; self.rowsUpdated = rowsUpdated; self.rowsUnchanged = rowsUnchanged
        self.diagnostics = diagnostics; self.error = error; self.lastSuccessAt = lastSuccessAt; self.newestObservedAt = newestObservedAt
    }
}

/// Calls made on one day under one quota scope, as `feedline status` shows them.
public struct QuotaUsage: Sendable, Equatable {
    public var source: String
    public var api: String
    public var credentialVariable: String
    public var calls: Int

    public init(source: String, api: String, credentialVariable: String, calls: Int) {
        self.source = source; self.api = api; self.credentialVariable = credentialVariable; self.calls = calls
    }
}

/// The time a table's data itself carries, as opposed to when it was loaded.
public enum DataTimeKind: String, Sendable, Codable {
    /// The end of the newest measured hour (a pipeline's `newest_observed_at` bookmark).
    case measured
    /// The newest release of a forecast (a table's declared `DataTimeColumn`).
    case issued
    /// The newest modification of a record (a table's declared `DataTimeColumn`).
    case modified
    /// Only the load time is known (reference lists).
    case loaded
}


// MARK: - Ports

/// One run per pipeline across every process and host writing to the database.
public protocol RunLockService: AnyObject, Sendable {
    /// Takes `pipeline`'s lock for `holder` unless a live holder has it (a stale one is taken over).
    func acquireRunLock(pipeline: String, holder: String, pid: Int32, now: Date, staleness: RunLockStaleness) throws -> RunLockOutcome
    /// Refreshes the holder's heartbeat; false when the lock is no longer its own.
    func heartbeatRunLock(pipeline: String, holder: String, now: Date) throws -> Bool
    /// Gives the lock up (nothing happens when another holder has it).
    func releaseRunLock(pipeline: String, holder: String) throws
    /// Every lock held now.
    func runLocks() throws -> [RunLockHolder]
    /// Claims scheduled slot `slot` of `pipeline` in `mode` for a scheduler on `host`: true when
    /// no scheduler (on any host) claimed it before, false when one did. One statement, so two
    /// schedulers never both get true.
    func claimSlot(pipeline: String, mode: RunMode, slot: Date, host: String, now: Date) throws -> Bool
}

/// What the commands read from the ledger and the data besides loading.
public protocol LedgerReading: Sendable {
    /// Where the store is, for messages (a path, or a URL without its password).
    var location: String { get }
    /// When each pipeline's newest run (of `mode`, when given) started.
    func lastRunStarts(mode: RunMode?) throws -> [String: Date]
    /// The newest run of every pipeline.
    func pipelineRunSummaries() throws -> [PipelineRunSummary]
    /// Calls counted on `day` (KST) per quota scope.
    func quotaUsage(on day: LocalDate) throws -> [QuotaUsage]
    /// Calls counted on `day` for each of `scopes`.
    func callsMade(_ scopes: [QuotaScope], on day: LocalDate) throws -> [QuotaScope: Int]
    /// A pipeline's bookmarks (name → value).
    func bookmarks(pipeline: String) throws -> [String: String]
    /// Whether a table or view called `name` exists.
    func hasTable(_ name: String) throws -> Bool
    /// The check results recorded with `run`, in check order (without their sample rows).
    func checkResults(run: RunID) throws -> [CheckResult]
    /// Read-only SQL on the same database, for what a feed asks of its own tables (its declared
    /// queries) and for the readers (`describe`, `query`, `report`).
    func reading() throws -> any DatabaseReading
}

/// A named point (a monitoring station, a geocoded place), WGS84 degrees: what a feed's
/// coordinate query gives for a `{stations}`-like placeholder.
public struct NamedCoordinate: Sendable, Hashable {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public init(name: String, latitude: Double, longitude: Double) { self.name = name; self.latitude = latitude; self.longitude = longitude }

    /// Every row of `table` with both coordinates, named by `nameColumn` and ordered by it
    /// (empty when the table does not exist yet): what a feed's coordinate placeholder reads.
    public static func all(in table: String, named nameColumn: String, from database: any SQLReading) throws -> [NamedCoordinate] {
        guard try database.hasTable(table) else { return [] }
        return try database.fetchAll(sql: """
            SELECT \(nameColumn), latitude, longitude FROM \(table)
            WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY \(nameColumn)
            """).rows.compactMap { row in
            guard let name = row[0].text, let latitude = row[1].number, let longitude = row[2].number else { return nil }
            return NamedCoordinate(name: name, latitude: latitude, longitude: longitude)
        }
    }
}

/// Everything the commands need of a store: the ledger and transaction boundary, quota
/// counting, run locks and reads. Opened only by the composition root.
public typealias FeedlineStore = RunStore & QuotaLedger & RunLockService & LedgerReading & BookmarkState

/// Every pipeline's bookmarks as a whole, for `feedline state`: shown, exported, imported and
/// cleared. Names and values are the store's text as it is (no feed interprets them here).
public protocol BookmarkState: Sendable {
    /// Every bookmark: pipeline → bookmark name → value.
    func allBookmarks() throws -> [String: [String: String]]
    /// The pipelines the ledger knows: those with a run or a bookmark.
    func ledgerPipelines() throws -> Set<String>
    /// In one transaction: each pipeline of `bookmarks` holds exactly the bookmarks given for it
    /// afterwards (its others removed; an empty set clears it); pipelines not named are left as
    /// they are. Each such pipeline gets a ledger row `PIPELINE:state-import` (mode replay,
    /// status succeeded, no rows) recorded at `at`, which its bookmarks name as the run that set
    /// them. On any error nothing is changed.
    func replaceBookmarks(_ bookmarks: [String: [String: String]], at: Date) throws
    /// Removes every bookmark of `pipeline`, in one transaction; how many there were.
    func clearBookmarks(pipeline: String) throws -> Int
}

/// The ledger row an import of bookmarks records for `pipeline`.
public func stateImportRunName(_ pipeline: String) -> String { "\(pipeline):state-import" }

/// A store's tables read for copying them into another store (`feedline store copy`).
public protocol TableExport {
    /// Where the rows come from, for messages.
    var location: String { get }
    /// The store's tables (not views, not the store's own bookkeeping), each with its columns.
    func tables() throws -> [ExportedTable]
    /// Calls `body` with the rows of `table` (values in `columns` order), `chunk` rows at a
    /// time, in the order they were inserted.
    func rows(of table: String, columns: [String], chunk: Int, _ body: ([[StoreValue]]) throws -> Void) throws
}

/// A store that takes every table of another store (`feedline store copy`): into an empty
/// store, or one emptied first when `replace`; a target already holding the same rows is left
/// as it is.
public protocol TableImport {
    /// Where the rows go, for messages.
    var location: String { get }
    /// Copies every table of `source`, calling `progress` with the table, rows copied and rows
    /// in all as it goes.
    func copy(from source: any TableExport, replace: Bool,
              progress: (_ table: String, _ copied: Int, _ of: Int) -> Void) throws -> StoreCopyReport
}

/// One table of a `TableExport`.
public struct ExportedTable: Sendable, Hashable {
    public let name: String
    public let columns: [String]
    public let rowCount: Int

    public init(name: String, columns: [String], rowCount: Int) {
        self.name = name; self.columns = columns; self.rowCount = rowCount
    }
}

/// What a copy did, table by table.
public struct StoreCopyReport: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// Every table copied into an empty (or emptied) store; counts verified.
        case copied
        /// The target already held the same rows in every table and the same runs: nothing written.
        case alreadyCopied
    }
    public var outcome: Outcome
    /// Per table in copy order: rows in the source, rows in the target afterwards.
    public var tables: [(name: String, source: Int, target: Int)]

    public init(outcome: Outcome, tables: [(name: String, source: Int, target: Int)]) {
        self.outcome = outcome; self.tables = tables
    }
}
