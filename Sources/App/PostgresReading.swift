import Foundation
import Pipeline
import PostgresStorage
import Storage

#if PostgreSQL
/// The readers' SQL (`report`, `intake`'s suggestions) on a PostgreSQL store: each statement in
/// a read-only transaction, rows through a cursor (see `PostgresStore.query`).
struct PostgresReading: SQLReading {
    let store: PostgresStore

    func run(sql: String, parameters: [String: SQLValue], timeout: TimeInterval?,
             columns: ([String]) throws -> Void, row: ([SQLValue]) throws -> Void) throws {
        try store.query(sql, parameters: parameters.mapValues(\.parameterText), timeout: timeout, columns: columns) {
            try row($0.map(SQLValue.init))
        }
    }
}
#endif
