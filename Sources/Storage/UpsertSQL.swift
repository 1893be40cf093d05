import Foundation
import Pipeline

/// A natural-key upsert as two statements over the same numbered parameters (`?1` … `?n`, in
/// `columns` order), so both bind the same values:
/// - `insert`: `INSERT … ON CONFLICT (key) DO NOTHING` — one changed row means inserted;
/// - `update`, run only when the key existed: `UPDATE … SET …, revision = revision + 1 WHERE
///   <key> AND (<a compared column differs>)` — one changed row means updated, none unchanged.
///
/// One `INSERT … ON CONFLICT DO UPDATE … RETURNING revision` would do it in one statement, but
/// SQLite runs `RETURNING` as a trigger, and a statement with a trigger keeps a statement journal
/// of every page it touches (spilled to a temporary file past 64 KiB): that doubled the disk
/// writes of a load.
///
/// Built from a feed's `UpsertTable`: columns in `ignoredInComparison` are written but never
/// compared (`payload_sha256`: the same row from another payload is unchanged); columns in
/// `keepKnown` are never erased by a later NULL. `insertFallbacks` gives, per column, an SQL
/// expression the insert uses when the bound value is NULL; `{column}` in it stands for the
/// value bound to that column. Tables with a `revision` column count their updates in it.
struct UpsertSQL: Sendable {
    let insert: String
    let update: String

    /// `insert` for `rows` rows at once, row `r` bound to parameters `?(r·n + 1)` … `?(r·n + n)`:
    /// `INSERT OR FAIL … VALUES (…), (…) ON CONFLICT (key) DO NOTHING`; changes equal to `rows`
    /// mean every row was inserted. `OR FAIL` (for CHECK and NOT NULL) rather than the default
    /// `ABORT`: a statement of several rows that may abort keeps a statement journal of every page
    /// it touches, to undo its own earlier rows, and that cost as much as the rows saved. A
    /// failing row still fails the load, whose one transaction is then rolled back whole.
    static func insert(_ spec: UpsertTable, rows: Int) -> String {
        let columns = spec.columns
        let tuples = (0..<rows).map { row in
            let parameter = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, "?\(row * columns.count + $0 + 1)") })
            let inserted = spec.insertedValues(parameter: { parameter[$0]! })
            return "(\(inserted.joined(separator: ", ")))"
        }
        return """
            INSERT OR FAIL INTO \(spec.table) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))
            ON CONFLICT (\(spec.key.joined(separator: ", "))) DO NOTHING
            """
    }

    init(_ spec: UpsertTable) {
        let (table, columns, key) = (spec.table, spec.columns, spec.key)
        let parameter = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, "?\($0 + 1)") })
        let (inserted, assignments, compared) = spec.upsertClauses(parameter: { parameter[$0]! }, existing: { $0 },
                                                                    differs: { "\($0) IS NOT \($1)" })
        insert = """
            INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(inserted.joined(separator: ", ")))
            ON CONFLICT (\(key.joined(separator: ", "))) DO NOTHING
            """
        // A table of key columns only has nothing to update: its update changes no row.
        let sets = assignments + (spec.counted ? ["revision = revision + 1"] : [])
        update = """
            UPDATE \(table) SET \((sets.isEmpty ? ["\(key[0]) = \(key[0])"] : sets).joined(separator: ", "))
            WHERE \(key.map { "\($0) = \(parameter[$0]!)" }.joined(separator: " AND "))
              AND (\(compared.isEmpty ? "0" : compared.joined(separator: " OR ")))
            """
    }
}
