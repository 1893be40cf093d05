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

// MARK: - BookmarkState

extension SQLiteStore: BookmarkState {
    public func allBookmarks() throws -> [String: [String: String]] {
        try pool.read { db in
            var out: [String: [String: String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT pipeline, name, value FROM bookmark ORDER BY pipeline, name") {
                out[row["pipeline"] as String, default: [:]][row["name"] as String] = row["value"] as String
            }
            return out
        }
    }

    public func ledgerPipelines() throws -> Set<String> {
        try pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT pipeline FROM run UNION SELECT DISTINCT pipeline FROM bookmark"))
        }
    }

    public func replaceBookmarks(_ bookmarks: [String: [String: String]], at: Date) throws {
        try reportingBusy {
            try pool.write { db in
                let time = iso8601UTC(at)
                for (pipeline, values) in bookmarks.sorted(by: { $0.key < $1.key }) {
                    try db.execute(sql: "DELETE FROM bookmark WHERE pipeline = ?", arguments: [pipeline])
                    try db.execute(sql: """
                        INSERT INTO run (pipeline, mode, started_at, finished_at, status, host, pid) VALUES (?, 'replay', ?, ?, 'succeeded', ?, ?)
                        """, arguments: [stateImportRunName(pipeline), time, time, process.host, process.pid])
                    let run = db.lastInsertedRowID
                    for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                        try db.execute(sql: "INSERT INTO bookmark (pipeline, name, value, run_id) VALUES (?, ?, ?, ?)",
                                       arguments: [pipeline, name, value, run])
                    }
                }
            }
        }
    }

    public func clearBookmarks(pipeline: String) throws -> Int {
        try reportingBusy {
            try pool.write { db in
                try db.execute(sql: "DELETE FROM bookmark WHERE pipeline = ?", arguments: [pipeline])
                return db.changesCount
            }
        }
    }
}
