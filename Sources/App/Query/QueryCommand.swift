import ArgumentParser
import Foundation
import Pipeline
import Storage

// MARK: - Command

struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one read-only SQL query (or a saved one) and print the rows as a table, CSV, JSON or NDJSON.",
        discussion: """
        The database is opened read-only: INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH, settings (PRAGMA x = …) and more than one statement are refused before anything runs. Queries read a consistent snapshot and can run while a load is writing (WAL): they never block it.

        On a PostgreSQL store (--db postgres://…) the query runs in a read-only transaction: the same statements are allowed (SELECT, WITH, VALUES, TABLE, EXPLAIN, SHOW) and anything that would write is refused by the server, exit 64; rows come through a cursor, --timeout is the statement timeout, and --param values are read as the type the statement needs.

        Limits: SQLite may spend at most --timeout seconds (default 60; 0 for no limit) computing the rows; time spent waiting for the output to be read does not count. A query stopped by the timeout exits 75. One value the query computes (a string or blob) may hold at most 64 MiB; a larger one stops the query with one line, exit 1. CSV, JSON and NDJSON rows are written as they are read, so any number of rows streams in bounded memory; the table needs every width first, so it shows the first \(TableWriter.rowLimit) rows and then says how many more there were.

        SQL that begins with a comment (`-- …`) is taken as SQL. `-` (or --file -) reads the SQL from standard input; after `--` every word is SQL, never an option.

        Named parameters (:name) take their values from --param name=VALUE: `null` is NULL, an integer or decimal is a number, anything else is text. Saved queries live in Data/queries/NAME.sql (or $FEEDLINE_QUERIES); their leading `-- param name = default` lines give defaults. Views (`feedline describe` says what one row of each is): \(AppEnvironment.standardViewNames.joined(separator: ", ")).

        Examples:
          feedline query "select station_name, pm10, pm25 from measurement_latest"
          feedline query "select name from station where sido = :s" --param s=서울
          feedline query latest --format csv > latest.csv
          feedline query --saved daily-pm --param station=종로구 --format json
          feedline query stale-stations --param hours=6
          feedline query --file my.sql --format ndjson > rows.ndjson
          feedline query --list
          feedline query - --format csv < report.sql
          feedline query --timeout 0 "select count(*) from measurement"
          feedline query latest --format csv -o latest.csv
        """)

    @Argument(help: ArgumentHelp("SQL to run, the name of a saved query, or - to read the SQL from standard input.", valueName: "sql"), completion: .savedQueryNames)
    var sql: String?

    @Option(help: ArgumentHelp("Read the SQL from a file (- for standard input).", valueName: "path"))
    var file: String?

    @Option(help: ArgumentHelp("Run a saved query, Data/queries/NAME.sql (a plain name: letters, digits, - and _).", valueName: "name"), completion: .savedQueryNames)
    var saved: String?

    @Flag(help: "List the saved queries with their parameters.")
    var list = false

    @Option(help: ArgumentHelp("Output format: table, csv, json, ndjson.", valueName: "format"))
    var format: String = "table"

    @Option(name: .customLong("param"), help: ArgumentHelp("Value of a :name parameter (repeatable).", valueName: "name=value"))
    var params: [String] = []

    @Option(help: ArgumentHelp("Widest a table cell may be, in terminal columns (Hangul counts 2); longer cells end in …", valueName: "columns"))
    var maxWidth: Int = 40

    @Option(help: ArgumentHelp("Directory of saved queries (default Data/queries).", valueName: "dir"))
    var queriesDir: String?

    @Option(help: ArgumentHelp("Seconds SQLite may spend computing the rows before the query is stopped (0: no limit).", valueName: "seconds"))
    var timeout: Double = QueryRequest.defaultTimeout

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write the rows to FILE instead of standard output, once the query has finished: a new file, or with --force an existing regular file (never a directory, device, the database or another SQLite file).", valueName: "file"))
    var output: String?

    @Flag(help: "With -o: replace an existing file.")
    var force = false

    @Flag(name: .customLong("mkdir"), help: "With -o: create the missing directories of the path.")
    var makeDirectories = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard QueryOutputFormat(rawValue: format) != nil else {
            throw ValidationError("--format must be one of \(QueryOutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let sources = [sql != nil, file != nil, saved != nil].filter { $0 }.count
        if list {
            guard sources == 0 else { throw ValidationError("--list takes no query.") }
            guard output == nil else { throw ValidationError("-o takes query rows; --list prints to standard output.") }
        } else if sources != 1 {
            throw ValidationError("Give exactly one of: SQL (or a saved query's name), --file PATH, --saved NAME.")
        }
        for p in params where !p.contains("=") || p.hasPrefix("=") {
            throw ValidationError("--param expects name=value, got '\(p)'.")
        }
        guard maxWidth >= 2 else { throw ValidationError("--max-width must be at least 2.") }
        guard timeout.isFinite, timeout >= 0 else { throw ValidationError("--timeout must be 0 (no limit) or a number of seconds above 0.") }
    }

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db)
        let feedline = Console(environment: env)
        let directory = QueryRequest.savedQueriesDirectory(env, override: queriesDir)
        if list { try finish(feedline.listSavedQueries(directory: directory)); return }
        let source: QueryRequest.Source
        if sql == "-" || file == "-" {
            guard let text = String(data: FileHandle.standardInput.readDataToEndOfFile(), encoding: .utf8) else {
                env.errorOutput("error: the SQL on standard input is not UTF-8 text.")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            source = .sql(text)
        } else if let file {
            source = .file(file)
        } else if let saved {
            source = .saved(saved)
        } else {
            source = .text(sql ?? "")
        }
        var request = QueryRequest(source: source, format: QueryOutputFormat(rawValue: format)!,
                                   parameters: QueryRequest.parse(params), maxWidth: maxWidth, savedQueries: directory,
                                   timeout: timeout, output: output.map(env.resolve))
        request.force = force
        request.makeDirectories = makeDirectories
        try finish(feedline.query(request, paths: paths))
    }

    /// The command line with SQL that starts with a dash and holds white space (`-- comment…`,
    /// which no option name does) moved behind a `--` terminator, so it is read as the SQL
    /// argument rather than refused as an unknown option. Only `query` arguments are changed,
    /// and only when the command line has no `--` of its own. Every word after a `--` is SQL:
    /// they are joined with spaces into the one SQL argument (`query -- select 1`).
    static func arguments(_ arguments: [String]) -> [String] {
        guard arguments.first == commandName else { return arguments }
        if let terminator = arguments.firstIndex(of: "--") {
            let words = arguments[(terminator + 1)...]
            guard words.count > 1 else { return arguments }
            return Array(arguments[...terminator]) + [words.joined(separator: " ")]
        }
        let looksLikeSQL: (String) -> Bool = { $0.count > 1 && $0.hasPrefix("-") && $0.contains { $0.isWhitespace } }
        let sql = arguments.dropFirst().filter(looksLikeSQL)
        guard !sql.isEmpty else { return arguments }
        return [arguments[0]] + arguments.dropFirst().filter { !looksLikeSQL($0) } + ["--"] + sql
    }

    static var commandName: String { configuration.commandName ?? "query" }
}

// MARK: - Use case

/// What `feedline query` was asked to run and how to print it.
public struct QueryRequest: Sendable {
    public enum Source: Sendable, Equatable {
        /// SQL text, or the name of a saved query (when it is a bare name that exists).
        case text(String)
        /// A file of SQL.
        case file(String)
        /// A saved query by name.
        case saved(String)
        /// SQL text (read from standard input), never taken as a saved query's name.
        case sql(String)
    }

    /// Seconds a query may compute rows by default.
    public static let defaultTimeout: TimeInterval = 60

    public var source: Source
    public var format: QueryOutputFormat
    /// `--param` values as given (parsed with `SQLValue(parameter:)`).
    public var parameters: [String: String]
    public var maxWidth: Int
    public var savedQueries: URL
    /// Seconds SQLite may spend computing rows; 0: no limit.
    public var timeout: TimeInterval
    /// `-o FILE`: where the rows go instead of standard output (see `OutputFile`).
    public var output: URL?
    /// `--force`: `output` may replace any regular file that is not SQLite.
    public var force = false
    /// `--mkdir`: the missing directories of `output` are created.
    public var makeDirectories = false

    public init(source: Source, format: QueryOutputFormat = .table, parameters: [String: String] = [:],
                maxWidth: Int = 40, savedQueries: URL, timeout: TimeInterval = QueryRequest.defaultTimeout, output: URL? = nil) {
        self.source = source
        self.format = format
        self.parameters = parameters
        self.maxWidth = maxWidth
        self.savedQueries = savedQueries
        self.timeout = timeout
        self.output = output
    }

    /// `--queries-dir`, else `FEEDLINE_QUERIES`, else the home's `queries`, else `Data/queries`.
    public static func savedQueriesDirectory(_ environment: AppEnvironment, override: String? = nil) -> URL {
        Paths(environment: environment, queries: override).queries
    }

    /// `name=value` pairs (the last wins).
    static func parse(_ pairs: [String]) -> [String: String] {
        Dictionary(pairs.map { p -> (String, String) in
            let parts = p.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            var name = String(parts[0]).trimmingCharacters(in: .whitespaces)
            if name.hasPrefix(":") || name.hasPrefix("@") || name.hasPrefix("$") { name.removeFirst() }
            return (name, parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { _, b in b })
    }
}

extension Console {
    /// Runs one read-only query and prints its rows. Exit: 0 ran; 64 refused (writes, several
    /// statements, a missing parameter, a saved-query name that is not a plain name); 1 SQLite
    /// error; 75 stopped by the timeout; 78 no database or no such saved query.
    public func query(_ request: QueryRequest, paths: Paths) -> ExitStatus {
        let err = environment.errorOutput

        // Resolve the SQL and any defaults.
        var sql: String
        var defaults: [String: SQLValue] = [:]
        switch request.source {
        case .text(let text):
            sql = text
            if SavedQuery.looksLikeName(text) {
                switch SavedQuery.named(text, in: request.savedQueries) {
                case .found(let saved):
                    sql = saved.sql
                    defaults = saved.defaults
                case .outside(let target):
                    err("error: the saved query '\(text)' resolves to \(target.path), outside \(request.savedQueries.path); it is not run.")
                    return .usage
                case .notFound where !SavedQuery.isStatementKeyword(text):
                    // A bare word that is no SQL statement was meant as a saved query's name.
                    err("error: " + noSavedQueryMessage(text, in: request.savedQueries))
                    return .configuration
                case .notFound, .invalidName:
                    break
                }
            }
        case .sql(let text):
            sql = text
        case .file(let path):
            let url = environment.resolve(path)
            guard let saved = try? SavedQuery(file: url) else {
                err("error: cannot read the SQL file \(url.path).")
                return .configuration
            }
            sql = saved.sql
            defaults = saved.defaults
        case .saved(let name):
            switch SavedQuery.named(name, in: request.savedQueries) {
            case .found(let saved):
                sql = saved.sql
                defaults = saved.defaults
            case .invalidName:
                err("error: --saved takes a saved query's name (letters, digits, - and _), not '\(name)'; see `feedline query --list`.")
                return .usage
            case .outside(let target):
                err("error: the saved query '\(name)' resolves to \(target.path), outside \(request.savedQueries.path); it is not run.")
                return .usage
            case .notFound:
                err("error: " + noSavedQueryMessage(name, in: request.savedQueries))
                return .configuration
            }
        }
        if sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            err("error: the query is empty.")
            return .usage
        }

        var parameters = defaults
        for (name, value) in request.parameters { parameters[name] = SQLValue(parameter: value) }

        // A reader: the SQLite file read-only, or a read-only transaction on PostgreSQL.
        let database: any DatabaseReading
        do { database = try environment.openReader(paths) } catch {
            guard let error = error as? any SQLReadError else { return databaseOpenFailure(error, paths: paths) }
            err("error: \(error)")
            return error.failure == .busy ? .temporaryFailure : .configuration
        }
        do {
            warnUnused(request, used: try database.check(sql: sql))
        } catch {
            return report(error, sql: sql, database: database)
        }

        return streamRows(request, paths: paths, isTimeout: { ($0 as? any SQLReadError)?.failure == .timedOut }) { columns, row in
            try database.run(sql: sql, parameters: parameters, timeout: request.timeout, columns: columns, row: row)
        } failed: { report($0, sql: sql, database: database) }
    }

    /// Warns of each `--param` the query does not use.
    func warnUnused(_ request: QueryRequest, used: [String]) {
        for name in request.parameters.keys.sorted() where !used.contains(name) {
            environment.errorOutput("warning: --param \(name) is not used by the query (it uses \(used.isEmpty ? "no parameters" : used.map { ":\($0)" }.joined(separator: ", "))).")
        }
    }

    /// Writes the rows `run` gives in the request's format, to standard output or the output
    /// file (replaced only once every row is written); `failed` reports an error of `run`.
    func streamRows(_ request: QueryRequest, paths: Paths, isTimeout: (Error) -> Bool,
                    run: (_ columns: ([String]) throws -> Void, _ row: ([SQLValue]) throws -> Void) throws -> Void,
                    failed: (Error) -> ExitStatus) -> ExitStatus {
        let out = environment.output, err = environment.errorOutput
        var opened: OutputFile.Stream?
        if let path = request.output {
            do throws(OutputFile.Problem) {
                opened = try OutputFile.prepare(path, kind: .queryRows, database: OutputFile.Database(paths.database, role: "the database being queried"),
                                                force: request.force, makeDirectories: request.makeDirectories).open()
            } catch {
                err("error: \(error)")
                return error.refused ? .usage : .failure
            }
        }
        let file = opened
        let destination: @Sendable (String) -> Void
        if let file { destination = { file.appendLine($0) } } else { destination = out }
        let buffer = LineBuffer(output: destination)
        var writer: any QueryRowWriter = switch request.format {
        case .table: TableWriter(maxWidth: request.maxWidth, write: buffer.write)
        case .csv: CSVWriter(write: buffer.write)
        case .json: JSONRowWriter(lines: false, write: buffer.write)
        case .ndjson: JSONRowWriter(lines: true, write: buffer.write)
        }
        var count = 0
        do {
            try run({ writer.begin(columns: $0) }, { writer.row($0); count += 1 })
        } catch {
            if isTimeout(error) { writer.stopped(rows: count) }
            buffer.flush()
            file?.discard()
            return failed(error)
        }
        writer.end(rows: count)
        buffer.flush()
        if let file {
            do throws(OutputFile.Problem) { try file.commit() } catch {
                err("error: \(error)")
                return error.refused ? .usage : .failure
            }
        }
        return .success
    }

    /// `no saved query 'X' in DIR; did you mean `Y`? See `feedline query --list`.`
    func noSavedQueryMessage(_ name: String, in directory: URL) -> String {
        let known = SavedQuery.all(in: directory).map(\.name)
        let bare = name.hasSuffix(".sql") ? String(name.dropLast(4)) : name
        var message = "no saved query '\(bare)' in \(environment.displayPath(directory))"
        if known.isEmpty { return message + " (it has no *.sql files)." }
        message += Suggestions.didYouMean(bare, among: known).map { "; \($0)" } ?? "."
        return message + " Known: \(known.joined(separator: ", ")). See `feedline query --list`."
    }

    /// Prints a query error (with a hint when views are missing because the file predates them).
    private func report(_ error: Error, sql: String, database: any DatabaseReading) -> ExitStatus {
        guard let error = error as? any SQLReadError else {
            environment.errorOutput("error: \(error)")
            return .failure
        }
        let message = error.description
        let hint = error.failure == .failed ? SchemaSuggestion.hint(for: message, sql: sql, in: database) : nil
        environment.errorOutput("error: \(message)" + (hint.map { "; \($0)" } ?? ""))
        switch error.failure {
        case .noDatabase: return .configuration
        case .refused, .missingParameter: return .usage
        case .timedOut, .busy: return .temporaryFailure
        case .failed:
            if message.contains("no such table") || message.contains("does not exist"),
               let pending = try? database.pendingMigrations(), !pending.isEmpty {
                environment.errorOutput("hint: this database predates the current schema (missing: \(pending.joined(separator: ", "))); "
                                        + "any read-write command such as `feedline run` upgrades it.")
            }
            return .failure
        }
    }

    /// Prints the saved queries: name, description, parameters with defaults.
    public func listSavedQueries(directory: URL) -> ExitStatus {
        let queries = SavedQuery.all(in: directory)
        guard !queries.isEmpty else {
            environment.errorOutput("error: no saved queries (*.sql) in \(directory.path).")
            return .configuration
        }
        for q in queries {
            environment.output("\(q.name)\t\(q.description)")
            for p in q.parameters {
                environment.output("    --param \(p.name)=…  default \(p.defaultText)\(p.help.isEmpty ? "" : "; \(p.help)")")
            }
        }
        return .success
    }
}

/// Gathers output lines and hands them to the environment's output in chunks of about 64 KB,
/// so a large result is not one write per row.
final class LineBuffer: @unchecked Sendable {
    private let output: @Sendable (String) -> Void
    private var lines: [String] = []
    private var bytes = 0

    init(output: @escaping @Sendable (String) -> Void) { self.output = output }

    func write(_ line: String) {
        lines.append(line)
        bytes += line.utf8.count + 1
        if bytes >= 64 * 1024 { flush() }
    }

    func flush() {
        guard !lines.isEmpty else { return }
        output(lines.joined(separator: "\n"))
        lines.removeAll(keepingCapacity: true)
        bytes = 0
    }
}
