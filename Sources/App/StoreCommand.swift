import ArgumentParser
import Foundation
import Pipeline
import PostgresStorage

/// `feedline store`: moving a database between stores.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Move a feedline database from SQLite to PostgreSQL.",
        subcommands: [StoreCopyCommand.self])
}

struct StoreCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a SQLite database into PostgreSQL: every table, bookmark and the ledger.",
        discussion: """
        Copies every table of a feedline SQLite database into a PostgreSQL database, in one transaction: the data, the bookmarks, the payload index, the diagnostics and the run ledger, with their ids. Runs against PostgreSQL then go on where the SQLite runs stopped: nothing is fetched again, and payloads already loaded are skipped.

        The PostgreSQL database must not have had feedline runs yet (a new database: `createdb feedline`); feedline creates its tables there first. A database that already holds a copy of the same source (the same number of rows in every table and the same runs) is left as it is, so running the copy again is safe. --replace empties the target's feedline tables and copies again. Every table's row count is checked against the source before the copy commits; on any difference or error nothing is kept.

        The source is brought to this feedline's schema first, as any run would. Stop scheduled runs on the source while it is copied. Needs a build with the PostgreSQL trait (`swift build -c release --traits PostgreSQL`).

        Examples:
          feedline store copy --to postgres://feedline@db.internal/feedline
          feedline store copy --from old.sqlite --to postgres://ingest@db/feedline
          FEEDLINE_DB=postgres://feedline@db.internal/feedline feedline store copy
        """)

    @Option(help: ArgumentHelp("The SQLite database to copy (default: --db or FEEDLINE_DB when it is a file, else the home's Data/feedline.sqlite).", valueName: "path"))
    var from: String?

    @Option(help: ArgumentHelp("The PostgreSQL database to copy into, postgres://user@host:port/dbname (default: --db or FEEDLINE_DB when it is a postgres:// URL). The password comes from PGPASSWORD or ~/.pgpass.", valueName: "url"))
    var to: String?

    @Flag(help: "Empty the target's feedline tables first (when it holds rows that are not a copy of the source).")
    var replace = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let configured = Paths(environment: env, database: global.db)
        let source: URL
        if let from {
            guard !PostgresAddress.isURL(from) else {
                env.errorOutput("error: --from must be a SQLite file; copying out of PostgreSQL is not supported (use pg_dump).")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            source = env.resolve(from)
        } else if configured.postgresURL == nil {
            source = configured.database
        } else {
            source = env.home?.resolve(nil, default: "Data/feedline.sqlite") ?? env.resolve("Data/feedline.sqlite")
        }
        guard let target = to ?? configured.postgresURL else {
            env.errorOutput("error: say where to copy to: --to postgres://user@host:port/dbname (or --db / FEEDLINE_DB set to such a URL).")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        guard PostgresAddress.isURL(target) else {
            env.errorOutput("error: --to must be a postgres:// or postgresql:// URL, not '\(target)'.")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var paths = configured
        paths.postgresURL = target
        try finish(Console(environment: env).copyStore(from: source, to: paths, replace: replace))
    }
}

extension Console {
    /// `feedline store copy`: prints the tables copied and their verified counts.
    func copyStore(from source: URL, to paths: Paths, replace: Bool) -> ExitStatus {
        guard FileManager.default.fileExists(atPath: source.path) else {
            environment.errorOutput("error: there is no SQLite database at \(source.path) to copy (--from names another).")
            return .configuration
        }
        let report: StoreCopyReport
        do {
            report = try environment.copyStore(from: source.path, to: paths, replace: replace) { table, copied, total in
                // Only tables that take a while are announced.
                if copied == 0 && total >= 50_000 { environment.errorOutput("note: copying \(table) (\(TerminalProgress.grouped(total)) rows)") }
            }
        } catch let error as PostgresStoreError where !error.isConnectionFailure {
            environment.errorOutput("error: \(error)")
            return .failure
        } catch {
            return databaseOpenFailure(error, paths: paths)
        }
        let rows = report.tables.reduce(0) { $0 + $1.target }
        switch report.outcome {
        case .alreadyCopied:
            environment.output("\(paths.databaseName) already holds a copy of \(source.path): the same rows in every table (\(TerminalProgress.grouped(rows))) and the same runs; nothing written.")
        case .copied:
            let width = max(5, report.tables.map(\.name.count).max() ?? 0)
            environment.output("copied \(source.path) into \(paths.databaseName)")
            environment.output("  " + "table".padding(toLength: width, withPad: " ", startingAt: 0) + "  rows")
            for table in report.tables.sorted(by: { $0.name < $1.name }) where table.target > 0 {
                environment.output("  " + table.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalProgress.grouped(table.target))
            }
            let empty = report.tables.filter { $0.target == 0 }.count
            environment.output("\(report.tables.count) tables (\(empty) empty), \(TerminalProgress.grouped(rows)) rows; every count matches the source.")
        }
        return .success
    }
}
