import Foundation

// Declared data checks and snapshots: what a pipeline file's `checks:` and `snapshots:` say,
// after validation, and what evaluating a check found. Store-neutral values: a store turns a
// `DataCheck` into its own SQL (Storage's `CheckSQL` for SQLite) and evaluates it inside the
// load's transaction (`LoadSession.evaluate`); the runner decides what a failure does.

// MARK: - Checks

/// What a failing check does to its run.
public enum CheckSeverity: String, Sendable, Codable, CaseIterable {
    /// Recorded in `check_result` and shown; the run still succeeds.
    case warn
    /// Fails the run (exit 1, ledger `failed`); `CheckFailureAction` says whether its rows stay.
    case error
}

/// What an `error` check that fails does to the rows of its run.
public enum CheckFailureAction: String, Sendable, Codable, CaseIterable {
    /// Nothing of the run is kept: the load's transaction is rolled back (the default).
    case rollback
    /// The rows commit, and the run is recorded as `failed` with the check named.
    case keep
}

/// One declared check of a pipeline, validated against the schema (`PipelineCatalog`).
public struct DataCheck: Sendable, Hashable {
    /// What is checked. Built-ins look at a table (or view); `sql` is a statement that must
    /// return no rows (dbt's convention).
    public enum Kind: Sendable, Hashable {
        /// No row has NULL in any of `columns`.
        case notNull(columns: [String])
        /// No two rows share the values of `columns` (rows with a NULL among them are left out,
        /// as SQL's UNIQUE does).
        case unique(columns: [String])
        /// Every non-NULL value of `column` is one of `values` (numbers compare as numbers).
        case acceptedValues(column: String, values: [String])
        /// Every non-NULL value of `column` lies within `min`…`max` (either may be absent).
        case acceptedRange(column: String, min: Double?, max: Double?, minInclusive: Bool, maxInclusive: Bool)
        /// Every non-NULL value of `column` exists in `toColumn` of table `to`.
        case relationships(column: String, to: String, toColumn: String)
        /// The run wrote (inserted, updated or confirmed) between `min` and `max` rows to the table.
        case rowCount(min: Int?, max: Int?)
        /// The newest value of `column` (UTC, ISO-8601) is at most `maxAge` seconds old when a
        /// live run loads; fixture and replay runs carry old data by design and skip it.
        case freshness(column: String, maxAge: TimeInterval)
        /// Of the station-hours expected in the newest `hours` hours of the table — every
        /// `entity` seen in that window, for every hour — at least the share `min` (0…1) has a
        /// row (with a non-NULL `column`, when given). `time` holds UTC ISO-8601 times.
        case completeness(entity: String, time: String, column: String?, hours: Int, min: Double)
        /// `sql` must return no rows; it may use `:run_id` and `:pipeline`.
        case sql(String)

        /// The name pipeline files use for the kind (`not_null`).
        public var name: String {
            switch self {
            case .notNull: "not_null"
            case .unique: "unique"
            case .acceptedValues: "accepted_values"
            case .acceptedRange: "accepted_range"
            case .relationships: "relationships"
            case .rowCount: "row_count"
            case .freshness: "freshness"
            case .completeness: "completeness"
            case .sql: "sql"
            }
        }

        /// Every kind's name, as pipeline files write them.
        public static let names = ["not_null", "unique", "accepted_values", "accepted_range", "relationships", "row_count",
                                   "freshness", "completeness", "sql"]
    }

    /// Unique within the pipeline; given in the file or made from kind, table and columns
    /// (`not_null(measurement.station_name)`).
    public var name: String
    public var kind: Kind
    /// The table or view a built-in check looks at; nil for `sql`.
    public var table: String?
    /// An SQL condition that limits the rows a built-in check looks at (`sido = '서울'`).
    public var filter: String?
    public var severity: CheckSeverity
    public var onFailure: CheckFailureAction
    /// Said when the check fails, instead of the standard sentence.
    public var message: String?

    public init(name: String, kind: Kind, table: String?, filter: String? = nil, severity: CheckSeverity = .error,
                onFailure: CheckFailureAction = .rollback, message: String? = nil) {
        self.name = name; self.kind = kind; self.table = table; self.filter = filter
        self.severity = severity; self.onFailure = onFailure; self.message = message
    }

    /// At most this many failing rows are kept with a result, as a sample.
    public static let sampleLimit = 5
}

/// What a check looks at besides the data: the run and how it got its payloads.
public struct CheckContext: Sendable {
    public var run: RunID
    public var pipeline: String
    public var mode: RunMode
    /// "Now" for `freshness`.
    public var asOf: Date
    /// Payloads this run loaded (not counting those already loaded before); a run that loaded
    /// none skips `row_count`.
    public var payloadsLoaded: Int

    public init(run: RunID, pipeline: String, mode: RunMode, asOf: Date, payloadsLoaded: Int) {
        self.run = run; self.pipeline = pipeline; self.mode = mode; self.asOf = asOf; self.payloadsLoaded = payloadsLoaded
    }
}

// MARK: - Results

/// What evaluating one check found, as recorded in `check_result` and shown by the commands.
public struct CheckResult: Sendable, Hashable {
    public enum Status: String, Sendable, Codable {
        /// The data meets the check.
        case passed
        /// The data does not meet the check.
        case failed
        /// The check does not apply to this run (freshness of fixtures, row_count of a run that
        /// loaded nothing new); `message` says why.
        case skipped
        /// The check could not be evaluated (an SQL error at run time); counts as failing.
        case error
    }

    public var name: String
    /// `not_null`, `unique`, …, `sql`.
    public var kind: String
    public var table: String?
    public var severity: CheckSeverity
    public var onFailure: CheckFailureAction
    public var status: Status
    /// Rows that break the check (duplicate groups for `unique`, missing station-hours for
    /// `completeness`); nil for checks on a whole (`row_count`, `freshness`).
    public var failingRows: Int?
    /// What was found, as a sentence.
    public var message: String
    /// Column names of the sample rows.
    public var sampleColumns: [String]
    /// Up to `DataCheck.sampleLimit` failing rows (or, for aggregates, the figures behind the
    /// result), values in `sampleColumns` order, each cell bounded (`SampleCell`).
    public private(set) var sampleRows: [[StoreValue]]

    public init(name: String, kind: String, table: String?, severity: CheckSeverity, onFailure: CheckFailureAction,
                status: Status, failingRows: Int?, message: String, sampleColumns: [String] = [], sampleRows: [[StoreValue]] = []) {
        self.name = name; self.kind = kind; self.table = table; self.severity = severity; self.onFailure = onFailure
        self.status = status; self.failingRows = failingRows; self.message = message
        self.sampleColumns = sampleColumns; self.sampleRows = sampleRows.map { $0.map(SampleCell.bounded) }
    }

    /// A result for `check` (its name, kind, table, severity and action) with what was found.
    public init(_ check: DataCheck, status: Status, failingRows: Int?, message: String,
                sampleColumns: [String] = [], sampleRows: [[StoreValue]] = []) {
        self.init(name: check.name, kind: check.kind.name, table: check.table, severity: check.severity, onFailure: check.onFailure,
                  status: status, failingRows: failingRows, message: message, sampleColumns: sampleColumns, sampleRows: sampleRows)
    }

    /// Failed or could not be evaluated.
    public var isFailing: Bool { status == .failed || status == .error }
    /// Failing with severity `error`: the run fails.
    public var failsRun: Bool { isFailing && severity == .error }
    /// Failing with severity `warn`: recorded only.
    public var isWarning: Bool { isFailing && severity == .warn }
}

extension Array where Element == CheckResult {
    /// `3 passed, 1 warned, 1 failed, 1 skipped` (only the counts that are not zero); `no checks` when empty.
    public var tally: String {
        guard !isEmpty else { return "no checks" }
        let failed = filter(\.failsRun).count, warned = filter(\.isWarning).count
        let passed = filter { $0.status == .passed }.count, skipped = filter { $0.status == .skipped }.count
        var parts: [String] = []
        if passed > 0 { parts.append("\(passed) passed") }
        if warned > 0 { parts.append("\(warned) warned") }
        if failed > 0 { parts.append("\(failed) failed") }
        if skipped > 0 { parts.append("\(skipped) skipped") }
        return parts.joined(separator: ", ")
    }
}

/// The run's error when `error` checks failed: what failed, and whether the rows were kept.
public struct CheckFailure: Error, Sendable, CustomStringConvertible {
    public var results: [CheckResult]
    /// True when the load was rolled back (any failing check asked for it).
    public var rolledBack: Bool

    public init(results: [CheckResult], rolledBack: Bool) { self.results = results; self.rolledBack = rolledBack }

    public var description: String {
        let failing = results.filter(\.failsRun)
        let named = failing.map { "'\($0.name)' (\($0.message))" }.joined(separator: "; ")
        let what = failing.count == 1 ? "check" : "checks"
        return rolledBack
            ? "The \(what) \(named) failed; the load was rolled back and nothing of this run was kept."
            : "The \(what) \(named) failed; the rows were kept and the run is marked failed."
    }
}

// MARK: - Snapshots

/// What a pipeline's fixtures must produce in one table: the rows `feedline snapshot` writes and
/// `feedline check` compares.
public struct SnapshotSpec: Sendable, Hashable {
    public enum Format: String, Sendable, CaseIterable {
        case csv, json
    }

    public var table: String
    /// Columns written, in order (key columns first).
    public var columns: [String]
    /// The columns that identify a row in a diff; rows are sorted by them (then by the rest).
    public var key: [String]
    /// An SQL condition selecting the rows, or nil for all.
    public var filter: String?
    public var format: Format
    /// The file, relative to the fixtures directory (`airkorea/snapshots/airkorea-seoul.measurement.csv`).
    public var file: String

    public init(table: String, columns: [String], key: [String], filter: String?, format: Format, file: String) {
        self.table = table; self.columns = columns; self.key = key; self.filter = filter; self.format = format; self.file = file
    }
}

// MARK: - Results every store words the same way

extension DataCheck {
    /// A `row_count` check's result from the rows the load wrote to its table (skipped when
    /// the run loaded no new payload).
    public func rowCountResult(rowsWritten rows: Int, payloadsLoaded: Int) -> CheckResult {
        guard case .rowCount(let min, let max) = kind else { return CheckResult(self, status: .error, failingRows: nil, message: "is not a row_count check") }
        guard payloadsLoaded > 0 else {
            return CheckResult(self, status: .skipped, failingRows: nil,
                               message: "the run loaded no new payload (every one was loaded before), so it wrote no rows to count")
        }
        let table = self.table ?? ""
        let bounds = Self.bounds(min: min.map(Double.init), max: max.map(Double.init), minInclusive: true, maxInclusive: true, integers: true)
        let inside = (min.map { rows >= $0 } ?? true) && (max.map { rows <= $0 } ?? true)
        return CheckResult(self, status: inside ? .passed : .failed, failingRows: nil,
                           message: inside ? "the run wrote \(rows) row\(rows == 1 ? "" : "s") to \(table) (expected \(bounds))"
                               : message.map { "\($0) (the run wrote \(rows) rows to \(table))" }
                               ?? "the run wrote \(rows) row\(rows == 1 ? "" : "s") to \(table); expected \(bounds)",
                           sampleColumns: ["rows_written"], sampleRows: [[.integer(Int64(rows))]])
    }

    /// The result of a freshness check on a run that is not live (skipped), nil on a live run.
    public func freshnessSkipped(_ context: CheckContext) -> CheckResult? {
        guard context.mode != .live else { return nil }
        return CheckResult(self, status: .skipped, failingRows: nil,
                           message: "freshness is judged on live runs only; \(context.mode.rawValue) runs load recorded data")
    }

    /// The result of a failing-rows check (not_null, unique, accepted_values, accepted_range,
    /// relationships) that found `count` rows, with up to five of them.
    public func failingRowsResult(count: Int, columns: [String], sample: [[StoreValue]]) -> CheckResult {
        let text = count == 0 ? passedText : message.map { "\($0) (\(count) row\(count == 1 ? "" : "s"))" } ?? failedText(count: count)
        return CheckResult(self, status: count == 0 ? .passed : .failed, failingRows: count, message: text,
                           sampleColumns: columns, sampleRows: sample)
    }


    var passedText: String {
        let check = self
        let table = check.table ?? ""
        let scope = check.filter.map { " (where \($0))" } ?? ""
        switch check.kind {
        case .notNull(let columns): return "no NULL in \(table).\(columns.joined(separator: ", "))\(scope)"
        case .unique(let columns): return "every (\(columns.joined(separator: ", "))) of \(table) is unique\(scope)"
        case .acceptedValues(let column, let values): return "every \(table).\(column) is one of \(values.joined(separator: ", "))\(scope)"
        case .acceptedRange(let column, let min, let max, let minInclusive, let maxInclusive):
            return "every \(table).\(column) lies \(Self.bounds(min: min, max: max, minInclusive: minInclusive, maxInclusive: maxInclusive, integers: false))\(scope)"
        case .relationships(let column, let to, let toColumn): return "every \(table).\(column) has a match in \(to).\(toColumn)\(scope)"
        default: return "passed"
        }
    }

    func failedText(count: Int) -> String {
        let check = self
        let table = check.table ?? ""
        let rows = "\(count) row\(count == 1 ? "" : "s") of \(table)", hold = count == 1 ? "holds" : "hold"
        let scope = check.filter.map { " (where \($0))" } ?? ""
        switch check.kind {
        case .notNull(let columns): return "\(rows) \(count == 1 ? "has" : "have") NULL in \(columns.joined(separator: " or "))\(scope)"
        case .unique(let columns):
            return "\(count) value\(count == 1 ? "" : "s") of (\(columns.joined(separator: ", "))) occur\(count == 1 ? "s" : "") more than once in \(table)\(scope)"
        case .acceptedValues(let column, let values): return "\(rows) \(hold) a \(column) that is not one of \(values.joined(separator: ", "))\(scope)"
        case .acceptedRange(let column, let min, let max, let minInclusive, let maxInclusive):
            return "\(rows) \(hold) a \(column) that is not \(Self.bounds(min: min, max: max, minInclusive: minInclusive, maxInclusive: maxInclusive, integers: false))\(scope)"
        case .relationships(let column, let to, let toColumn): return "\(rows) \(hold) a \(column) with no match in \(to).\(toColumn)\(scope)"
        default: return "\(rows) break it"
        }
    }

    /// `between 0 and 1000`, `at least 1`, `above 0`, `at most 5`.
    public static func bounds(min: Double?, max: Double?, minInclusive: Bool, maxInclusive: Bool, integers: Bool) -> String {
        func n(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        switch (min, max) {
        case let (min?, max?) where minInclusive && maxInclusive: return "between \(n(min)) and \(n(max))"
        case let (min?, max?):
            return "\(minInclusive ? "at least" : "above") \(n(min)) and \(maxInclusive ? "at most" : "below") \(n(max))"
        case let (min?, nil): return "\(minInclusive ? "at least" : "above") \(n(min))"
        case let (nil, max?): return "\(maxInclusive ? "at most" : "below") \(n(max))"
        case (nil, nil): return "anything"
        }
    }

    /// `45s`, `12m`, `3h05m`, `2d04h`.
    public static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" }
        if s < 86400 { return "\(s / 3600)h\(String(format: "%02d", s % 3600 / 60))m" }
        return "\(s / 86400)d\(String(format: "%02d", s % 86400 / 3600))h"
    }

    /// `87.5%`.
    public static func percent(_ share: Double) -> String {
        let value = (share * 1000).rounded() / 10
        return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
    }
}
