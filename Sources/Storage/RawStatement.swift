import Foundation
import GRDB
import GRDBSQLite
import Pipeline

/// A prepared write statement bound and stepped through SQLite's C API.
///
/// The measurement table takes one row per station-hour, tens of thousands per load. Going
/// through `StatementArguments` boxes each of the 40 values into an existential; binding each
/// value straight into the prepared statement does not. The statement itself still belongs to
/// GRDB (prepared on the load's connection, finalized with it), so transactions and error
/// reporting stay GRDB's.
struct RawStatement {
    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private var index: Int32 = 0

    init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
    }

    /// Starts a row: the next `bind` goes to the first parameter.
    mutating func begin() {
        index = 0
    }

    mutating func bind(_ value: String?) {
        index += 1
        guard var value else { sqlite3_bind_null(handle, index); return }
        let index = self.index, handle = self.handle
        value.withUTF8 { bytes in
            // An empty buffer may have no address, and a NULL pointer would bind NULL, not ''.
            let base = UnsafeRawPointer(bytes.baseAddress ?? Self.emptyText.utf8Start)
            _ = sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
        }
    }

    mutating func bind(_ value: Double?) {
        index += 1
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: Int?) {
        index += 1
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: StoreValue) {
        switch value {
        case .null: index += 1; sqlite3_bind_null(handle, index)
        case .integer(let v): index += 1; sqlite3_bind_int64(handle, index, v)
        case .real(let v): bind(v)
        case .text(let v): bind(v)
        }
    }

    /// Binds every value of `row`, in order, from the first parameter.
    mutating func bind(row: RowValues) {
        begin()
        for value in row.values { bind(value) }
    }

    /// Binds every value of an encoded row, in order, from the first parameter. Text is bound
    /// in place (`SQLITE_STATIC`): the row's buffer must outlive the next `run`, which is what
    /// `EncodedRows.forEach` guarantees, and `run` insists on a full binding before every step,
    /// so a value bound here is never read after its buffer is gone.
    mutating func bind(row: EncodedRow) {
        begin()
        append(row: row)
    }

    /// Binds every value of an encoded row, in order, from the parameter after the last one
    /// bound: a statement of several rows binds them one after another (`begin` first). Text is
    /// bound in place, as in `bind(row:)`.
    mutating func append(row: EncodedRow) {
        let handle = self.handle
        var index = self.index
        row.forEachValue { value in
            index += 1
            switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let v): sqlite3_bind_int64(handle, index, v)
            case .real(let v): sqlite3_bind_double(handle, index, v)
            case .text(let bytes):
                let base = UnsafeRawPointer(bytes.baseAddress ?? Self.emptyText.utf8Start)
                _ = sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)  // nil: SQLITE_STATIC
            }
        }
        self.index = index
    }

    /// Runs the bound statement; returns how many rows it changed. Every parameter must have
    /// been bound since the last run.
    mutating func run() throws -> Int {
        defer { sqlite3_reset(handle); index = 0 }
        guard index == sqlite3_bind_parameter_count(handle) else {
            throw DatabaseError(resultCode: .SQLITE_RANGE, message: "\(index) values bound for \(sqlite3_bind_parameter_count(handle)) parameters",
                                sql: statement.sql)
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        return Int(sqlite3_changes(connection))
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the text before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    private static let emptyText: StaticString = ""
}
