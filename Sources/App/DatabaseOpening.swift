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

    /// A read-only SQL connection for the readers (`report`, `intake`, `query`): the SQLite file
    /// (never created, never migrated), or the PostgreSQL database (which must already be
    /// feedline's).
    func openReader(_ paths: Paths) throws -> any DatabaseReading {
        guard paths.postgresURL != nil else {
            return try ReadOnlyDatabase(path: paths.database.path, busyTimeout: Self.busyTimeout(variables) ?? 5)
        }
        return try openStore(paths, forWriting: false).reading()
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
    /// this feedline's schema, as any run would) and the store `paths` names, then copies the one
    /// into the other (`TableImport`; the PostgreSQL store takes copies).
    public func copyStore(from source: String, to paths: Paths, replace: Bool,
                          progress: (_ table: String, _ copied: Int, _ of: Int) -> Void) throws -> StoreCopyReport {
        let target = try openStore(paths, forWriting: true)
        var sourcePaths = paths
        sourcePaths.postgresURL = nil
        sourcePaths.database = URL(fileURLWithPath: source)
        _ = try openStore(sourcePaths, forWriting: true)
        guard let importing = target as? any TableImport else {
            throw StoreCopyRefusal(message: "\(paths.databaseName): \(target.location) does not take copies; `store copy` copies into a PostgreSQL store")
        }
        return try importing.copy(from: try SQLiteExport(path: source), replace: replace, progress: progress)
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

/// `store copy` into a store that does not take copies.
struct StoreCopyRefusal: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// `--db postgres://…` in a build without the PostgreSQL trait.
struct PostgresUnavailable: Error, CustomStringConvertible {
    let address: PostgresAddress
    var description: String { "cannot open \(address): \(PostgresSupport.buildHint)." }
}
