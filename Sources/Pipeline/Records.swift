import Domain
import Foundation

// MARK: - Records

/// A record type a feed produces from one item, e.g. an hourly measurement or a job posting.
///
/// Open: each feed defines (or reuses) its own record types and registers a `RecordWriter` for
/// each in its `FeedSchema`. Nothing in Pipeline or Storage lists the record types.
public protocol LoadableRecord: Hashable, Sendable {
    /// The transform stage: the record with what feedline derives from it (indices, grades) and
    /// what was odd about it. Default: unchanged, nothing odd.
    func transformed() -> (Self, [Diagnostic])

    /// The hour this record observes, for records of hourly data: the newest one a run loads
    /// becomes the pipeline's `newest_observed_at` bookmark. Default: nil.
    var observedSlot: HourSlot? { get }
}

extension LoadableRecord {
    public func transformed() -> (Self, [Diagnostic]) { (self, []) }
    public var observedSlot: HourSlot? { nil }
}

/// One record as it travels from a feed's decoder through the transform stage to the load.
///
/// Produced by a feed's decoder; consumed by the transform stage and by the `RecordWriter`
/// registered for the record's type.
public struct FeedRecord: Sendable, Hashable {
    /// The record itself.
    public let value: any LoadableRecord

    public init(_ value: some LoadableRecord) {
        self.value = value
    }

    /// The record as `type`, or nil when it is another kind of record.
    public func `as`<Record: LoadableRecord>(_ type: Record.Type) -> Record? {
        value as? Record
    }

    /// The record's type, which selects its writer.
    public var recordType: any LoadableRecord.Type { type(of: value) }

    /// `transformed()` of the wrapped record.
    public func transformed() -> (FeedRecord, [Diagnostic]) {
        func apply<Record: LoadableRecord>(_ record: Record) -> (FeedRecord, [Diagnostic]) {
            let (out, diagnostics) = record.transformed()
            return (FeedRecord(out), diagnostics)
        }
        return apply(value)
    }

    public static func == (a: FeedRecord, b: FeedRecord) -> Bool {
        AnyHashable(a.value) == AnyHashable(b.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(value))
    }
}

// MARK: - Writers

/// Stores one record type inside an open load transaction, through the store-neutral
/// `TableWriting` port (so the same writer serves every store).
public struct RecordWriter: Sendable {
    /// The record type it stores.
    public let recordType: any LoadableRecord.Type
    private let body: @Sendable (any LoadableRecord, RawPayload?, any TableWriting) throws -> WriteOutcome
    /// Transforms a record (`LoadableRecord.transformed`), encodes the result's rows and returns
    /// the transform's diagnostics.
    public typealias Preparer = @Sendable (any LoadableRecord, RawPayload?, inout EncodedRows) -> [Diagnostic]
    /// For writers made with `init(_:rows:)`: the preparing task's one step per record, with the
    /// record opened once (no second `FeedRecord` for the transformed value, no second cast).
    public let prepare: Preparer?

    /// A writer for `Record`.
    public init<Record: LoadableRecord>(_ type: Record.Type,
                                        _ write: @escaping @Sendable (Record, RawPayload?, any TableWriting) throws -> WriteOutcome) {
        recordType = type
        body = { record, payload, tables in
            // The registry only hands a writer records of its own type.
            try write(record as! Record, payload, tables)
        }
        prepare = nil
    }

    /// A writer for `Record` that only upserts rows by natural key, encoded as values
    /// (`EncodedRows.append`, one counted row per record plus facts written once per load):
    /// the load's preparing task encodes them while the page is decoded, so the records are not
    /// kept and the load only binds the values. Written directly (`write`), the rows go through
    /// `TableWriting.write(_:in:)`.
    public init<Record: LoadableRecord>(_ type: Record.Type,
                                        rows: @escaping @Sendable (Record, RawPayload?, inout EncodedRows) -> Void) {
        recordType = type
        prepare = { record, payload, encoded in
            let (transformed, diagnostics) = (record as! Record).transformed()
            rows(transformed, payload, &encoded)
            return diagnostics
        }
        body = { record, payload, tables in
            var encoded = EncodedRows()
            rows(record as! Record, payload, &encoded)
            return try tables.write(encoded, in: nil).outcome
        }
    }

    /// Writes `record` (which must be of `recordType`).
    public func write(_ record: any LoadableRecord, payload: RawPayload?, to tables: any TableWriting) throws -> WriteOutcome {
        try body(record, payload, tables)
    }
}

/// A record reached the load with no writer registered for its type: a feed was added without
/// its `FeedSchema` (a programming error, reported rather than dropping the record).
public struct UnregisteredRecordError: Error, CustomStringConvertible, Sendable {
    public let recordType: String
    public init(recordType: String) { self.recordType = recordType }
    public var description: String {
        "no writer is registered for \(recordType) records: the feed producing them must list a RecordWriter in its FeedSchema."
    }
}

/// A change written as SQL rather than declared: what `ALTER TABLE … ADD` cannot make from a
/// declaration (a changed type or constraint, a rebuilt table), and tests' scratch tables.
/// Applied after the declared schema, once per database, by identifier; identifiers are global
/// (prefix them with the feed's name) and never edited once released.
public struct SchemaMigration: Sendable, Hashable {
    public let identifier: String
    /// The SQL (SQLite dialect) creating or changing the feed's tables, views and indexes.
    public let sqlite: String
    /// The same change in PostgreSQL's dialect, with types mapped as `PostgresDialect` maps
    /// them. Nil when the change has no PostgreSQL form (opening a PostgreSQL store with it is
    /// refused).
    public let postgres: String?

    public init(_ identifier: String, sqlite: String, postgres: String? = nil) {
        self.identifier = identifier
        self.sqlite = sqlite
        self.postgres = postgres
    }
}

/// What a feed brings to the store: its declared tables and a writer per record type it
/// produces. Registered with the feed in the composition root; stores build the declared schema
/// (feedline's own tables first) and dispatch writes by record type.
public struct FeedSchema: Sendable {
    /// The feed's tables, views and triggers, declared once; every store renders its own DDL
    /// from them and `describe` reads their meanings.
    public var declarations: SchemaDeclarations
    /// Raw SQLite-only changes (tests' scratch tables); a feed declares its tables instead.
    public var migrations: [SchemaMigration]
    public var writers: [RecordWriter]

    public init(declarations: SchemaDeclarations = SchemaDeclarations(), migrations: [SchemaMigration] = [], writers: [RecordWriter] = []) {
        self.declarations = declarations
        self.migrations = migrations
        self.writers = writers
    }

    /// Several schemas as one (the feeds a store serves).
    public static func merged(_ schemas: [FeedSchema]) -> FeedSchema {
        FeedSchema(declarations: schemas.map(\.declarations).reduce(SchemaDeclarations(), +),
                   migrations: schemas.flatMap(\.migrations), writers: schemas.flatMap(\.writers))
    }

    /// The transform-and-encode step of each record type whose writer encodes rows
    /// (`RecordWriter(_:rows:)`).
    public var preparerByType: [ObjectIdentifier: RecordWriter.Preparer] {
        writerByType.compactMapValues(\.prepare)
    }

    /// The writer for each record type (the last registered wins).
    public var writerByType: [ObjectIdentifier: RecordWriter] {
        Dictionary(writers.map { (ObjectIdentifier($0.recordType), $0) }, uniquingKeysWith: { _, last in last })
    }
}

// MARK: - The store-neutral write port

/// A value as stored: SQL's storage classes.
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public init(_ value: String?) { self = value.map(StoreValue.text) ?? .null }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: Int64?) { self = value.map(StoreValue.integer) ?? .null }
    public init(_ value: Double?) { self = value.map(StoreValue.real) ?? .null }
    public init(_ value: Bool?) { self = value.map { .integer($0 ? 1 : 0) } ?? .null }
}

/// A row of values in a table's column order. Writers fill one per record.
public struct RowValues: Sendable, Hashable {
    public private(set) var values: [StoreValue]

    public init(capacity: Int = 0) {
        values = []
        values.reserveCapacity(capacity)
    }

    public init(_ values: [StoreValue]) { self.values = values }

    public mutating func append(_ value: String?) { values.append(StoreValue(value)) }
    public mutating func append(_ value: Int?) { values.append(StoreValue(value)) }
    public mutating func append(_ value: Double?) { values.append(StoreValue(value)) }
    public mutating func append(_ value: Bool?) { values.append(StoreValue(value)) }
    public mutating func append(_ value: StoreValue) { values.append(value) }
}

/// A table written by natural key: one row per key, inserted, updated when a compared column
/// differs, unchanged otherwise.
public struct UpsertTable: Sendable, Hashable {
    public let table: String
    /// Columns in the order rows give their values.
    public let columns: [String]
    /// The natural key (a unique constraint of the table).
    public let key: [String]
    /// Written but never compared (`payload_sha256`: the same row from another payload is unchanged).
    public let ignoredInComparison: Set<String>
    /// Never erased by a later NULL.
    public let keepKnown: Set<String>
    /// Per column, an SQL expression the insert uses when the value is NULL; `{column}` in it
    /// stands for the value given for that column.
    public let insertFallbacks: [String: String]
    /// Whether the table has a `revision` column counting updates.
    public let counted: Bool
    /// Tells specs apart cheaply (stores cache their statements by it).
    public let fingerprint: Int

    public init(table: String, columns: [String], key: [String], ignoredInComparison: Set<String> = ["payload_sha256"],
                keepKnown: Set<String> = [], insertFallbacks: [String: String] = [:], revision: Bool = true) {
        precondition(Set(key).isSubset(of: columns), "\(table): every key column must be a column")
        self.table = table; self.columns = columns; self.key = key; self.ignoredInComparison = ignoredInComparison
        self.keepKnown = keepKnown; self.insertFallbacks = insertFallbacks; self.counted = revision
        var hasher = Hasher()
        hasher.combine(table); hasher.combine(columns); hasher.combine(key); hasher.combine(ignoredInComparison)
        hasher.combine(keepKnown); hasher.combine(insertFallbacks); hasher.combine(revision)
        fingerprint = hasher.finalize()
    }
}

extension UpsertTable {
    /// The value inserted per column: the parameter `parameter` names, or `coalesce(<it>,
    /// <fallback>)` where `insertFallbacks` declares one, each `{column}` in the fallback read
    /// as that column's parameter (one pass over the fallback: a statement of 32 rows builds
    /// 32 of them).
    public func insertedValues(parameter: (String) -> String) -> [String] {
        columns.map { column -> String in
            guard let fallback = insertFallbacks[column] else { return parameter(column) }
            var text = ""
            var rest = Substring(fallback)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                text += rest[..<open]
                let name = String(rest[rest.index(after: open)..<close])
                text += columns.contains(name) ? parameter(name) : String(rest[open...close])
                rest = rest[rest.index(after: close)...]
            }
            text += rest
            return "coalesce(\(parameter(column)), \(text))"
        }
    }

    /// The clauses of this table's natural-key upsert in a store's SQL dialect, so every store
    /// applies `keepKnown`, `ignoredInComparison` and `insertFallbacks` alike:
    /// - `inserted`: the value inserted per column (a fallback where one is declared);
    /// - `assignments`: `column = <new value>` for each non-key column (a kept column keeps its
    ///   known value over a NULL);
    /// - `compared`: one condition per compared column that holds when the new value differs.
    ///
    /// `parameter` names the value bound for a column, `existing` the stored value, `differs`
    /// writes "stored differs from new, NULLs compared as values" in the dialect.
    public func upsertClauses(parameter: (String) -> String, existing: (String) -> String,
                              differs: (_ existing: String, _ new: String) -> String) -> (inserted: [String], assignments: [String], compared: [String]) {
        let inserted = insertedValues(parameter: parameter)
        let values = columns.filter { !key.contains($0) }
        let assignments = values.map { column in
            keepKnown.contains(column) ? "\(column) = coalesce(\(parameter(column)), \(existing(column)))" : "\(column) = \(parameter(column))"
        }
        let compared = values.filter { !ignoredInComparison.contains($0) }.map { column in
            keepKnown.contains(column)
                ? "(\(parameter(column)) IS NOT NULL AND \(differs(existing(column), parameter(column))))"
                : differs(existing(column), parameter(column))
        }
        return (inserted, assignments, compared)
    }
}

/// Rows that belong to one parent row and are replaced as a set when they differ (a posting's
/// locations, a forecast's regions).
public struct ChildTable: Sendable, Hashable {
    public let table: String
    /// Columns naming the parent row.
    public let parentColumns: [String]
    /// The child's own columns, in the order rows give their values.
    public let columns: [String]
    /// A column numbering the rows from 1 in the given order, or nil when order carries no
    /// meaning (rows are then compared and stored sorted by `columns`).
    public let ordinal: String?

    public init(table: String, parentColumns: [String], columns: [String], ordinal: String? = "ordinal") {
        self.table = table; self.parentColumns = parentColumns; self.columns = columns; self.ordinal = ordinal
    }
}

/// What a `RecordWriter` may do inside the open load transaction. Implemented by each store
/// (SQLite today); every call joins the load's one transaction.
public protocol TableWriting: AnyObject {
    /// The run the load belongs to.
    var runID: RunID { get }
    /// Upserts `row` (values in `table.columns` order) by its natural key.
    func upsert(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome
    /// The same as `upsert`, except that the store may write the row later, in one statement
    /// with other rows of the table, and answer `.deferred` (the outcome is then counted when
    /// the load session settles). For writers that return the outcome as is and read nothing
    /// back; rows are still written in the order given, and before any other statement.
    func upsertBatched(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome
    /// The same as `upsert`, skipped when an identical row was already given in this load (for
    /// facts that repeat in every item, such as a measurement's station).
    func upsertOnce(_ table: UpsertTable, _ row: RowValues) throws
    /// Replaces the children of `parent` with `rows` when they differ; returns whether they did.
    /// Rows are compared with what the store reads back, so give each column a value of the
    /// storage class its declared type keeps (text for TEXT columns, integers for INTEGER …).
    func replaceChildren(_ table: ChildTable, parent: [StoreValue], rows: [RowValues]) throws -> Bool
    /// The values of `columns` in the newest row of `table` (highest `id`) where the `match`
    /// columns equal the values, or nil when there is none.
    func newestRow(in table: String, columns: [String], matching match: [(column: String, value: StoreValue)]) throws -> [StoreValue]?
    /// Appends one row.
    func insert(into table: String, columns: [String], _ row: RowValues) throws
    /// Sets bookmark `name` of the run's pipeline to `value` unless it already holds a larger
    /// whole number.
    func raiseBookmark(_ name: String, toAtLeast value: Int64) throws
    /// Writes rows encoded ahead of the load (`RecordWriter(_:rows:)`), those within
    /// `byteRange` (all when nil), in order: counted rows as `upsertBatched`, the others as
    /// `upsertOnce`. Returns the counted rows' outcomes. Default: through those two methods.
    func write(_ rows: EncodedRows, in byteRange: Range<Int>?) throws -> LoadCounts
}

extension TableWriting {
    /// A store that writes each row at once upserts it now.
    public func upsertBatched(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome { try upsert(table, row) }
}
