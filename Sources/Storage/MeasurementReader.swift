import Domain
import Foundation
import GRDB
import Pipeline

extension SQLiteStore {
    /// A pipeline's bookmarks (name → value).
    public func bookmarks(pipeline: String) throws -> [String: String] {
        try pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT name, value FROM bookmark WHERE pipeline = ?", arguments: [pipeline])
            return Dictionary(rows.map { ($0["name"] as String, $0["value"] as String) }, uniquingKeysWith: { _, b in b })
        }
    }
}
