#if PostgreSQL
import Foundation
import Pipeline

/// Read-only SQL on a PostgreSQL store (`DatabaseReading`): each statement in a read-only
/// transaction, rows through a cursor (see `PostgresStore.query`), `:name` parameters sent as
/// text whose type the server infers from the statement.
struct PostgresReading: DatabaseReading {
    let store: PostgresStore

    var location: String { store.location }

    func run(sql: String, parameters: [String: SQLValue], timeout: TimeInterval?,
             columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        try store.query(sql, parameters: parameters.mapValues(\.parameterText), timeout: timeout, columns: columns) {
            try row($0.map(SQLValue.init))
        }
    }

    func hasTable(_ name: String) throws -> Bool { try store.hasTable(name) }

    func check(sql: String) throws -> [String] { try store.checkQuery(sql) }

    /// The tables (ordinary and partitioned) and views of the store's schema in creation order,
    /// each column with its type as `format_type` writes it (`timestamptz` as the DDL says it,
    /// not `timestamp with time zone`) and its place in the primary key.
    func schema() throws -> DatabaseSchema {
        let objects = try store.link.run("""
            SELECT c.relname, CASE WHEN c.relkind = 'v' THEN 'view' ELSE 'table' END
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v')
            ORDER BY c.oid
            """).rows
        var relations: [DatabaseSchema.Relation] = []
        for object in objects {
            guard case .text(let name) = object[0], case .text(let kindText) = object[1],
                  let kind = DatabaseSchema.Kind(rawValue: kindText) else { continue }
            let columns = try store.link.run("""
                SELECT a.attname::text, replace(format_type(a.atttypid, a.atttypmod), 'timestamp with time zone', 'timestamptz'), a.attnotnull,
                       COALESCE((SELECT array_position(string_to_array(i.indkey::text, ' ')::int2[], a.attnum)
                                 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary), 0)
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relname = $1 AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """, [.text(name)]).rows.map { row -> DatabaseSchema.Column in
                func text(_ v: StoreValue) -> String { if case .text(let t) = v { t } else { "" } }
                func int(_ v: StoreValue) -> Int { if case .integer(let n) = v { Int(n) } else { 0 } }
                return DatabaseSchema.Column(name: text(row[0]), type: text(row[1]), notNull: int(row[2]) == 1,
                                             primaryKeyPosition: int(row[3]))
            }
            relations.append(DatabaseSchema.Relation(name: name, kind: kind, columns: columns))
        }
        return DatabaseSchema(relations: relations)
    }

    /// The declared schema's step when `feedline_migration` does not record it (a database
    /// only older feedlines migrated; any read-write command brings it to the declaration).
    func pendingMigrations() throws -> [String] {
        let applied = Set(try store.link.run("SELECT identifier FROM feedline_migration").rows.compactMap { row -> String? in
            if case .text(let t) = row.first { t } else { nil }
        })
        return applied.contains(PostgresSchema.declaredStep) ? [] : [PostgresSchema.declaredStep]
    }
}

extension PostgresStore {
    /// Read-only SQL on this store's database (`PostgresReading`).
    public func reading() throws -> any DatabaseReading { PostgresReading(store: self) }
}
#endif
