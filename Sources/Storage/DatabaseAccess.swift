import Domain
import Foundation
import GRDB
import Pipeline

/// Why the feedline database could not be opened or written. Reads as one sentence; the CLI maps
/// the kind to an exit code (busy: 75, the others: 78).
public struct DatabaseAccessError: Error, CustomStringConvertible, Sendable, RetryabilityReporting {
    public enum Kind: Sendable, Equatable {
        /// A reader was pointed at a file that does not exist (readers never create one).
        case noDatabase
        /// Another connection held the write lock for longer than the busy timeout.
        case busy
        /// The file's migration table names a migration this feedline does not know.
        case newerSchema(migration: String)
        /// The file has tables of its own and no feedline migrations: another application's.
        case notFeedline
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// Busy is worth trying again later; the rest need a person.
    public var retryability: Retryability { kind == .busy ? .transient : .terminal }
}

/// What a database file holds, as seen through a read-only connection before anything writes.
enum DatabaseShape: Equatable {
    /// No file, a zero-length file, a SQLite file without a single table, view or trigger, or one
    /// holding only the migrator's empty `grdb_migrations` table (a first open that was killed).
    case empty
    /// feedline's: its migration table lists feedline's first migration. `applied` is the
    /// migration table in the order the migrations were applied.
    case feedline(applied: [String])
    /// Someone else's: schema objects, but no feedline migrations. `objects` names a few.
    case foreign(objects: [String])

    /// feedline's first migration: a migration table without it is not feedline's.
    static let feedlineMarker = "v1-ledger-and-air-quality"

    /// Looks at `path` read-only: nothing is created, written, or switched to WAL.
    static func inspect(path: String, busyTimeout: TimeInterval) throws -> DatabaseShape {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, (attributes[.size] as? NSNumber)?.intValue ?? 0 > 0 else { return .empty }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "feedline.inspect"
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in
            let objects = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') AND name NOT LIKE 'sqlite_%' ORDER BY rowid
                """)
            guard !objects.isEmpty else { return .empty }
            if objects.contains("grdb_migrations") {
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
                if applied.contains(feedlineMarker) { return .feedline(applied: applied) }
                // The migrator creates its (empty) table in autocommit mode before the first
                // migration's transaction: a first open killed between the two leaves just that.
                if objects == ["grdb_migrations"] && applied.isEmpty { return .empty }
            }
            return .foreign(objects: objects)
        }
    }
}

extension SQLiteStore {
    /// The refusal for a file that is not feedline's: nothing was written to it.
    static func notFeedlineError(path: String, objects: [String]) -> DatabaseAccessError {
        let shown = objects.prefix(5).joined(separator: ", ") + (objects.count > 5 ? ", …" : "")
        return DatabaseAccessError(.notFeedline, """
            \(path) is not a feedline database: it holds \(objects.count) table\(objects.count == 1 ? "" : "s") or view\(objects.count == 1 ? "" : "s") \
            of its own (\(shown)) and no feedline migrations, so feedline will not add its tables or switch it to WAL. \
            Point --db (or FEEDLINE_DB) at feedline's database, or at a new or empty file.
            """)
    }

    /// The refusal to write a database a newer feedline migrated.
    static func newerSchemaError(path: String, migration: String) -> DatabaseAccessError {
        DatabaseAccessError(.newerSchema(migration: migration),
                            "this database was written by a newer feedline (migration \(migration)); upgrade feedline to write to \(path). Reading it (query, report, status, intake) still works.")
    }

    /// The newest migration in `applied` that this feedline does not know, if any.
    static func unknownMigration(in applied: [String], known: [String]) -> String? {
        let known = Set(known)
        return applied.last { !known.contains($0) }
    }

    /// True for SQLite's "the database is locked" outcomes (the busy timeout ran out).
    static func isBusy(_ error: Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// "database is busy (held by …)" for a busy failure, naming what can be named.
    ///
    /// SQLite does not say which connection holds its write lock. The feedline runs recorded in
    /// `run_lock` (other than this process's own) are the likely holders and are named; when
    /// there are none, the holder is "another process". `run_lock` is read through a separate
    /// read-only connection, which does not wait for the writer in WAL mode; if even that
    /// fails, the holder stays unnamed.
    static func busyError(path: String, busyTimeout: TimeInterval, process: RunProcess) -> DatabaseAccessError {
        let holders = ((try? runLockHolders(path: path)) ?? []).filter { !($0.pid == process.pid && $0.host == process.host) }
        let named: String
        if holders.isEmpty {
            named = "another process"
        } else {
            let runs = holders.map { holder -> String in
                let host = holder.host == process.host ? "" : " on \(holder.host)"
                return "feedline run of \(holder.pipeline), pid \(holder.pid)\(host) since \(iso8601UTC(holder.acquiredAt))"
            }
            named = (runs.count == 1 ? "" : "one of: ") + runs.joined(separator: "; ")
        }
        return DatabaseAccessError(.busy, "database is busy (held by \(named)): \(path) stayed locked for more than \(secondsText(busyTimeout)) s; try again later.")
    }

    /// Runs `body`, turning a busy failure into `DatabaseAccessError.busy`.
    func reportingBusy<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error where Self.isBusy(error) {
            throw Self.busyError(path: path, busyTimeout: busyTimeout, process: process)
        }
    }

    private static func runLockHolders(path: String) throws -> [RunLockHolder] {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(0.2)
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db -> [RunLockHolder] in
            guard try db.tableExists("run_lock") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT * FROM run_lock ORDER BY acquired_at").compactMap(holder(from:))
        }
    }

    static func secondsText(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
