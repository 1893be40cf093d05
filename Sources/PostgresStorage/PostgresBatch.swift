#if PostgreSQL
import Domain
import Foundation
import Pipeline

/// Rows a load session holds back to write many at a time: one statement per table and batch
/// instead of one per row (`TableWriting.upsertBatched`, `upsertOnce`, diagnostics).
///
/// Order is kept where it matters: two rows with the same key never share a batch (the first
/// batch is written before the second row joins), and the session writes every batch before
/// any statement of another kind. Facts shared by many records (`upsertOnce`: a measurement's
/// station) are written before the rows of the same flush, as the rows may refer to them.
struct PendingWrites {
    struct Batch {
        let spec: UpsertTable
        /// Whether the outcomes count as the load's rows (`upsertOnce` facts do not).
        let counted: Bool
        var rows: [[StoreValue]] = []
    }

    private(set) var facts: [Batch] = []
    private(set) var rows: [Batch] = []
    private(set) var diagnostics: [[StoreValue]] = []
    private var index: [BatchKey: Int] = [:]
    private var keysByTable: [String: Set<[StoreValue]>] = [:]
    private(set) var count = 0

    private struct BatchKey: Hashable { let fingerprint: Int; let counted: Bool }

    var isEmpty: Bool { count == 0 }

    /// Whether a row of `table` with this key is already held.
    func holds(_ key: [StoreValue], of table: String) -> Bool {
        keysByTable[table]?.contains(key) ?? false
    }

    mutating func add(_ row: [StoreValue], key: [StoreValue], to spec: UpsertTable, counted: Bool) {
        let id = BatchKey(fingerprint: spec.fingerprint, counted: counted)
        if let at = index[id] {
            if counted { rows[at].rows.append(row) } else { facts[at].rows.append(row) }
        } else if counted {
            index[id] = rows.count
            rows.append(Batch(spec: spec, counted: true, rows: [row]))
        } else {
            index[id] = facts.count
            facts.append(Batch(spec: spec, counted: false, rows: [row]))
        }
        keysByTable[spec.table, default: []].insert(key)
        count += 1
    }

    mutating func addDiagnostic(_ row: [StoreValue]) {
        diagnostics.append(row)
        count += 1
    }

    /// Everything held, in the order to write it; leaves nothing held.
    mutating func take() -> (batches: [Batch], diagnostics: [[StoreValue]]) {
        defer { self = PendingWrites() }
        return (facts + rows, diagnostics)
    }
}

/// Batch statements in PostgreSQL's dialect: each column travels as one array parameter (a text
/// array literal cast to the column's type), `unnest` turns the arrays back into rows, in order.
enum PostgresBatchSQL {
    /// The multi-row form of `PostgresUpsertSQL.statement`: `RETURNING (xmax = 0)` gives a row
    /// per inserted (`true`) or updated (`false`) row; the rows it does not return were unchanged.
    ///
    /// The update takes the new values from `EXCLUDED`, which holds the inserted value — a
    /// declared insert fallback included — so rows with a NULL in a fallback column are not
    /// batched (`canBatch`): for them the update must see the NULL, not the fallback.
    static func upsert(_ spec: UpsertTable, types: [String: String]) -> String {
        let columns = spec.columns.joined(separator: ", ")
        let (inserted, _, _) = spec.upsertClauses(parameter: { "u.\($0)" }, existing: { "t.\($0)" }, differs: distinct)
        let (_, assignments, compared) = spec.upsertClauses(parameter: { "EXCLUDED.\($0)" }, existing: { "t.\($0)" }, differs: distinct)
        let sets = assignments + (spec.counted ? ["revision = t.revision + 1"] : [])
        let head = """
            INSERT INTO \(spec.table) AS t (\(columns))
            SELECT \(inserted.joined(separator: ", ")) FROM \(unnest(spec.columns, types: types))
            ORDER BY u.feedline_ordinal
            ON CONFLICT (\(spec.key.joined(separator: ", ")))
            """
        guard !sets.isEmpty, !compared.isEmpty else { return head + " DO NOTHING RETURNING (xmax = 0)" }
        return head + """
             DO UPDATE SET \(sets.joined(separator: ", "))
            WHERE \(compared.joined(separator: " OR "))
            RETURNING (xmax = 0)
            """
    }

    /// Appends rows to `table` in the order given.
    static func insert(into table: String, columns: [String], types: [String: String]) -> String {
        """
        INSERT INTO \(table) (\(columns.joined(separator: ", ")))
        SELECT \(columns.map { "u.\($0)" }.joined(separator: ", ")) FROM \(unnest(columns, types: types))
        ORDER BY u.feedline_ordinal
        """
    }

    /// Whether `row` can join a batch of `spec` (see `upsert`); `fallbacks` are the indexes
    /// of the columns with an insert fallback.
    static func canBatch(_ row: [StoreValue], fallbacks: [Int]) -> Bool {
        fallbacks.allSatisfy { row[$0] != .null }
    }

    /// The indexes of `spec`'s columns that have an insert fallback.
    static func fallbackIndexes(_ spec: UpsertTable) -> [Int] {
        spec.columns.indices.filter { spec.insertFallbacks[spec.columns[$0]] != nil }
    }

    /// One array parameter per column of `rows` (text array literals; see `arrayLiteral`),
    /// built in one pass over the rows.
    static func parameters(_ rows: [[StoreValue]], columns: [String], types: [String: String]) -> [StoreValue] {
        let integer = columns.map { integerTypes.contains(types[$0] ?? "text") }
        var literals = [String](repeating: "{", count: columns.count)
        for index in literals.indices { literals[index].reserveCapacity(rows.count * 8 + 2) }
        for (number, row) in rows.enumerated() {
            for index in columns.indices {
                if number > 0 { literals[index].append(",") }
                append(row[index], integer: integer[index], to: &literals[index])
            }
        }
        return literals.map { .text($0 + "}") }
    }

    private static let integerTypes: Set<String> = ["smallint", "integer", "bigint"]

    private static func distinct(_ existing: String, _ new: String) -> String { "\(existing) IS DISTINCT FROM \(new)" }

    private static func unnest(_ columns: [String], types: [String: String]) -> String {
        let arrays = columns.enumerated().map { "$\($0 + 1)::text::\(types[$1] ?? "text")[]" }
        return "unnest(\(arrays.joined(separator: ", "))) WITH ORDINALITY AS u(\(columns.joined(separator: ", ")), feedline_ordinal)"
    }

    /// `values` as a PostgreSQL array literal: `{"text",12,1.5,NULL}`. Text is quoted with `\`
    /// escaping `"` and `\`; doubles are written to round-trip (`Infinity`, `NaN` by name). A
    /// double bound for an integer column is rounded half to even, as PostgreSQL's cast does.
    static func arrayLiteral<Values: Sequence<StoreValue>>(_ values: Values, integer: Bool) -> String {
        var literal = "{"
        var first = true
        for value in values {
            if first { first = false } else { literal.append(",") }
            append(value, integer: integer, to: &literal)
        }
        literal.append("}")
        return literal
    }

    /// One element of an array literal (see `arrayLiteral`).
    private static func append(_ value: StoreValue, integer: Bool, to literal: inout String) {
        switch value {
        case .null: literal.append("NULL")
        case .integer(let v): literal.append(String(v))
        case .real(let v):
            if integer, v.isFinite, let whole = Int64(exactly: v.rounded(.toNearestOrEven)) { literal.append(String(whole)) }
            else if v.isNaN { literal.append("NaN") }
            else if v.isInfinite { literal.append(v < 0 ? "-Infinity" : "Infinity") }
            else { literal.append(v.description) }
        case .text(let v):
            literal.append("\"")
            if v.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for character in v.unicodeScalars {
                    if character == "\"" || character == "\\" { literal.append("\\") }
                    literal.unicodeScalars.append(character)
                }
            } else {
                literal.append(v)
            }
            literal.append("\"")
        }
    }
}
#endif
