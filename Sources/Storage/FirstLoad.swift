import Foundation
import GRDB

/// The first load into a database file this process created writes the file directly, through a
/// rollback journal, instead of through the WAL.
///
/// Through the WAL, every page of a load is written twice — appended to the WAL, then copied into
/// the file by the checkpoint when the connection closes — and both files are synced, and the WAL
/// (as large as the load) is deleted. A new file has nothing to protect yet, so its first load
/// (a backfill, a replay of recorded pages into a fresh file) writes its pages once, into the
/// file: SQLite journals only the pages that existed before (the migrated, empty schema), syncs
/// the journal and the file (`synchronous = FULL`, as rollback mode needs), and deletes the small
/// journal. On a week of 640 stations this takes a fifth off the load's wall time. Afterwards the
/// file is switched back to WAL, and every later load goes through the WAL as before.
///
/// The price is concurrency during that one load: it holds the file the way rollback mode does, so
/// a reader that opens the file meanwhile waits for the commit (its busy timeout), instead of
/// reading the empty, just-migrated file beside it. If any other connection has the file open when
/// the load begins, the switch is not made (without waiting) and the load goes through the WAL.
///
/// A load killed part-way leaves a hot journal beside the file; SQLite rolls it back on the next
/// read-write open. Read-only opens cannot, so feedline's readers call `HotJournal.rollBack` first.
enum DirectFirstLoad {
    /// Switches the writer `db` (outside a transaction) from WAL to a rollback journal, if no other
    /// connection has the file open. Returns whether it switched; when it did, `end` must follow.
    static func begin(_ db: Database) throws -> Bool {
        var switched = false
        // NORMAL is safe in WAL mode only; a rollback journal needs its syncs in order.
        try db.execute(sql: "PRAGMA synchronous = FULL")
        defer { if !switched { try? db.execute(sql: "PRAGMA synchronous = NORMAL") } }
        do {
            switched = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")?.lowercased() == "delete"
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            // Another connection's hold on the WAL makes the switch fail at once (SQLite does not
            // wait for it): that connection stays, and the load goes through the WAL.
        }
        return switched
    }

    /// Switches `db` back to WAL after the load (committed or rolled back). A reader still
    /// reading makes this wait up to the busy timeout; if even then it cannot switch, the file
    /// stays in rollback mode until the next open switches it (every pool opens in WAL mode).
    static func end(_ db: Database) {
        try? db.execute(sql: "PRAGMA synchronous = NORMAL")
        _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
    }
}

/// The rollback journal a killed direct first load (`DirectFirstLoad`) leaves beside the file.
public enum HotJournal {
    /// Rolls back an interrupted write's journal at `path`-journal, if there is one, so read-only
    /// connections can read the file: SQLite refuses them while a hot journal is waiting
    /// ("attempt to write a readonly database"). This restores the last committed state — what
    /// any read-write connection does on its first read — and changes nothing else.
    ///
    /// A journal that belongs to a load still running is not hot: the read waits for that load's
    /// commit like any reader would (`busyTimeout`), and throws SQLite's busy error after it.
    public static func rollBack(path: String, busyTimeout: TimeInterval) throws {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path + "-journal"))?[.size] as? NSNumber,
              size.intValue > 0
        else { return }
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.label = "feedline.rollback"
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        // Reading the schema takes the shared lock, which is where SQLite plays a hot journal back.
        _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
    }
}
