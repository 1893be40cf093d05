import Domain
import Foundation
import GRDB
import GRDBSQLite
import Pipeline

/// Writes records inside the transaction `SQLiteStore.load` opened, through the writer each
/// feed registered for the record's type (`FeedSchema`), and implements the store-neutral
/// `TableWriting` port those writers use: natural-key upserts as `INSERT … DO NOTHING` then
/// `UPDATE … WHERE <a compared column differs>` (see `UpsertSQL`), child-row sets, appends.
final class GRDBLoadSession: LoadSession {
    let db: Database
    let run: RunID
    private let writers: [ObjectIdentifier: RecordWriter]
    private(set) var diagnosticCount = 0
    private var pipelineName: String?
    /// Prepared once per load and table: looking a statement up by its SQL text costs a hash of
    /// ~1 KB per row, and the measurement table takes tens of thousands of rows per load. A load
    /// writes one table for most of its rows, so the last one used is tried first.
    private var upsertStatements: [Int: UpsertStatements] = [:]
    private var lastUpsert: UpsertStatements?
    /// Rows already given to `upsertOnce`, per table spec.
    private var writtenOnce: [Int: Set<RowKey>] = [:]
    /// The same for encoded rows (`write(_:in:)`), by their values' bytes.
    private var writtenOnceEncoded = ByteRowSet()
    /// Diagnostics waiting to be inserted, in order (see `record(_:payload:)`).
    private var pendingDiagnostics: [(payloadSHA256: String?, diagnostic: Diagnostic)] = []
    /// `INSERT INTO diagnostic … VALUES (…), (…), …` for a full batch, and for one row (the tail).
    private var diagnosticBatchInsert: RawStatement?
    private var diagnosticInsert: RawStatement?
    /// Rows written or confirmed per table by writes other than upserts (upserts count theirs
    /// in `UpsertStatements.rows`): what `row_count` checks count.
    private var writesByTable: [String: Int] = [:]
    /// Set by `markFailed`: the ledger records the run as failed with this error when it commits.
    private(set) var failure: String?

    /// Diagnostics per multi-row insert. A synthetic week of AirKorea data gives one grade
    /// mismatch per five rows (22,000 per 107,520): one statement per diagnostic cost a step,
    /// a reset and a B-tree descent each; 64 rows share them (384 parameters, far below
    /// SQLite's limit of 32,766).
    static let diagnosticBatch = 64

    /// The two statements of one upsert spec, and the rows written or confirmed through them.
    private final class UpsertStatements {
        let spec: UpsertTable
        var insert: RawStatement
        var update: RawStatement
        var rows = 0
        /// `UpsertSQL.insert(_:rows:)` for `GRDBLoadSession.insertBatch` rows, prepared on first use.
        private var batch: Batch = .unprepared
        private enum Batch { case unprepared, prepared(RawStatement), tooManyParameters }

        /// The multi-row insert; nil when the table's columns would need more parameters than
        /// SQLite allows. (A `RawStatement` copy shares the prepared statement, and `run` leaves
        /// its binding position at the start again, so the copy handed out needs no writing back.)
        func batchInsert(db: Database) throws -> RawStatement? {
            if case .unprepared = batch {
                let parameters = spec.columns.count * GRDBLoadSession.insertBatch
                batch = parameters <= Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
                    ? .prepared(try RawStatement(db, sql: UpsertSQL.insert(spec, rows: GRDBLoadSession.insertBatch)))
                    : .tooManyParameters
            }
            if case .prepared(let statement) = batch { return statement }
            return nil
        }

        init(spec: UpsertTable, db: Database) throws {
            let sql = UpsertSQL(spec)
            self.spec = spec
            insert = try RawStatement(db, sql: sql.insert)
            update = try RawStatement(db, sql: sql.update)
        }

        func serves(_ table: UpsertTable) -> Bool { spec.fingerprint == table.fingerprint && spec.table == table.table }
    }

    init(db: Database, run: RunID, writers: [ObjectIdentifier: RecordWriter]) {
        self.db = db
        self.run = run
        self.writers = writers
    }

    var runID: RunID { run }

    /// A write after an error ended the load's transaction.
    struct TransactionEnded: Error, CustomStringConvertible {
        var description: String {
            "the load's transaction was ended by an earlier database error (disk full, I/O error, out of memory or an interrupt); nothing of this run is kept."
        }
    }

    /// Whether `db` has a transaction open (`sqlite3_get_autocommit`, without GRDB's queue check:
    /// it is asked once per write).
    @inline(__always)
    private static func isInsideTransaction(_ db: Database) -> Bool {
        sqlite3_get_autocommit(db.sqliteConnection) == 0
    }

    /// Every write goes through this: a load writes only inside its one transaction. SQLite
    /// ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, an
    /// interrupt); a write after that would run in autocommit mode and commit on its own, so a
    /// failed load would leave part of itself behind.
    @inline(__always)
    private func requireTransaction() throws {
        guard Self.isInsideTransaction(db) else { throw TransactionEnded() }
    }

    func write(_ record: FeedRecord, payload: RawPayload?) throws -> WriteOutcome {
        try requireTransaction()
        guard let writer = writers[ObjectIdentifier(record.recordType)] else {
            throw UnregisteredRecordError(recordType: String(describing: record.recordType))
        }
        return try writer.write(record.value, payload: payload, to: self)
    }

    /// Diagnostics are inserted `diagnosticBatch` at a time, in the order they were recorded, so
    /// the table ends up as with one insert each (the same rows, the same ids). Whatever reads
    /// the table inside the load (`evaluate`) and the ledger's count (`finish`) flush first.
    func record(_ diagnostic: Diagnostic, payload: RawPayload?) throws {
        pendingDiagnostics.append((payload?.sha256, diagnostic))
        diagnosticCount += 1
        if pendingDiagnostics.count >= Self.diagnosticBatch { try flushDiagnostics() }
    }

    /// Inserts the diagnostics still waiting.
    func flushDiagnostics() throws {
        guard !pendingDiagnostics.isEmpty else { return }
        try requireTransaction()
        defer { pendingDiagnostics.removeAll(keepingCapacity: true) }
        let columns = "INSERT INTO diagnostic (run_id, payload_sha256, code, message, location, value) VALUES "
        let row = "(?, ?, ?, ?, ?, ?)"
        if pendingDiagnostics.count == Self.diagnosticBatch {
            var insert = try diagnosticBatchInsert
                ?? RawStatement(db, sql: columns + repeatElement(row, count: Self.diagnosticBatch).joined(separator: ", "))
            defer { diagnosticBatchInsert = insert }
            insert.begin()
            for (sha256, diagnostic) in pendingDiagnostics { bind(diagnostic, payload: sha256, to: &insert) }
            _ = try insert.run()
            return
        }
        var insert = try diagnosticInsert ?? RawStatement(db, sql: columns + row)
        defer { diagnosticInsert = insert }
        for (sha256, diagnostic) in pendingDiagnostics {
            insert.begin()
            bind(diagnostic, payload: sha256, to: &insert)
            _ = try insert.run()
        }
    }

    private func bind(_ diagnostic: Diagnostic, payload sha256: String?, to insert: inout RawStatement) {
        insert.bind(Int(run.rawValue)); insert.bind(sha256); insert.bind(diagnostic.code.rawValue)
        insert.bind(diagnostic.message); insert.bind(diagnostic.location); insert.bind(diagnostic.value)
    }

    /// Writes what is still buffered; `SQLiteStore.load` calls it before the ledger row.
    func finish() throws {
        try flushDiagnostics()
    }

    func wasLoaded(sha256: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM payload WHERE sha256 = ?)", arguments: [sha256]) ?? false
    }

    func markLoaded(_ payload: RawPayload, itemCount: Int, archivePath: String?) throws {
        try requireTransaction()
        try db.execute(sql: """
            INSERT INTO payload (sha256, source, operation, format, request_url, fetched_at, http_status, content_type,
                                 byte_count, item_count, archive_path, run_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (sha256) DO NOTHING
            """, arguments: [payload.sha256, payload.source, payload.operation, payload.format.rawValue,
                             payload.request?.displayURL, iso8601UTC(payload.fetchedAt), payload.httpStatus,
                             payload.contentType, payload.byteCount, itemCount, archivePath, run.rawValue])
    }

    func setBookmark(_ name: String, to value: String) throws {
        try requireTransaction()
        let pipeline = try pipelineName ?? String.fetchOne(db, sql: "SELECT pipeline FROM run WHERE id = ?", arguments: [run.rawValue]) ?? "?"
        pipelineName = pipeline
        try db.execute(sql: """
            INSERT INTO bookmark (pipeline, name, value, run_id) VALUES (?, ?, ?, ?)
            ON CONFLICT (pipeline, name) DO UPDATE SET value = excluded.value, run_id = excluded.run_id
            """, arguments: [pipeline, name, value, run.rawValue])
    }

    func recordFieldDrift(_ drift: FieldDrift, source: String, operation: String, seenAt: Date) throws {
        try requireTransaction()
        let pipeline = try pipelineName ?? String.fetchOne(db, sql: "SELECT pipeline FROM run WHERE id = ?", arguments: [run.rawValue]) ?? "?"
        pipelineName = pipeline
        let at = iso8601UTC(seenAt)
        try db.execute(sql: """
            INSERT INTO field_drift (pipeline, source, operation, field_path, change, first_seen, last_seen, payload_count, sample)
            VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
            ON CONFLICT (pipeline, source, operation, field_path, change) DO UPDATE SET
                last_seen = excluded.last_seen, payload_count = field_drift.payload_count + 1,
                sample = coalesce(excluded.sample, field_drift.sample)
            """, arguments: [pipeline, source, operation, drift.path, drift.change.label, at, at, drift.sample])
    }

    // MARK: - TableWriting

    func upsert(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome {
        try requireTransaction()
        let statements = try self.statements(for: table)
        statements.rows += 1
        statements.insert.bind(row: row)
        if try statements.insert.run() == 1 { return .inserted }
        statements.update.bind(row: row)
        return try statements.update.run() == 1 ? .updated : .unchanged
    }

    private func statements(for table: UpsertTable) throws -> UpsertStatements {
        if let last = lastUpsert, last.serves(table) { return last }
        let statements: UpsertStatements
        if let known = upsertStatements[table.fingerprint], known.serves(table) {
            statements = known
        } else {
            statements = try UpsertStatements(spec: table, db: db)
            // Two specs with one fingerprint (never seen) would only lose each other's rows count.
            if let other = upsertStatements[table.fingerprint] { writesByTable[other.spec.table, default: 0] += other.rows }
            upsertStatements[table.fingerprint] = statements
        }
        lastUpsert = statements
        return statements
    }

    /// Encoded rows bound straight from their buffer: the same statements and outcomes as
    /// `upsert` and `upsertOnce`, without a `RowValues` per row.
    func write(_ rows: EncodedRows, in byteRange: Range<Int>?) throws -> LoadCounts {
        try requireTransaction()
        var counts = LoadCounts()
        // Each of the buffer's tables resolved to its statements once, and read in place: a copy
        // of its `UpsertTable` and a look-up per row were 2 % of the writing closure's instructions.
        var resolved = [UpsertStatements?](repeating: nil, count: rows.tables.count)
        // Consecutive counted rows of one table, inserted `insertBatch` at a time.
        var pending: [EncodedRow] = []
        var pendingStatements: UpsertStatements?
        func flush() throws {
            guard let statements = pendingStatements, !pending.isEmpty else { return }
            defer { pending.removeAll(keepingCapacity: true) }
            counts.add(try insertAll(pending, with: statements))
        }
        try withExtendedLifetime(rows) {
            try rows.forEach(in: byteRange) { row in
                if !row.isCounted {
                    guard writtenOnceEncoded.insert(rows.tables[row.table].fingerprint, row.valueBytes) else { return }
                }
                let statements: UpsertStatements
                if let known = resolved[row.table] {
                    statements = known
                } else {
                    statements = try self.statements(for: rows.tables[row.table])
                    resolved[row.table] = statements
                }
                statements.rows += 1
                if row.isCounted {
                    if pendingStatements !== statements { try flush(); pendingStatements = statements }
                    pending.append(row)
                    if pending.count == Self.insertBatch { try flush() }
                } else {
                    // Rows are written in their order: what a row's insert reads (a fallback
                    // looking up its station) is what the rows before it left.
                    try flush()
                    _ = try upsert(row, with: statements)
                }
            }
            try flush()
        }
        return counts
    }

    /// Rows per multi-row insert of encoded rows (`write(_:in:)`): one step, one statement
    /// start and end, one opening of the table and its indexes for all of them. 32 rows of the
    /// measurement table are 1,280 parameters.
    static let insertBatch = 32

    /// Inserts `rows` (consecutive rows of `statements`' table) and counts their outcomes as the
    /// row-by-row upsert would: a full batch goes in as one `INSERT OR FAIL … DO NOTHING` (see
    /// `UpsertSQL.insert(_:rows:)`); when it inserted fewer than all, every row of it is then
    /// offered to the update, in order, which changes exactly the rows that existed and differ
    /// (a row the batch just inserted holds its own values, so its update changes nothing).
    /// Rows are only ever written in their order, so the result equals the row-by-row one,
    /// repeated keys included. A short batch goes row by row. A full one whose insert fails
    /// fails the load: while the load's transaction is still open its rows are first offered row
    /// by row, so that the error names the row (the one-row statement's), and the batch's own
    /// error is thrown if they all pass; an error that ended the transaction is thrown at once.
    private func insertAll(_ rows: [EncodedRow], with statements: UpsertStatements) throws -> LoadCounts {
        var counts = LoadCounts()
        if rows.count == Self.insertBatch, var batch = try statements.batchInsert(db: db) {
            batch.begin()
            for row in rows { batch.append(row: row) }
            let inserted: Int
            do {
                inserted = try batch.run()
            } catch {
                // The load fails either way; the one-row statements name the failing row, but
                // only while the load's transaction is still open. An error that ended it
                // (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, an interrupt) leaves SQLite in
                // autocommit mode, where each one-row statement would commit on its own.
                guard Self.isInsideTransaction(db) else { throw error }
                for row in rows { _ = try upsert(row, with: statements) }
                throw error
            }
            counts.inserted = inserted
            if inserted < rows.count {
                for row in rows {
                    statements.update.bind(row: row)
                    counts.updated += try statements.update.run()
                }
                counts.unchanged = rows.count - counts.inserted - counts.updated
            }
            return counts
        }
        for row in rows { counts.count(try upsert(row, with: statements)) }
        return counts
    }

    /// One encoded row's upsert: insert, else update when it differs.
    private func upsert(_ row: EncodedRow, with statements: UpsertStatements) throws -> WriteOutcome {
        statements.insert.bind(row: row)
        if try statements.insert.run() == 1 { return .inserted }
        statements.update.bind(row: row)
        return try statements.update.run() == 1 ? .updated : .unchanged
    }

    func upsertOnce(_ table: UpsertTable, _ row: RowValues) throws {
        let key = RowKey(row)
        guard writtenOnce[table.fingerprint, default: []].insert(key).inserted else { return }
        _ = try upsert(table, row)
    }

    func replaceChildren(_ table: ChildTable, parent: [StoreValue], rows: [RowValues]) throws -> Bool {
        try requireTransaction()
        writesByTable[table.table, default: 0] += rows.count
        let parentWhere = table.parentColumns.map { "\($0) = ?" }.joined(separator: " AND ")
        let parentArguments = StatementArguments(parent.map(\.databaseValue))
        let order = table.ordinal ?? table.columns.joined(separator: ", ")
        let existing = try Row.fetchAll(db, sql: """
            SELECT \(table.columns.joined(separator: ", ")) FROM \(table.table) WHERE \(parentWhere) ORDER BY \(order)
            """, arguments: parentArguments).map { Array($0.databaseValues.map(StoreValue.init)) }
        // Without an ordinal the order carries no meaning: compare and store in SQLite's order.
        var incoming = rows.map(\.values)
        if table.ordinal == nil { incoming.sort { RowKey.precedes($0, $1) } }
        if table.ordinal == nil ? Self.sameSet(existing, incoming) : existing == incoming { return false }
        try db.execute(sql: "DELETE FROM \(table.table) WHERE \(parentWhere)", arguments: parentArguments)
        let columns = table.parentColumns + (table.ordinal.map { [$0] } ?? []) + table.columns
        // Unordered children are a set: a repeated child replaces its twin.
        let insert = try db.cachedStatement(sql: """
            INSERT\(table.ordinal == nil ? " OR REPLACE" : "") INTO \(table.table) (\(columns.joined(separator: ", ")))
            VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            """)
        for (index, row) in incoming.enumerated() {
            let ordinal: [StoreValue] = table.ordinal == nil ? [] : [.integer(Int64(index + 1))]
            try insert.execute(arguments: StatementArguments((parent + ordinal + row).map(\.databaseValue)))
        }
        return true
    }

    func newestRow(in table: String, columns: [String], matching match: [(column: String, value: StoreValue)]) throws -> [StoreValue]? {
        try Row.fetchOne(db, sql: """
            SELECT \(columns.joined(separator: ", ")) FROM \(table)
            WHERE \(match.map { "\($0.column) = ?" }.joined(separator: " AND ")) ORDER BY id DESC LIMIT 1
            """, arguments: StatementArguments(match.map(\.value.databaseValue))).map { Array($0.databaseValues.map(StoreValue.init)) }
    }

    func insert(into table: String, columns: [String], _ row: RowValues) throws {
        try requireTransaction()
        writesByTable[table, default: 0] += 1
        try db.cachedStatement(sql: """
            INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            """).execute(arguments: StatementArguments(row.values.map(\.databaseValue)))
    }

    func raiseBookmark(_ name: String, toAtLeast value: Int64) throws {
        try requireTransaction()
        try db.execute(sql: """
            INSERT INTO bookmark (pipeline, name, value, run_id)
            SELECT pipeline, ?, ?, id FROM run WHERE id = ?
            ON CONFLICT (pipeline, name) DO UPDATE SET value = excluded.value, run_id = excluded.run_id
            WHERE CAST(excluded.value AS INTEGER) > CAST(bookmark.value AS INTEGER)
            """, arguments: [name, String(value), run.rawValue])
    }

    // MARK: - Checks

    /// Rows this load wrote or confirmed in each table.
    var rowsWritten: [String: Int] {
        var counts = writesByTable
        for statements in upsertStatements.values { counts[statements.spec.table, default: 0] += statements.rows }
        return counts
    }

    func evaluate(_ checks: [DataCheck], context: CheckContext) throws -> [CheckResult] {
        try flushDiagnostics()
        return try CheckEvaluator(db: db, rowsWritten: rowsWritten).evaluate(checks, context: context)
    }

    func record(_ results: [CheckResult]) throws {
        try requireTransaction()
        try CheckEvaluator.record(results, run: run, in: db)
    }

    func markFailed(_ error: String) { failure = error }

    /// Equal as sets: the stored rows come in SQLite's collation order, which for mixed types
    /// need not match `RowKey.precedes`.
    private static func sameSet(_ a: [[StoreValue]], _ b: [[StoreValue]]) -> Bool {
        a.count == b.count && a.sorted(by: RowKey.precedes) == b
    }
}

/// A row compared and hashed by the bytes of its values. String's own hashing normalises
/// Unicode first, which for Hangul names cost more than the row's insert.
struct RowKey: Hashable {
    let values: [StoreValue]

    init(_ row: RowValues) { values = row.values }

    static func == (a: RowKey, b: RowKey) -> Bool {
        a.values.count == b.values.count && zip(a.values, b.values).allSatisfy(same)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(values.count)
        for value in values {
            switch value {
            case .null: hasher.combine(0 as UInt8)
            case .integer(let v): hasher.combine(1 as UInt8); hasher.combine(v)
            case .real(let v): hasher.combine(2 as UInt8); hasher.combine(v)
            case .text(var v): hasher.combine(3 as UInt8); v.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            }
        }
    }

    private static func same(_ a: StoreValue, _ b: StoreValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)): return x == y
        case (.text(var x), .text(var y)):
            guard x.utf8.count == y.utf8.count else { return false }
            return x.withUTF8 { p in y.withUTF8 { q in p.isEmpty || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 } }
        default: return false
        }
    }

    /// A total order: NULL, numbers, text (by UTF-8 bytes, like SQLite's BINARY collation).
    static func precedes(_ a: [StoreValue], _ b: [StoreValue]) -> Bool {
        for (x, y) in zip(a, b) {
            if same(x, y) { continue }
            return less(x, y)
        }
        return a.count < b.count
    }

    private static func less(_ a: StoreValue, _ b: StoreValue) -> Bool {
        func rank(_ v: StoreValue) -> Int {
            switch v { case .null: 0; case .integer, .real: 1; case .text: 2 }
        }
        func number(_ v: StoreValue) -> Double {
            switch v { case .integer(let i): Double(i); case .real(let d): d; default: 0 }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) }
        switch (a, b) {
        case let (.text(x), .text(y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        default: return number(a) < number(b)
        }
    }
}

extension StoreValue {
    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let v): v.databaseValue
        }
    }

    /// A value read back from SQLite (blobs do not occur in feed tables; read as text).
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let v): self = .text(v)
        case .blob(let data): self = .text(String(decoding: data, as: UTF8.self))
        }
    }
}

/// Rows seen, by table fingerprint and the bytes of their encoded values: a lookup hashes and
/// compares the bytes in place; only a new row is copied.
struct ByteRowSet {
    private var buckets: [Int: [(table: Int, bytes: [UInt8])]] = [:]

    /// Adds the row; false when it was already there.
    mutating func insert(_ table: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var hasher = Hasher()
        hasher.combine(table)
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        let hash = hasher.finalize()
        if let bucket = buckets[hash] {
            for entry in bucket where entry.table == table && entry.bytes.count == bytes.count {
                let same = entry.bytes.withUnsafeBufferPointer { stored in
                    bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                }
                if same { return false }
            }
        }
        buckets[hash, default: []].append((table, Array(bytes)))
        return true
    }
}
