#if PostgreSQL
import Domain
import Foundation
import Pipeline

/// Writes records inside the transaction `PostgresStore.load` opened: the PostgreSQL side of
/// the `TableWriting` port.
///
/// A natural-key upsert is one statement, `INSERT … ON CONFLICT (key) DO UPDATE SET … WHERE
/// <a compared column IS DISTINCT FROM its new value> RETURNING (xmax = 0)`: a returned `true`
/// is an insert, `false` an update, no row an unchanged row. Parameters are cast to each
/// column's declared type (text to `timestamptz`, `date` …), read from the catalog.
///
/// Rows given through `upsertBatched` and `upsertOnce`, and diagnostics, are held back and
/// written many at a time (`PendingWrites`, `PostgresBatchSQL`): when the runner settles a
/// payload, when a batch is full, when a row's key is already held, and before any other
/// statement, so every statement sees the rows given before it.
final class PostgresLoadSession: LoadSession {
    let link: PostgresLink
    let run: RunID
    private let writers: [ObjectIdentifier: RecordWriter]
    private let columnTypes: ColumnTypeCache
    private(set) var diagnosticCount = 0
    private(set) var failure: String?
    private var pipelineName: String?
    private var upsertSQL: [Int: String] = [:]
    private var writtenOnce: [Int: Set<[StoreValue]>] = [:]
    private var rowsByTable: [String: Int] = [:]
    private var pending = PendingWrites()
    private var settled = LoadCounts()
    private var batchSQL: [Int: String] = [:]
    private var keyIndexes: [Int: [Int]] = [:]
    private var fallbackIndexes: [Int: [Int]] = [:]
    /// Payloads this load marked loaded, and what earlier runs had loaded as first asked.
    private var markedLoaded: Set<String> = []
    private var loadedBefore: [String: Bool] = [:]
    /// Rows held at most before they are written.
    static let batchLimit = 4096

    init(link: PostgresLink, run: RunID, writers: [ObjectIdentifier: RecordWriter], columnTypes: ColumnTypeCache) {
        self.link = link; self.run = run; self.writers = writers; self.columnTypes = columnTypes
    }

    var runID: RunID { run }

    func write(_ record: FeedRecord, payload: RawPayload?) throws -> WriteOutcome {
        guard let writer = writers[ObjectIdentifier(record.recordType)] else {
            throw UnregisteredRecordError(recordType: String(describing: record.recordType))
        }
        return try writer.write(record.value, payload: payload, to: self)
    }

    func record(_ diagnostic: Diagnostic, payload: RawPayload?) throws {
        pending.addDiagnostic([.integer(run.rawValue), StoreValue(payload?.sha256), .text(diagnostic.code.rawValue), .text(diagnostic.message),
                               .text(diagnostic.location), StoreValue(diagnostic.value)])
        diagnosticCount += 1
        if pending.count >= Self.batchLimit { try flush() }
    }

    /// Sends what is held; the counts are those of the batches the server has answered so far
    /// (the others come with a later call, or with `finish`).
    func settle() throws -> LoadCounts {
        try flush()
        defer { settled = LoadCounts() }
        return settled
    }

    /// Writes what is held and waits for every answer: the counts not yet returned by `settle`.
    func finish() throws -> LoadCounts {
        try flush()
        try link.drain()
        defer { settled = LoadCounts() }
        return settled
    }

    func loaded(among sha256s: [String]) throws -> Set<String> {
        try flush()
        let found = Set(try link.run("SELECT sha256 FROM payload WHERE sha256 = ANY($1::text::text[])",
                                     [.text(PostgresBatchSQL.arrayLiteral(sha256s.map(StoreValue.text), integer: false))]).rows.compactMap(\.first?.textValue))
        for sha256 in sha256s where !markedLoaded.contains(sha256) { loadedBefore[sha256] = found.contains(sha256) }
        return found.union(markedLoaded.intersection(sha256s))
    }

    /// Earlier runs' payloads are asked for once (other loads commit theirs before or after this
    /// transaction, never during a statement of it), so a repeated question does not wait for
    /// the writes still on their way.
    func wasLoaded(sha256: String) throws -> Bool {
        if markedLoaded.contains(sha256) { return true }
        if let known = loadedBefore[sha256] { return known }
        try flush()
        let loaded = try link.run("SELECT EXISTS (SELECT 1 FROM payload WHERE sha256 = $1)", [.text(sha256)]).scalar == .integer(1)
        loadedBefore[sha256] = loaded
        return loaded
    }

    func markLoaded(_ payload: RawPayload, itemCount: Int, archivePath: String?) throws {
        try flush()
        markedLoaded.insert(payload.sha256)
        try link.send("""
            INSERT INTO payload (sha256, source, operation, format, request_url, fetched_at, http_status, content_type,
                                 byte_count, item_count, archive_path, run_id)
            VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7, $8, $9, $10, $11, $12)
            ON CONFLICT (sha256) DO NOTHING
            """, [.text(payload.sha256), StoreValue(payload.source), StoreValue(payload.operation), .text(payload.format.rawValue),
                  StoreValue(payload.request?.displayURL), .text(iso8601UTC(payload.fetchedAt)), StoreValue(payload.httpStatus),
                  StoreValue(payload.contentType), StoreValue(payload.byteCount), StoreValue(itemCount), StoreValue(archivePath),
                  .integer(run.rawValue)])
    }

    func setBookmark(_ name: String, to value: String) throws {
        try flush()
        try link.send("""
            INSERT INTO bookmark (pipeline, name, value, run_id) SELECT pipeline, $1, $2, id FROM run WHERE id = $3
            ON CONFLICT (pipeline, name) DO UPDATE SET value = EXCLUDED.value, run_id = EXCLUDED.run_id
            """, [.text(name), .text(value), .integer(run.rawValue)])
    }

    func recordFieldDrift(_ drift: FieldDrift, source: String, operation: String, seenAt: Date) throws {
        try flush()
        try link.send("""
            INSERT INTO field_drift (pipeline, source, operation, field_path, change, first_seen, last_seen, payload_count, sample)
            SELECT pipeline, $1, $2, $3, $4, $5::timestamptz, $5::timestamptz, 1, $6 FROM run WHERE id = $7
            ON CONFLICT (pipeline, source, operation, field_path, change) DO UPDATE SET
                last_seen = EXCLUDED.last_seen, payload_count = field_drift.payload_count + 1,
                sample = coalesce(EXCLUDED.sample, field_drift.sample)
            """, [.text(source), .text(operation), .text(drift.path), .text(drift.change.label), .text(iso8601UTC(seenAt)),
                  StoreValue(drift.sample), .integer(run.rawValue)])
    }

    // MARK: - TableWriting

    func upsert(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome {
        try flush()
        rowsByTable[table.table, default: 0] += 1
        return try upsertNow(table, row)
    }

    func upsertBatched(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome {
        rowsByTable[table.table, default: 0] += 1
        guard canBatch(row, of: table) else {
            try flush()
            return try upsertNow(table, row)
        }
        try hold(row, of: table, counted: true)
        return .deferred
    }

    func upsertOnce(_ table: UpsertTable, _ row: RowValues) throws {
        guard writtenOnce[table.fingerprint, default: []].insert(row.values).inserted else { return }
        rowsByTable[table.table, default: 0] += 1
        guard canBatch(row, of: table) else {
            try flush()
            _ = try upsertNow(table, row)
            return
        }
        try hold(row, of: table, counted: false)
    }

    private func upsertNow(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome {
        let sql = try upsertSQL[table.fingerprint] ?? {
            let sql = PostgresUpsertSQL.statement(table, types: try columnTypes.types(of: table.table, link: link))
            upsertSQL[table.fingerprint] = sql
            return sql
        }()
        let result = try link.run(sql, row.values)
        guard let returned = result.scalar else { return .unchanged }
        return returned == .integer(1) ? .inserted : .updated
    }

    private func canBatch(_ row: RowValues, of table: UpsertTable) -> Bool {
        if table.insertFallbacks.isEmpty { return true }
        let indexes = fallbackIndexes[table.fingerprint] ?? {
            let indexes = PostgresBatchSQL.fallbackIndexes(table)
            fallbackIndexes[table.fingerprint] = indexes
            return indexes
        }()
        return PostgresBatchSQL.canBatch(row.values, fallbacks: indexes)
    }

    private func hold(_ row: RowValues, of table: UpsertTable, counted: Bool) throws {
        let indexes = keyIndexes[table.fingerprint] ?? {
            let indexes = table.key.map { table.columns.firstIndex(of: $0)! }
            keyIndexes[table.fingerprint] = indexes
            return indexes
        }()
        let key = indexes.map { row.values[$0] }
        // PostgreSQL refuses to touch a row twice in one statement; the second row waits.
        if pending.holds(key, of: table.table) { try flush() }
        pending.add(row.values, key: key, to: table, counted: counted)
        if pending.count >= Self.batchLimit { try flush() }
    }

    /// Sends every held row: facts, then rows table by table, then diagnostics (answers are
    /// taken later: see `PostgresLink.send`).
    func flush() throws {
        guard !pending.isEmpty else { return }
        let (batches, diagnostics) = pending.take()
        for batch in batches {
            let types = try columnTypes.types(of: batch.spec.table, link: link)
            let sql = batchSQL[batch.spec.fingerprint] ?? {
                let sql = PostgresBatchSQL.upsert(batch.spec, types: types)
                batchSQL[batch.spec.fingerprint] = sql
                return sql
            }()
            let parameters = PostgresBatchSQL.parameters(batch.rows, columns: batch.spec.columns, types: types)
            guard batch.counted else { try link.send(sql, parameters); continue }
            let given = batch.rows.count
            // Weak: a load that failed drops its session before the rollback waits for these.
            try link.send(sql, parameters) { [weak self] result in
                guard let self else { return }
                let inserted = result.rows.filter { $0.first == .integer(1) }.count
                settled.inserted += inserted
                settled.updated += result.rows.count - inserted
                settled.unchanged += given - result.rows.count
            }
        }
        if !diagnostics.isEmpty {
            let columns = ["run_id", "payload_sha256", "code", "message", "location", "value"]
            let types = try columnTypes.types(of: "diagnostic", link: link)
            try link.send(PostgresBatchSQL.insert(into: "diagnostic", columns: columns, types: types),
                          PostgresBatchSQL.parameters(diagnostics, columns: columns, types: types))
        }
    }

    func replaceChildren(_ table: ChildTable, parent: [StoreValue], rows: [RowValues]) throws -> Bool {
        try flush()
        rowsByTable[table.table, default: 0] += rows.count
        let types = try columnTypes.types(of: table.table, link: link)
        let parentWhere = table.parentColumns.enumerated().map { "\($1) = $\($0 + 1)::\(types[$1] ?? "text")" }.joined(separator: " AND ")
        let order = table.ordinal ?? table.columns.joined(separator: ", ")
        let existing = try link.run("""
            SELECT \(table.columns.joined(separator: ", ")) FROM \(table.table) WHERE \(parentWhere) ORDER BY \(order)
            """, parent).rows
        var incoming = rows.map(\.values)
        if table.ordinal == nil {
            let key = { (row: [StoreValue]) in row.map { "\($0)" }.joined(separator: "\u{1F}") }
            incoming.sort { key($0) < key($1) }
            if existing.count == incoming.count && existing.sorted(by: { key($0) < key($1) }) == incoming { return false }
        } else if existing == incoming {
            return false
        }
        try link.run("DELETE FROM \(table.table) WHERE \(parentWhere)", parent)
        let columns = table.parentColumns + (table.ordinal.map { [$0] } ?? []) + table.columns
        let placeholders = columns.enumerated().map { "$\($0 + 1)::\(types[$1] ?? "text")" }.joined(separator: ", ")
        // Unordered children are a set: a repeated child is stored once.
        let sql = "INSERT INTO \(table.table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
            + (table.ordinal == nil ? " ON CONFLICT DO NOTHING" : "")
        for (index, row) in incoming.enumerated() {
            let ordinal: [StoreValue] = table.ordinal == nil ? [] : [.integer(Int64(index + 1))]
            try link.run(sql, parent + ordinal + row)
        }
        return true
    }

    func newestRow(in table: String, columns: [String], matching match: [(column: String, value: StoreValue)]) throws -> [StoreValue]? {
        try flush()
        let types = try columnTypes.types(of: table, link: link)
        return try link.run("""
            SELECT \(columns.joined(separator: ", ")) FROM \(table)
            WHERE \(match.enumerated().map { "\($1.column) = $\($0 + 1)::\(types[$1.column] ?? "text")" }.joined(separator: " AND "))
            ORDER BY id DESC LIMIT 1
            """, match.map(\.value)).rows.first
    }

    func insert(into table: String, columns: [String], _ row: RowValues) throws {
        try flush()
        rowsByTable[table, default: 0] += 1
        let types = try columnTypes.types(of: table, link: link)
        try link.run("""
            INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.enumerated().map { "$\($0 + 1)::\(types[$1] ?? "text")" }.joined(separator: ", ")))
            """, row.values)
    }

    func raiseBookmark(_ name: String, toAtLeast value: Int64) throws {
        try flush()
        try link.run("""
            INSERT INTO bookmark (pipeline, name, value, run_id) SELECT pipeline, $1, $2, id FROM run WHERE id = $3
            ON CONFLICT (pipeline, name) DO UPDATE SET value = EXCLUDED.value, run_id = EXCLUDED.run_id
            WHERE EXCLUDED.value::bigint > (CASE WHEN bookmark.value ~ '^-?[0-9]{1,18}$' THEN bookmark.value::bigint ELSE 0 END)
            """, [.text(name), .text(String(value)), .integer(run.rawValue)])
    }

    // MARK: - Checks

    func evaluate(_ checks: [DataCheck], context: CheckContext) throws -> [CheckResult] {
        try flush()
        return try PostgresCheckEvaluator(link: link, rowsWritten: rowsByTable).evaluate(checks, context: context)
    }

    func record(_ results: [CheckResult]) throws {
        try flush()
        try Self.record(results, run: run, link: link)
    }

    func markFailed(_ error: String) { failure = error }

    static func record(_ results: [CheckResult], run: RunID, link: PostgresLink) throws {
        for (index, result) in results.enumerated() {
            try link.run("""
                INSERT INTO check_result (run_id, ordinal, check_name, kind, table_name, severity, on_failure, status, failing_rows, message, sample)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                """, [.integer(run.rawValue), StoreValue(index + 1), .text(result.name), .text(result.kind), StoreValue(result.table),
                      .text(result.severity.rawValue), .text(result.onFailure.rawValue), .text(result.status.rawValue),
                      StoreValue(result.failingRows), .text(result.message),
                      result.sampleRows.isEmpty ? .null : .text(sampleJSON(columns: result.sampleColumns, rows: result.sampleRows))])
        }
    }

    /// Up to five failing rows as a JSON array of `{column: value}` objects.
    static func sampleJSON(columns: [String], rows: [[StoreValue]]) -> String {
        let objects: [[String: Any]] = rows.map { row in
            Dictionary(zip(columns, row).map { column, value -> (String, Any) in
                switch value {
                case .null: (column, NSNull())
                case .integer(let v): (column, v)
                case .real(let v): (column, v.isFinite ? v as Any : NSNull())
                case .text(let v): (column, v)
                }
            }, uniquingKeysWith: { a, _ in a })
        }
        guard let data = try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The upsert statement of one `UpsertTable` in PostgreSQL's dialect (see `PostgresLoadSession`).
enum PostgresUpsertSQL {
    static func statement(_ spec: UpsertTable, types: [String: String]) -> String {
        let (table, columns, key) = (spec.table, spec.columns, spec.key)
        let parameter = Dictionary(uniqueKeysWithValues: columns.enumerated().map { index, column in
            (column, "$\(index + 1)::\(types[column] ?? "text")")
        })
        // SET uses the parameters (as SQLite's UPDATE does), not EXCLUDED: an insert fallback
        // fills a NULL on insert only.
        let (inserted, assignments, compared) = spec.upsertClauses(parameter: { parameter[$0]! }, existing: { "t.\($0)" },
                                                                    differs: { "\($0) IS DISTINCT FROM \($1)" })
        let sets = assignments + (spec.counted ? ["revision = t.revision + 1"] : [])
        let head = """
            INSERT INTO \(table) AS t (\(columns.joined(separator: ", "))) VALUES (\(inserted.joined(separator: ", ")))
            ON CONFLICT (\(key.joined(separator: ", ")))
            """
        guard !sets.isEmpty, !compared.isEmpty else { return head + " DO NOTHING RETURNING (xmax = 0)" }
        return head + """
             DO UPDATE SET \(sets.joined(separator: ", "))
            WHERE \(compared.joined(separator: " OR "))
            RETURNING (xmax = 0)
            """
    }
}
#endif
