#if PostgreSQL
import Domain
import Foundation
import Pipeline

extension PostgresStore: TableImport {
    /// Copies every table of `source` (a feedline SQLite database) into this store, in one
    /// transaction: rows, bookmarks, the payload index and the ledger, with their ids, so
    /// incremental runs go on where they stopped and nothing is fetched again.
    ///
    /// - The target must be unused (no runs, payloads or bookmarks; the rows its migrations
    ///   seeded are replaced by the source's), or `replace` empties its tables first. A
    ///   target that already holds the same number of rows in every table and the same runs
    ///   (an earlier copy of this source) is left as it is: `.alreadyCopied`.
    /// - Tables go in foreign-key order; identity columns continue after the copied ids.
    /// - Every table's count is compared with the source's before the commit; a difference
    ///   (the source changed while it was read) rolls everything back.
    /// - `run_lock` is not copied: it says which processes hold run locks now.
    public func copy(from source: any TableExport, replace: Bool,
                     progress: (_ table: String, _ copied: Int, _ of: Int) -> Void = { _, _, _ in }) throws -> StoreCopyReport {
        guard let loadLink else { throw PostgresStoreError("\(address) was opened for reading; a copy needs a store opened for writing") }
        loadLock.lock(); defer { loadLock.unlock() }
        let exported = try source.tables().filter { $0.name != "run_lock" }
        return try loadLink.transaction {
            // One copy at a time into a database.
            try loadLink.run("SELECT pg_advisory_xact_lock($1)", [.integer(Self.advisoryKey("feedline store copy"))])
            let known = Set(try loadLink.run("""
                SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                """).rows.compactMap { $0.first?.textValue })
            for table in exported {
                guard known.contains(table.name) else {
                    throw PostgresStoreError("\(source.location) has a table \(table.name) that \(address) lacks: was it made by a newer feedline?")
                }
                let missing = Set(table.columns).subtracting(try columnTypes.types(of: table.name, link: loadLink).keys)
                guard missing.isEmpty else {
                    throw PostgresStoreError("\(table.name) in \(source.location) has columns \(address) lacks: \(missing.sorted().joined(separator: ", "))")
                }
            }
            let ordered = try Self.foreignKeyOrder(exported, link: loadLink)
            let held = try Dictionary(uniqueKeysWithValues: ordered.map { table in
                (table.name, try Self.count(table.name, link: loadLink))
            })
            // A database no run has used holds only what its migrations seeded (provinces,
            // activity profiles): the source's own versions of those rows replace them.
            let unused = ["run", "payload", "bookmark"].allSatisfy { (held[$0] ?? 0) == 0 }
            if held.values.contains(where: { $0 > 0 }) && !unused {
                if try !replace && Self.isCopy(of: source, tables: ordered, held: held, link: loadLink) {
                    return StoreCopyReport(outcome: .alreadyCopied, tables: ordered.map { ($0.name, $0.rowCount, held[$0.name] ?? 0) })
                }
                guard replace else {
                    let filled = ordered.filter { (held[$0.name] ?? 0) > 0 }.sorted { held[$0.name]! > held[$1.name]! }
                    let listed = filled.prefix(4).map { "\($0.name) \(held[$0.name]!)" }.joined(separator: ", ")
                    throw PostgresStoreError("""
                        \(address) already holds rows (\(listed)\(filled.count > 4 ? ", …" : "")) that are not a copy of \(source.location): \
                        copy into an empty database, or pass --replace to empty its feedline tables first
                        """)
                }
            }
            if held.values.contains(where: { $0 > 0 }) {
                try loadLink.run("TRUNCATE \(ordered.map(\.name).joined(separator: ", ")) RESTART IDENTITY CASCADE")
            }
            for table in ordered {
                let types = try columnTypes.types(of: table.name, link: loadLink)
                let sql = PostgresBatchSQL.insert(into: table.name, columns: table.columns, types: types)
                var copied = 0
                progress(table.name, 0, table.rowCount)
                try source.rows(of: table.name, columns: table.columns, chunk: 2_000) { rows in
                    try loadLink.send(sql, PostgresBatchSQL.parameters(rows, columns: table.columns, types: types))
                    copied += rows.count
                    progress(table.name, copied, table.rowCount)
                }
            }
            try loadLink.drain()
            try Self.continueIdentities(ordered.map(\.name), link: loadLink)
            var report = StoreCopyReport(outcome: .copied, tables: [])
            for table in ordered {
                let count = try Self.count(table.name, link: loadLink)
                report.tables.append((table.name, table.rowCount, count))
                guard count == table.rowCount else {
                    throw PostgresStoreError("""
                        \(table.name): \(table.rowCount) rows in \(source.location) but \(count) copied (did a run write to it during the copy?); \
                        nothing was kept
                        """)
                }
            }
            return report
        }
    }

    private static func count(_ table: String, link: PostgresLink) throws -> Int {
        guard case .integer(let n) = try link.run("SELECT count(*) FROM \(table)").scalar else { return 0 }
        return Int(n)
    }

    /// Whether the target is a copy of `source` already: the same count in every table, and
    /// the same runs with the same outcomes.
    private static func isCopy(of source: TableExport, tables: [ExportedTable], held: [String: Int], link: PostgresLink) throws -> Bool {
        guard tables.allSatisfy({ held[$0.name] == $0.rowCount }) else { return false }
        var sourceRuns: [[StoreValue]] = []
        try source.rows(of: "run", columns: ["id", "pipeline", "status"], chunk: 10_000) { sourceRuns += $0 }
        return try link.run("SELECT id, pipeline, status FROM run ORDER BY id").rows == sourceRuns.sorted { ($0[0].integerValue ?? 0) < ($1[0].integerValue ?? 0) }
    }

    /// `tables` so that every table comes after the tables its foreign keys refer to (by name
    /// where the order is free).
    static func foreignKeyOrder(_ tables: [ExportedTable], link: PostgresLink) throws -> [ExportedTable] {
        let edges = try link.run("""
            SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
            WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
            """).rows.compactMap { row -> (String, String)? in
            guard let child = row[0].textValue, let parent = row[1].textValue, child != parent else { return nil }
            return (child, parent)
        }
        var pending = tables.sorted { $0.name < $1.name }
        var placed: Set<String> = [], ordered: [ExportedTable] = []
        let names = Set(tables.map(\.name))
        while !pending.isEmpty {
            guard let next = pending.firstIndex(where: { table in
                edges.allSatisfy { $0.0 != table.name || placed.contains($0.1) || !names.contains($0.1) }
            }) else {
                throw PostgresStoreError("the foreign keys among \(pending.map(\.name).joined(separator: ", ")) form a cycle")
            }
            placed.insert(pending[next].name)
            ordered.append(pending.remove(at: next))
        }
        return ordered
    }

    /// Identity columns go on after the largest copied value.
    private static func continueIdentities(_ tables: [String], link: PostgresLink) throws {
        for table in tables {
            let identities = try link.run("""
                SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) AND attidentity <> '' AND NOT attisdropped
                """, [.text(table)]).rows.compactMap { $0.first?.textValue }
            for column in identities {
                try link.run("""
                    SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(\(column)) FROM \(table)), 0) + 1, false)
                    """, [.text(table), .text(column)])
            }
        }
    }
}

extension StoreValue {
    var textValue: String? { if case .text(let v) = self { v } else { nil } }
    var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
}
#endif
