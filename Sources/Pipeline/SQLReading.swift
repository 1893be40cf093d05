import Foundation

// Read-only SQL on a store's database, for the readers (`report`, `intake`, `describe`, `query`)
// and for the questions a feed asks of its own tables (its declared queries). Each store adapts
// its own connection; the SQL must mean the same on all of them: standard functions, `:name`
// parameters, `CAST(:x AS TEXT)` where a parameter's type cannot be inferred, and
// `CAST(column AS TEXT)` to read a date or time as its ISO text.

// MARK: - Values

/// One value read by a `SQLReading`, in SQLite's storage classes (a PostgreSQL value arrives as
/// the nearest one). Consumed by `feedline query`'s formatters, the report and the feeds'
/// declared queries, so none of them sees a driver's types.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The value as a Double when it is a number (integer or real); nil otherwise.
    public var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .real(let d): d
        default: nil
        }
    }

    /// The value as text when it is text; nil otherwise.
    public var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    /// The value as an integer when it is an integer (or a whole real); nil otherwise.
    public var integer: Int? {
        switch self {
        case .integer(let i): Int(exactly: i)
        case .real(let d): Int(exactly: d)
        default: nil
        }
    }

    /// True for NULL.
    public var isNull: Bool { self == .null }

    /// Reads a command-line value: `null` (any case) → NULL; an integer or decimal written in its
    /// canonical form (`3`, `-12`, `2.5`) → a number; anything else (`007`, `서울`, `2024-03-06`) → text.
    public init(parameter text: String) {
        if text.lowercased() == "null" { self = .null; return }
        if let i = Int64(text), String(i) == text { self = .integer(i); return }
        if text.contains("."), !text.hasPrefix("."), !text.hasSuffix("."), let d = Double(text), d.isFinite,
           text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) {
            self = .real(d)
            return
        }
        self = .text(text)
    }

    /// A value a store adapter read (`StoreValue` has no blobs).
    public init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .real(v)
        case .text(let v): self = .text(v)
        }
    }

    /// The value as parameter text for a server that infers each parameter's type from the
    /// statement (nil for NULL; a blob as its UTF-8 text).
    public var parameterText: String? {
        switch self {
        case .null: nil
        case .integer(let v): String(v)
        case .real(let v): v.description
        case .text(let v): v
        case .blob(let v): String(decoding: v, as: UTF8.self)
        }
    }
}

// MARK: - Ports

/// Read-only SQL on one database: SQLite's read-only connection, or a read-only transaction
/// on PostgreSQL. Nothing it runs is ever written.
public protocol SQLReading {
    /// Runs one reading statement, streaming: `columns` once, then `row` per row. `timeout`
    /// (seconds; nil or 0: none) bounds the time the database spends computing rows.
    func run(sql: String, parameters: [String: SQLValue], timeout: TimeInterval?,
             columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws
    /// Whether a table or view called `name` exists.
    func hasTable(_ name: String) throws -> Bool
}

extension SQLReading {
    /// Every row of one reading statement (for small results).
    public func fetchAll(sql: String, parameters: [String: SQLValue] = [:]) throws -> (columns: [String], rows: [[SQLValue]]) {
        var names: [String] = []
        var rows: [[SQLValue]] = []
        try run(sql: sql, parameters: parameters, timeout: nil, columns: { names = $0 }, row: { rows.append($0) })
        return (names, rows)
    }

    public func run(sql: String, parameters: [String: SQLValue] = [:],
                    columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        try run(sql: sql, parameters: parameters, timeout: nil, columns: columns, row: row)
    }
}

/// Why a read did not give its rows, in words every store's reader shares.
public enum SQLReadFailure: Sendable, Equatable {
    /// The statement was refused before it ran: more than one, not a query, one that writes.
    case refused
    /// A `:name` parameter has no value.
    case missingParameter(String)
    /// The statement ran longer than its time limit and was stopped.
    case timedOut
    /// The database stayed locked, or could not be reached: worth trying again.
    case busy
    /// There is no database to read.
    case noDatabase
    /// The database rejected or failed the statement (syntax, an unknown table …).
    case failed
}

/// An error of a `SQLReading` that says which `SQLReadFailure` it is.
public protocol SQLReadError: Error, CustomStringConvertible {
    var failure: SQLReadFailure { get }
}

/// A whole database read: statements (`SQLReading`) and what `feedline query` and `describe`
/// need besides — the check of a statement before it runs, the tables and views with their
/// columns, and the schema steps the database has not had.
public protocol DatabaseReading: SQLReading {
    /// Where the database is, for messages (a path, or a URL without its password).
    var location: String { get }
    /// Checks that `sql` is exactly one reading statement without running it; its `:name`
    /// parameters in order of first use.
    func check(sql: String) throws -> [String]
    /// Every table and view with its columns (the store's own system catalog left out).
    func schema() throws -> DatabaseSchema
    /// The schema steps this feedline knows that the database has not had (a reader applies
    /// none; any read-write command does).
    func pendingMigrations() throws -> [String]
}

extension DatabaseReading {
    /// Rows in table or view `name`, or nil when counting took longer than `timeout` seconds or
    /// failed (a view over a table an older database lacks).
    public func rowCount(of name: String, timeout: TimeInterval) -> Int? {
        var count: Int?
        do {
            try run(sql: "SELECT count(*) FROM \(DatabaseSchema.quoted(name))", parameters: [:], timeout: timeout,
                    columns: { _ in }, row: { count = $0.first?.integer })
        } catch {
            return nil
        }
        return count
    }
}

// MARK: - Catalog

/// The tables and views a feedline database holds, with their columns as the database declares
/// them. Consumed by `feedline describe`, which joins it with the declared schema's meanings.
public struct DatabaseSchema: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case table
        case view
    }

    /// One table or view.
    public struct Relation: Sendable, Equatable {
        public let name: String
        public let kind: Kind
        public let columns: [Column]

        public init(name: String, kind: Kind, columns: [Column]) {
            self.name = name
            self.kind = kind
            self.columns = columns
        }
    }

    /// One column.
    public struct Column: Sendable, Equatable {
        public let name: String
        /// The declared type (SQLite: `TEXT`, `REAL`, `INTEGER`; PostgreSQL: `text`,
        /// `double precision`, `date` …); for a SQLite view's computed column often "".
        public let type: String
        public let notNull: Bool
        /// Position in the primary key, from 1; 0 when not part of it.
        public let primaryKeyPosition: Int

        public init(name: String, type: String, notNull: Bool = false, primaryKeyPosition: Int = 0) {
            self.name = name
            self.type = type
            self.notNull = notNull
            self.primaryKeyPosition = primaryKeyPosition
        }
    }

    /// Tables and views in creation order.
    public let relations: [Relation]

    public init(relations: [Relation]) {
        self.relations = relations
    }

    public func relation(_ name: String) -> Relation? {
        relations.first { $0.name == name }
    }

    /// `name` as an SQL identifier in double quotes.
    public static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
