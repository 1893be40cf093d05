import ArgumentParser
import Foundation
import Pipeline
import PostgresStorage

// MARK: - Command

struct DescribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Describe the database: every table and view with its meaning and row count, or one table's columns with their types, units and meaning.",
        discussion: """
        Without a name, lists every table and view: what one row is, and how many rows it holds; feedline's internal tables (migrations, locks, bookmarks, quota counters) come last, marked as such. With a name, lists that table's or view's columns: type (as the database declares it), unit (µg/m³, ppm, km, %…), whose value it is (AirKorea's published grade or index, or the one feedline computed) and meaning, with the scale of grades and indices (1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨).

        The database (a SQLite file or a PostgreSQL database) is only read (a read-only file works); a missing database exits 78. Views over large tables are counted for at most a second in the list (shown as ? when stopped); describing the view alone counts it with more time.

        --datasette prints the same dictionary as Datasette metadata (descriptions, column descriptions, units; internal tables hidden), keyed by the database file's name without its extension; it needs no database.

        Examples:
          feedline describe
          feedline describe measurement
          feedline describe grade_agreement --json
          feedline describe --datasette > metadata.json
          datasette Data/feedline.sqlite -m metadata.json
        """)

    @Argument(help: ArgumentHelp("A table or view to describe. Default: list them all.", valueName: "table-or-view"))
    var name: String?

    @Flag(help: "Print JSON (sorted keys) instead of a table.")
    var json = false

    @Flag(help: "Print Datasette metadata JSON for `datasette FILE -m metadata.json`.")
    var datasette = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if json && datasette { throw ValidationError("--json and --datasette exclude each other.") }
        if datasette && name != nil { throw ValidationError("--datasette describes the whole database; it takes no table name.") }
    }

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db)
        let output: DescribeRequest.Output = datasette ? .datasette : json ? .json : .text(width: TerminalWidth.columns(env.variables))
        try finish(Console(environment: env).describe(DescribeRequest(name: name, output: output), paths: paths))
    }
}

// MARK: - Use case

/// What `feedline describe` was asked for.
public struct DescribeRequest: Sendable {
    public enum Output: Sendable, Equatable {
        /// Aligned text, wrapped to `width` terminal columns.
        case text(width: Int)
        /// JSON with sorted keys.
        case json
        /// Datasette metadata JSON.
        case datasette
    }

    /// The table or view to describe; nil for all of them.
    public var name: String?
    public var output: Output
    /// Seconds a view may take to count in the overview before it is shown as `?`.
    public var overviewCountTimeout: TimeInterval
    /// Seconds a table, or the one view described, may take to count.
    public var countTimeout: TimeInterval

    public init(name: String? = nil, output: Output = .text(width: 100), overviewCountTimeout: TimeInterval = 1,
                countTimeout: TimeInterval = 30) {
        self.name = name
        self.output = output
        self.overviewCountTimeout = overviewCountTimeout
        self.countTimeout = countTimeout
    }
}

extension Console {
    /// Prints the database's tables and views (or one of them) with their meaning, row counts and
    /// columns, or the dictionary as Datasette metadata. Exit: 0 described; 78 no database,
    /// another application's, or no such table or view (with close names); 75 busy; 1 a read failed.
    public func describe(_ request: DescribeRequest, paths: Paths) -> ExitStatus {
        let out = environment.output, err = environment.errorOutput
        if request.output == .datasette {
            // Datasette keys a database by its file's stem; a PostgreSQL store by its database's name.
            let stem = paths.postgresURL.flatMap { try? PostgresAddress(parsing: $0).database }
                ?? paths.database.deletingPathExtension().lastPathComponent
            do { out(try DatasetteMetadata(databaseName: stem, declared: environment.declaredSchema,
                                                     sources: environment.feeds.map(\.source),
                                                     savedQueries: SavedQuery.all(in: paths.queries)).json()) } catch {
                err("error: cannot write the Datasette metadata: \(error)")
                return .failure
            }
            return .success
        }

        // A reader: never creates, migrates or writes; missing or foreign databases exit 78.
        let store: any FeedlineStore
        do { store = try environment.openStore(paths, forWriting: false) } catch { return databaseOpenFailure(error, paths: paths) }
        let database: any DatabaseReading
        let schema: DatabaseSchema
        do {
            database = try store.reading()
            schema = try database.schema()
        } catch {
            err("error: cannot read the database \(paths.databaseName): \(error)")
            return .failure
        }
        if let pending = try? database.pendingMigrations(), !pending.isEmpty {
            err("note: this database predates the current schema (missing: \(pending.joined(separator: ", "))); "
                + "any read-write command such as `feedline run` upgrades it.")
        }

        let declared = environment.declaredSchema
        do {
            if let name = request.name {
                let all = SchemaDescription(schema: schema, declared: declared)
                guard let found = schema.relation(name) else {
                    let close = all.names(closeTo: name)
                    err("error: no table or view named '\(name)' in \(paths.databaseName)."
                        + (close.isEmpty ? "" : " Did you mean: \(close.joined(separator: ", "))?")
                        + " `feedline describe` lists them all.")
                    return .configuration
                }
                let rows = database.rowCount(of: found.name, timeout: request.countTimeout)
                let described = SchemaDescription(schema: DatabaseSchema(relations: [found]), declared: declared,
                                                  rows: rows.map { [found.name: $0] } ?? [:])
                let relation = described.relations[0]
                switch request.output {
                case .text(let width): out(described.relationText(relation, width: width))
                case .json: out(try SchemaDescription.json(relation))
                case .datasette: break
                }
            } else {
                var rows: [String: Int] = [:]
                for relation in schema.relations {
                    let timeout = relation.kind == .table ? request.countTimeout : request.overviewCountTimeout
                    rows[relation.name] = database.rowCount(of: relation.name, timeout: timeout)
                }
                let described = SchemaDescription(schema: schema, declared: declared, rows: rows)
                switch request.output {
                case .text(let width):
                    let title = paths.postgresURL == nil ? paths.database.lastPathComponent : paths.databaseName
                    out(described.overviewText(database: title, width: width))
                case .json: out(try described.json(database: paths.databaseName))
                case .datasette: break
                }
            }
        } catch {
            err("error: cannot read the database \(paths.databaseName): \(error)")
            return .failure
        }
        return .success
    }

}
