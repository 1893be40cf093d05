import App
import Foundation
import GRDB
import Pipeline
import PostgresStorage

/// The stores the shared suites (end-to-end, fault matrix, kill -9) run against: SQLite always,
/// PostgreSQL too in a build with the `PostgreSQL` trait. In such a build the PostgreSQL case
/// needs a server (`FEEDLINE_TEST_POSTGRES_URL`, set by `scripts/test`): without one it fails,
/// it is never skipped.
public enum TestStore: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    /// The stores this build tests.
    public static var all: [TestStore] {
        #if PostgreSQL
        [.sqlite, .postgres]
        #else
        [.sqlite]
        #endif
    }

    public var description: String { rawValue }
}

/// One test's database on one store: a SQLite file in a temporary directory, or a fresh
/// database of its own on the test server. Assertions read it as text (`NULL` for NULL), the
/// same way on both stores: integers and doubles as Swift prints them, instants as ISO-8601 UTC,
/// dates as `YYYY-MM-DD`.
public struct TestDatabase: Sendable {
    public let store: TestStore
    /// The SQLite file (for PostgreSQL: unused).
    public let file: URL
    /// The PostgreSQL URL of the test's own database.
    public let postgresURL: String?

    /// - Parameters:
    ///   - file: where the SQLite database goes.
    ///   - name: a short name for the PostgreSQL database (made unique here).
    public init(_ store: TestStore, file: URL, name: String = "t") throws {
        self.store = store
        self.file = file
        switch store {
        case .sqlite: postgresURL = nil
        case .postgres: postgresURL = try TestServer.database(name)
        }
    }

    /// What `--db` takes: the file's path or the URL.
    public var argument: String { postgresURL ?? file.path }

    /// Every row of `sql` as text (`NULL` for NULL).
    public func rows(_ sql: String) throws -> [[String]] {
        switch store {
        case .sqlite:
            let queue = try openForAssertions(file.path)
            defer { try? queue.close() }
            return try queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { $0.isNull ? "NULL" : "\($0.storage.value!)" } }
            }
        case .postgres:
            return try TestServer.rows(postgresURL!, sql).map { $0.map(Self.text) }
        }
    }

    /// The first column of the first row of `sql`.
    public func value(_ sql: String) throws -> String? { try rows(sql).first?.first }

    /// One integer (-1 when there is no row).
    public func integer(_ sql: String) throws -> Int { try value(sql).flatMap { Int($0) } ?? -1 }

    /// The first column of every row.
    public func strings(_ sql: String) throws -> [String] { try rows(sql).map { $0.first ?? "" } }

    /// Whether the database exists and holds all these tables (a run killed during its first
    /// migrations may have left none).
    public func hasTables(_ names: [String]) throws -> Bool {
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        switch store {
        case .sqlite:
            guard FileManager.default.fileExists(atPath: file.path) else { return false }
            return try integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (\(list))") == names.count
        case .postgres:
            return try integer("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN (\(list))") == names.count
        }
    }

    /// The store's own consistency check: SQLite's `PRAGMA integrity_check` is `ok`. PostgreSQL
    /// keeps its own consistency (WAL, MVCC); there it is whether the database answers at all.
    public func isIntact() throws -> Bool {
        switch store {
        case .sqlite: try strings("PRAGMA integrity_check") == ["ok"]
        case .postgres: try value("SELECT 1") == "1"
        }
    }

    /// Tables that record *that* something ran rather than data: the ledger, its diagnostics,
    /// quota counters (a failed run's calls did happen and count), run locks, claimed schedule slots, each store's
    /// migration bookkeeping.
    public static let bookkeeping: Set<String> = ["run", "diagnostic", "api_call", "run_lock", "schedule_slot", "grdb_migrations", "sqlite_sequence", "feedline_migration"]

    /// Every table's rows as text, tables by name and rows sorted, for before/after comparisons
    /// on one store.
    ///
    /// - Parameters:
    ///   - excludingTables: tables left out.
    ///   - excludingColumns: columns left out of every table (e.g. `run_id`, which differs between databases).
    public func dump(excludingTables: Set<String> = bookkeeping, excludingColumns: Set<String> = []) throws -> String {
        let tables = switch store {
        case .sqlite: try strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        case .postgres: try strings("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1")
        }
        var out: [String] = []
        for table in tables where !excludingTables.contains(table) {
            let columns = try self.columns(of: table).filter { !excludingColumns.contains($0) }
            guard !columns.isEmpty else { continue }
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            // Sorted here, not by the server: the same order whatever the store's collation.
            let lines = try rows("SELECT \(list) FROM \"\(table)\"").map { row in
                zip(columns, row).map { "\($0)=\($1)" }.joined(separator: "|")
            }.sorted()
            out.append("## \(table) (\(lines.count))")
            out.append(contentsOf: lines)
        }
        return out.joined(separator: "\n")
    }

    /// A table's columns in their order.
    public func columns(of table: String) throws -> [String] {
        switch store {
        case .sqlite: try rows("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").map { $0[0] }
        case .postgres: try strings("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '\(table)' ORDER BY ordinal_position")
        }
    }

    static func text(_ value: StoreValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): "\(v)"
        case .real(let v): "\(v)"
        case .text(let v): v
        }
    }

    /// The first line where two dumps differ, for readable failures.
    public static func firstDifference(_ a: String, _ b: String) -> String {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false), y = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(x.count, y.count) where (i < x.count ? x[i] : "<end>") != (i < y.count ? y[i] : "<end>") {
            return "line \(i + 1):\n  got      \(i < x.count ? x[i] : "<end>")\n  expected \(i < y.count ? y[i] : "<end>")"
        }
        return "identical"
    }
}

/// The test PostgreSQL server `scripts/test` starts (`FEEDLINE_TEST_POSTGRES_URL`). Each test
/// works in a database of its own.
public enum TestServer {
    /// The server's URL; fails (never skips) when the variable is not set.
    public static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["FEEDLINE_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw TestServerMissing()
        }
        return url
    }

    private static let counter = Counter()

    /// Creates a fresh database (dropping a leftover of the same name) and returns its URL.
    public static func database(_ name: String) throws -> String {
        let url = try url()
        let database = "t_\(name.filter { $0.isLetter || $0.isNumber || $0 == "_" }.prefix(30))_\(getpid())_\(counter.next())"
        #if PostgreSQL
        let server = try PostgresAddress(parsing: url)
        try PostgresStore.createDatabase(database, server: server, environment: [:], replacing: true)
        #else
        throw TestServerMissing()
        #endif
        // The same URL with the last path segment (the database name) replaced.
        let (base, query) = url.firstIndex(of: "?").map { (url[..<$0], url[$0...]) } ?? (url[...], ""[...])
        guard let slash = base.lastIndex(of: "/"), base[..<slash].hasSuffix("/") == false else { return "\(base)/\(database)\(query)" }
        return "\(base[...slash])\(database)\(query)"
    }

    /// Every row of `sql` in the database at `url`, read as the store reads values.
    public static func rows(_ url: String, _ sql: String) throws -> [[StoreValue]] {
        #if PostgreSQL
        try PostgresStore.rows(sql, at: PostgresAddress(parsing: url), environment: [:])
        #else
        throw TestServerMissing()
        #endif
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }
}

public struct TestServerMissing: Error, CustomStringConvertible {
    public init() {}
    public var description: String {
        #if PostgreSQL
        "FEEDLINE_TEST_POSTGRES_URL is not set: this build has the PostgreSQL trait, so its tests need a server (scripts/test --postgres-only starts one)"
        #else
        "this build has no PostgreSQL store (swift build --traits PostgreSQL)"
        #endif
    }
}
