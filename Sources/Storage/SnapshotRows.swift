import Foundation
import GRDB
import Pipeline

extension ReadOnlyDatabase {
    /// The rows a snapshot holds: `spec.columns` of `spec.table` (only the rows matching
    /// `spec.filter`, when given) in a stable order — by the key columns, then by every other
    /// column — read like any `feedline query`.
    public func snapshotRows(_ spec: SnapshotSpec) throws -> [[SQLValue]] {
        let columns = spec.columns.map(\.quotedDatabaseIdentifier)
        let order = (spec.key + spec.columns.filter { !spec.key.contains($0) }).map(\.quotedDatabaseIdentifier)
        // `AS checked`, as the `where:` was validated (`CheckSQL.filterProbe`).
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(spec.table.quotedDatabaseIdentifier) AS checked"
            + (spec.filter.map { " WHERE (\($0))" } ?? "") + " ORDER BY \(order.joined(separator: ", "))"
        return try fetchAll(sql: sql).rows
    }
}
