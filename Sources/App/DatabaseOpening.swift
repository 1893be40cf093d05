import Foundation
import Pipeline
import PostgresStorage
import Storage

extension AppEnvironment {
    /// Opens the database at `paths.database`: for writing (`run`, `replay`: created and migrated
    /// if needed, refused when it is another application's or a newer feedline's) or for reading
    /// (`status`, `intake`: never created or written). The busy timeout comes from
    /// `FEEDLINE_BUSY_TIMEOUT_MS` (default 10 s for writers, 5 s for readers).
    func openStore(_ paths: Paths, forWriting: Bool = true) throws -> any FeedlineStore {
        if let url = paths.postgresURL { return try openPostgres(url, forWriting: forWriting) }
        let timeout = try Self.busyTimeout(variables)
        if forWriting { return try SQLiteStore(path: paths.database.path, schema: storeSchema, busyTimeout: timeout ?? 10) }
        return try SQLiteStore(readingAt: paths.database.path, busyTimeout: timeout ?? 5)
    }

    /// A read-only SQL connection for the readers (`report`, `intake`): the SQLite file (never
    /// created, never migrated), or the PostgreSQL database (which must already be feedline's).
    func openReader(_ paths: Paths) throws -> any SQLReading {
        guard let url = paths.postgresURL else {
            return try ReadOnlyDatabase(path: paths.database.path, busyTimeout: Self.busyTimeout(variables) ?? 5)
        }
        let store = try openStore(paths, forWriting: false)
        #if PostgreSQL
        if let postgres = store as? PostgresStore { return PostgresReading(store: postgres) }
        #endif
        throw PostgresUnavailable(address: try PostgresAddress(parsing: url))
    }

    /// The existing database opened for reading, or nil when there is none yet: dry runs and
    /// backfill plans read what is there and never create a file.
    func existingStore(_ paths: Paths) throws -> (any FeedlineStore)? {
        if paths.postgresURL != nil {
            do { return try openStore(paths, forWriting: false) } catch is PostgresNoFeedlineDatabase { return nil }
        }
        guard FileManager.default.fileExists(atPath: paths.database.path) else { return nil }
        return try openStore(paths, forWriting: false)
    }

    /// Why the database could not be opened, and the exit status: 75 when it was busy (or a
    /// PostgreSQL server could not be reached), 78 when
    /// it is missing, refused or the timeout setting is bad, 1 otherwise.
    func databaseOpenRefusal(_ error: Error, paths: Paths) -> CommandRefusal {
        switch error {
        case let error as DatabaseAccessError:
            return CommandRefusal(error.kind == .busy ? .temporaryFailure : .configuration, error: "\(error)")
        case let error as RetryConfigurationError:
            return CommandRefusal(.configuration, error: "\(error)")
        case let error as PostgresAddressError:
            return CommandRefusal(.configuration, error: "\(error)")
        case let error as PostgresUnavailable:
            return CommandRefusal(.configuration, error: "\(error)")
        case let error as PostgresStoreError where error.isConnectionFailure:
            return CommandRefusal(.temporaryFailure, error: "\(error)")
        case let error as PostgresNoFeedlineDatabase:
            return CommandRefusal(.configuration, error: "\(error)")
        default:
            return CommandRefusal(.failure, error: "cannot open the database \(paths.databaseName): \(error)")
        }
    }

    /// `feedline store copy`: opens the SQLite file at `source` for writing (which brings it to
    /// this feedline's schema, as any run would) and the PostgreSQL store `paths` names, then
    /// copies the one into the other (see `PostgresStore.copy`).
    public func copyStore(from source: String, to paths: Paths, replace: Bool,
                          progress: (_ table: String, _ copied: Int, _ of: Int) -> Void) throws -> StoreCopyReport {
        let target = try openStore(paths, forWriting: true)
        var sourcePaths = paths
        sourcePaths.postgresURL = nil
        sourcePaths.database = URL(fileURLWithPath: source)
        _ = try openStore(sourcePaths, forWriting: true)
        #if PostgreSQL
        guard let postgres = target as? PostgresStore else { throw PostgresStoreError("\(paths.databaseName) is not a PostgreSQL store") }
        return try postgres.copy(from: try SQLiteExport(path: source), replace: replace, progress: progress)
        #else
        throw PostgresStoreError("\(paths.databaseName): \(target.location) is not a PostgreSQL store")
        #endif
    }

    /// The PostgreSQL store at `url` (a build without the PostgreSQL trait says how to get one).
    private func openPostgres(_ url: String, forWriting: Bool) throws -> any FeedlineStore {
        let address = try PostgresAddress(parsing: url, environment: variables)
        #if PostgreSQL
        let process = RunProcess.current
        return try PostgresStore(address: address, environment: variables, schema: storeSchema, forWriting: forWriting,
                                 host: process.host, pid: process.pid, isProcessAlive: process.isAlive)
        #else
        throw PostgresUnavailable(address: address)
        #endif
    }

    /// `FEEDLINE_BUSY_TIMEOUT_MS`: how long a command waits for another process's write lock
    /// before giving up with exit 75; nil when unset.
    static func busyTimeout(_ variables: [String: String]) throws -> TimeInterval? {
        guard let raw = variables["FEEDLINE_BUSY_TIMEOUT_MS"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        guard let ms = Int(raw), (0...3_600_000).contains(ms) else {
            throw RetryConfigurationError(message: "FEEDLINE_BUSY_TIMEOUT_MS must be a whole number in 0…3600000, not '\(raw)'.")
        }
        return Double(ms) / 1000
    }
}

extension Console {
    /// Refuses a command that reads SQLite files directly when the store is PostgreSQL.
    func sqliteOnly(_ paths: Paths, command: String) -> ExitStatus? {
        guard paths.postgresURL != nil else { return nil }
        environment.errorOutput("error: `feedline \(command)` reads SQLite databases only so far; the store here is PostgreSQL (\(paths.databaseName)).")
        environment.errorOutput("hint: query PostgreSQL with psql (the same tables and views), or copy the data to a SQLite file and point --db at it.")
        return .configuration
    }

    /// Prints a refusal on standard error and returns its exit status.
    func refused(_ refusal: CommandRefusal) -> ExitStatus {
        refusal.lines.forEach(environment.errorOutput)
        return refusal.status
    }

    /// Says on stderr why the database could not be opened and returns the exit status.
    func databaseOpenFailure(_ error: Error, paths: Paths) -> ExitStatus {
        refused(environment.databaseOpenRefusal(error, paths: paths))
    }
}

/// `--db postgres://…` in a build without the PostgreSQL trait.
struct PostgresUnavailable: Error, CustomStringConvertible {
    let address: PostgresAddress
    var description: String { "cannot open \(address): \(PostgresSupport.buildHint)." }
}
