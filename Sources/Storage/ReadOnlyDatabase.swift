import Foundation
import GRDB
import GRDBSQLite
import Pipeline

// MARK: - Values

/// GRDB's values as the neutral `SQLValue` (and back, for parameters).
extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .blob(b)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let i): i.databaseValue
        case .real(let d): d.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let b): b.databaseValue
        }
    }
}

// MARK: - Errors

/// Why a read-only query was not run or did not finish. Reads as a sentence.
public struct ReadOnlyQueryError: SQLReadError, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The database file does not exist.
        case noDatabase
        /// The statement would write, attach, change a setting, or there is more than one.
        case refused
        /// A `:name` parameter has no value.
        case missingParameter(String)
        /// SQLite rejected or failed the statement (syntax, unknown table…).
        case sqlite
        /// The statement ran longer than its time limit and was stopped.
        case timedOut
        /// The file stayed locked past the busy timeout (a first load into a new file holds it
        /// until it commits; see `DirectFirstLoad`): worth trying again.
        case busy
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    public var failure: SQLReadFailure {
        switch kind {
        case .noDatabase: .noDatabase
        case .refused: .refused
        case .missingParameter(let name): .missingParameter(name)
        case .sqlite: .failed
        case .timedOut: .timedOut
        case .busy: .busy
        }
    }
}

// MARK: - The read-only connection

/// A read-only connection to the feedline database, for `feedline query`, reports and status.
///
/// Opened with `SQLITE_OPEN_READONLY` (GRDB `Configuration.readonly`) and `PRAGMA query_only`, so
/// nothing it runs can change the file; in WAL mode it reads a consistent snapshot and neither
/// blocks a running load nor is blocked by it (except the first load into a new file, which
/// writes the file directly: opening waits for its commit, `DirectFirstLoad`). It never creates
/// the file and never migrates.
public final class ReadOnlyDatabase: @unchecked Sendable {
    /// `@unchecked Sendable`: GRDB's queue (or pool) serialises every access.
    private let queue: any DatabaseReader
    public let path: String

    /// Statements whose first keyword is one of these may run (then SQLite must also call them read-only).
    static let allowedFirstKeywords: Set<String> = ["SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA"]

    /// Pragmas that may take an argument and only read.
    static let readingPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "function_list", "pragma_list", "module_list",
        "collation_list", "database_list", "compile_options",
    ]

    /// Opens `path` read-only; throws `.noDatabase` when the file is missing (it is never created).
    public init(path: String, busyTimeout: TimeInterval = 5) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ReadOnlyQueryError(.noDatabase, "No database at \(path); run `feedline run` first (or pass --db PATH).")
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "feedline.readonly"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA query_only = 1")
            Self.limitValueLength(on: db.sqliteConnection)
        }
        do {
            // A read-only connection cannot read past a killed load's journal; this restores what was
            // committed. A journal that is not hot belongs to a first load still writing the file.
            try HotJournal.rollBack(path: path, busyTimeout: busyTimeout)
            self.queue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            throw ReadOnlyQueryError(.busy, "\(path) stayed locked for more than \(Self.seconds(busyTimeout)): a first load into a new file holds it until it commits; try again when the load has finished.")
        } catch {
            throw ReadOnlyQueryError(.sqlite, "Cannot open \(path) read-only: \(Self.describe(error)).")
        }
        self.path = path
    }

    /// Reads through `pool`'s read-only connections (a store already open on `path`), with the
    /// same statement checks as a connection of its own.
    init(pool: DatabasePool, path: String) {
        self.queue = pool
        self.path = path
    }

    // MARK: Schema

    /// Migrations this version of feedline knows that the file has not had applied (their views and
    /// tables are missing until any read-write command, such as `feedline run`, upgrades it).
    public func pendingMigrations() throws -> [String] {
        try read { db in
            let applied = try FeedlineMigrations.migrator.appliedIdentifiers(db)
            return (FeedlineMigrations.migrator.migrations + FeedlineMigrations.releasedDeclaredSteps + [SQLiteSchema.declaredStep])
                .filter { !applied.contains($0) }
        }
    }

    /// True when a table or view called `name` exists.
    public func hasTable(_ name: String) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?)",
                              arguments: [name]) ?? false
        }
    }

    /// The column names of table or view `name`, in order; empty when it does not exist.
    public func columns(of name: String) throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name]) }
    }

    // MARK: Queries

    /// Checks that `sql` is exactly one statement and would only read, without running it; returns
    /// the `:name` parameters it uses.
    @discardableResult
    public func check(sql: String) throws -> [String] {
        try read { db in try Self.prepareOne(db, sql: sql).names }
    }

    /// Runs one read-only statement with named parameters, streaming: `columns` is called once
    /// with the column names, then `row` once per row (values in column order), as SQLite steps.
    ///
    /// Refuses, without running it, anything that is not exactly one statement, that SQLite says
    /// would write (`sqlite3_stmt_readonly`), that attaches or detaches a database, or that sets a
    /// pragma. A `:name` with no value in `parameters` is an error naming it.
    ///
    /// `timeout` (seconds; nil or 0: none) bounds the time SQLite spends computing rows: a
    /// progress handler stops the statement once the steps together have taken longer, and the
    /// error is `.timedOut`. Time spent in `row` (writing output to a slow reader) does not count.
    public func run(sql: String, parameters: [String: SQLValue] = [:], timeout: TimeInterval? = nil,
                    columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        try read { db in
            let (statement, names) = try Self.prepareOne(db, sql: sql)
            if let missing = names.first(where: { parameters[$0] == nil }) {
                throw ReadOnlyQueryError(.missingParameter(missing), "The query uses :\(missing) but no value was given; pass --param \(missing)=VALUE.")
            }
            let arguments = StatementArguments(Dictionary(uniqueKeysWithValues: names.map { ($0, parameters[$0]!.databaseValue) }))
            let budget = timeout.flatMap { $0 > 0 && $0.isFinite ? StepBudget(seconds: $0) : nil }
            if let budget { budget.install(on: db.sqliteConnection) }
            defer { if let budget { StepBudget.remove(from: db.sqliteConnection); withExtendedLifetime(budget) {} } }
            do {
                try statement.setArguments(arguments)
                try columns(statement.columnNames)
                let cursor = try Row.fetchCursor(statement)
                while true {
                    budget?.beginStep()
                    let next = try cursor.next()
                    budget?.endStep()
                    guard let r = next else { break }
                    try row(r.databaseValues.map(SQLValue.init))
                }
            } catch let error as DatabaseError {
                if let budget, budget.expired {
                    throw ReadOnlyQueryError(.timedOut, "The query stopped after \(Self.seconds(budget.seconds)) (--timeout); "
                                             + "give a larger --timeout, or --timeout 0 for no limit.")
                }
                if error.resultCode == .SQLITE_TOOBIG { throw Self.valueTooLarge("The query") }
                throw ReadOnlyQueryError(.sqlite, Self.describe(error))
            }
        }
    }

    /// The most bytes one string or blob a query computes may hold (`SQLITE_LIMIT_LENGTH`):
    /// `randomblob(1e9)` would otherwise take a gigabyte of memory at once, in one step that no
    /// time limit can stop. Stored values are far smaller (a prose field is at most 64 KiB).
    public static let maximumValueBytes: Int32 = 64 << 20

    /// Bounds one value's size on `connection` to `maximumValueBytes`; returns the bound it had.
    @discardableResult
    static func limitValueLength(on connection: OpaquePointer?, to bytes: Int32 = maximumValueBytes) -> Int32 {
        sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, bytes)
    }

    /// The error for a value over `maximumValueBytes`.
    static func valueTooLarge(_ subject: String) -> ReadOnlyQueryError {
        ReadOnlyQueryError(.sqlite, "\(subject) computed a value larger than \(maximumValueBytes >> 20) MiB, the most one string or blob may hold; "
                           + "select less of it (substr(), length()) or fewer rows at once.")
    }

    /// `60 s`, `1.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int(value)) s" : "\(value) s"
    }

    // MARK: Internals

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.read(body)
        } catch let error as ReadOnlyQueryError {
            throw error
        } catch let error as DatabaseError {
            throw ReadOnlyQueryError(.sqlite, Self.describe(error))
        }
    }

    /// Prepares the only statement of `sql` and checks it reads; returns it with its `:name`s.
    /// `subject` names what refuses in messages (`feedline query`, `a check's SQL`).
    static func prepareOne(_ db: Database, sql: String, subject: String = "feedline query") throws -> (statement: Statement, names: [String]) {
        let statements = try db.allStatements(sql: sql)
        let statement: Statement
        do {
            guard let first = try statements.next() else {
                throw ReadOnlyQueryError(.refused, "The query is empty.")
            }
            statement = first
        } catch let error as DatabaseError {
            throw ReadOnlyQueryError(.sqlite, describe(error))
        }
        let more: Bool
        do { more = try statements.next() != nil } catch { more = true }
        if more {
            throw ReadOnlyQueryError(.refused, "Refused: only one SQL statement per query (found more after the first ';').")
        }
        let keyword = firstKeyword(of: sql)
        if keyword == "ATTACH" || keyword == "DETACH" {
            throw ReadOnlyQueryError(.refused, "Refused: \(subject) does not \(keyword.lowercased()) databases; it reads only the feedline database.")
        }
        guard statement.isReadonly else {
            throw ReadOnlyQueryError(.refused, "Refused: \(subject) is read-only and this \(keyword.isEmpty ? "statement" : keyword) statement would change the database. Nothing was run.")
        }
        guard allowedFirstKeywords.contains(keyword) else {
            throw ReadOnlyQueryError(.refused, "Refused: \(subject) runs SELECT, WITH, VALUES, EXPLAIN and reading PRAGMA statements, not \(keyword.isEmpty ? "this statement" : keyword).")
        }
        if keyword == "PRAGMA", let refusal = pragmaRefusal(sql, subject: subject) {
            throw ReadOnlyQueryError(.refused, refusal)
        }
        let names = statement.parameterNames
        if names.contains(where: { $0.isEmpty }) {
            throw ReadOnlyQueryError(.refused, "Positional parameters (?) are not supported; name them (:name) and pass --param name=VALUE.")
        }
        return (statement, names.filter { !$0.isEmpty }.uniqued())
    }

    /// A refusal for a pragma that would set something; nil for a reading pragma.
    static func pragmaRefusal(_ sql: String, subject: String = "feedline query") -> String? {
        let body = stripLeadingComments(sql).dropFirst("PRAGMA".count)
        let compact = body.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
        var name = compact.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
        if let dot = name.lastIndex(of: ".") { name = name[name.index(after: dot)...] }
        let rest = compact.dropFirst(compact.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }.count)
            .trimmingCharacters(in: .whitespaces)
        if rest.hasPrefix("=") {
            return "Refused: \(subject) does not change settings (PRAGMA \(name) = …). Nothing was run."
        }
        if rest.hasPrefix("("), !readingPragmas.contains(name.lowercased()) {
            return "Refused: PRAGMA \(name)(…) may change a setting; \(subject) allows only reading pragmas with an argument (\(readingPragmas.sorted().joined(separator: ", ")))."
        }
        return nil
    }

    /// The first keyword of `sql`, upper-cased, after white space and comments.
    static func firstKeyword(of sql: String) -> String {
        String(stripLeadingComments(sql).prefix { $0.isLetter }).uppercased()
    }

    static func stripLeadingComments(_ sql: String) -> Substring {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                if let end = rest.range(of: "*/") { rest = rest[end.upperBound...] } else { return "" }
            } else {
                return rest
            }
        }
    }

    static func describe(_ error: Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        let message = error.message ?? "\(error.resultCode)"
        if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            return "the database was busy for too long (\(message)); try again"
        }
        if error.extendedResultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_READONLY {
            return "Refused: the database is open read-only (\(message))"
        }
        return "SQLite: \(message)"
    }
}

// MARK: - Helpers

/// The time a statement may spend inside `sqlite3_step`, enforced by a SQLite progress handler
/// that interrupts the statement once the steps together have taken longer than `seconds`.
final class StepBudget {
    let seconds: TimeInterval
    private let limit: UInt64
    /// Nanoseconds spent in finished steps.
    private var spent: UInt64 = 0
    /// When the current step began; nil between steps.
    private var stepStart: UInt64?
    /// True once the handler has interrupted the statement.
    private(set) var expired = false

    /// SQLite virtual-machine instructions between two clock readings.
    static let instructionsPerCheck: Int32 = 10_000

    init(seconds: TimeInterval) {
        self.seconds = seconds
        self.limit = UInt64(min(seconds, 1e9) * 1e9)
    }

    func beginStep() { stepStart = Self.now() }

    func endStep() {
        if let start = stepStart { spent += Self.now() &- start }
        stepStart = nil
    }

    /// True when the running step has used up the budget (called by the progress handler).
    func isOver() -> Bool {
        guard let start = stepStart else { return false }
        if spent + (Self.now() &- start) > limit { expired = true }
        return expired
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Installs the progress handler on `connection`; the budget must outlive it (see `remove`).
    func install(on connection: OpaquePointer?) {
        sqlite3_progress_handler(connection, Self.instructionsPerCheck, { context in
            guard let context else { return 0 }
            return Unmanaged<StepBudget>.fromOpaque(context).takeUnretainedValue().isOver() ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    static func remove(from connection: OpaquePointer?) {
        sqlite3_progress_handler(connection, 0, nil, nil)
    }
}

extension Statement {
    /// The statement's parameter names without their `:`/`@`/`$` prefix, one per parameter
    /// slot; "" for a positional `?`.
    var parameterNames: [String] {
        let count = sqlite3_bind_parameter_count(sqliteStatement)
        guard count > 0 else { return [] }
        return (1...count).map { index in
            guard let name = sqlite3_bind_parameter_name(sqliteStatement, index) else { return "" }
            return String(String(cString: name).dropFirst())
        }
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
