@testable import App
import ArgumentParser
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// `feedline query`'s limits and inputs: the --timeout, streamed output and the table's row cap,
/// SQL that starts with a `--` comment or comes on standard input, and saved-query names that
/// cannot leave the saved-queries folder.
@Suite struct QueryLimitsTests {
    /// Counts 1, 2, 3… for ever.
    static let endless = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"

    /// A test environment with a small database (one table) and its own saved-queries folder.
    func environment() throws -> (TestEnvironment, URL) {
        let env = try TestEnvironment()
        try DatabaseQueue(path: env.database.path).write { db in
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        }
        let queries = env.dir.path("queries")
        try FileManager.default.createDirectory(at: queries, withIntermediateDirectories: true)
        return (env, queries)
    }

    func request(_ source: QueryRequest.Source, _ format: QueryOutputFormat = .table, queries: URL, timeout: TimeInterval = 60) -> QueryRequest {
        QueryRequest(source: source, format: format, savedQueries: queries, timeout: timeout)
    }

    // MARK: Timeout

    @Test func aRunawayQueryStopsAtItsTimeoutWithExit75AndOneLine() throws {
        let (env, queries) = try environment()
        defer { env.dir.remove() }
        let status = env.feedline.query(request(.text("\(Self.endless) SELECT count(*) FROM r"), queries: queries, timeout: 1), paths: env.paths())
        #expect(status == .temporaryFailure)
        #expect(env.err.text == "error: The query stopped after 1 s (--timeout); give a larger --timeout, or --timeout 0 for no limit.")
    }

    @Test func streamedRowsAreWrittenBeforeTheTimeoutStopsTheQuery() throws {
        let (env, queries) = try environment()
        defer { env.dir.remove() }
        // Rows come slowly (each needs a million steps) and never end: those read before the
        // stop are already out; the table prints what it kept and says it was stopped.
        let slow = "\(Self.endless) SELECT n FROM r WHERE n % 1000000 = 0"
        #expect(env.feedline.query(request(.text(slow), .csv, queries: queries, timeout: 1), paths: env.paths()) == .temporaryFailure)
        let csv = env.out.text.split(separator: "\n")
        #expect(csv.first == "n")
        #expect(csv.dropFirst().allSatisfy { Int($0).map { $0 % 1_000_000 == 0 } ?? false })
        #expect(env.err.text.contains("stopped after 1 s (--timeout)"))

        let (table, _) = try environment()
        defer { table.dir.remove() }
        #expect(table.feedline.query(request(.text(slow), .table, queries: queries, timeout: 1), paths: table.paths()) == .temporaryFailure)
        let lines = table.out.text.split(separator: "\n")
        #expect(lines.first == " n")
        #expect(lines.last?.hasPrefix("(the query was stopped after ") == true)
    }

    @Test func theTimeoutCountsSQLiteTimeNotTheTimeSpentWritingRows() throws {
        let (env, _) = try environment()
        defer { env.dir.remove() }
        let database = try ReadOnlyDatabase(path: env.database.path)
        var rows = 0
        // Writing each row takes 0.6 s (a slow reader); SQLite itself needs next to nothing.
        try database.run(sql: "SELECT x FROM t", timeout: 1, columns: { _ in }, row: { _ in
            Thread.sleep(forTimeInterval: 0.6)
            rows += 1
        })
        #expect(rows == 2)
        // A stopped statement leaves the connection usable.
        #expect(throws: ReadOnlyQueryError.self) {
            try database.run(sql: "\(Self.endless) SELECT max(n) FROM r", timeout: 0.5, columns: { _ in }, row: { _ in })
        }
        #expect(try database.fetchAll(sql: "SELECT count(*) FROM t").rows == [[.integer(2)]])
    }

    @Test func timeoutZeroMeansNoLimitAndNegativeIsRefused() throws {
        let (env, queries) = try environment()
        defer { env.dir.remove() }
        #expect(env.feedline.query(request(.text("\(Self.endless) SELECT count(*) FROM (SELECT n FROM r LIMIT 200000)"), .csv,
                                           queries: queries, timeout: 0), paths: env.paths()) == .success)
        #expect(env.out.text == "count(*)\n200000")
        #expect(throws: (any Error).self) { try FeedlineCommand.parseAsRoot(["query", "--timeout", "-1", "select 1"]) }
        #expect(throws: (any Error).self) { try FeedlineCommand.parseAsRoot(["query", "--timeout", "nan", "select 1"]) }
    }

    // MARK: Streaming and the table cap

    @Test func theTableShowsTheFirstRowsAndSaysHowManyMoreThereWere() throws {
        let (env, queries) = try environment()
        defer { env.dir.remove() }
        let total = TableWriter.rowLimit + 1_500
        #expect(env.feedline.query(request(.text("\(Self.endless) SELECT n FROM r LIMIT \(total)"), queries: queries), paths: env.paths()) == .success)
        let lines = env.out.text.split(separator: "\n")
        #expect(lines.count == 2 + TableWriter.rowLimit + 1)
        #expect(lines[2] == "    1")
        #expect(lines[1 + TableWriter.rowLimit] == " \(TableWriter.rowLimit)")
        #expect(lines.last == "(\(total) rows; the first \(TableWriter.rowLimit) are shown, 1500 more are not: use --format csv, json or ndjson for every row)")

        // At the limit exactly, no note.
        let (exact, _) = try environment()
        defer { exact.dir.remove() }
        #expect(exact.feedline.query(request(.text("\(Self.endless) SELECT n FROM r LIMIT \(TableWriter.rowLimit)"), queries: queries), paths: exact.paths()) == .success)
        #expect(exact.out.text.split(separator: "\n").last == "(\(TableWriter.rowLimit) rows)")
    }

    @Test func theTableKeepsCellsCutToTheirWidth() {
        var lines: [String] = []
        var writer = TableWriter(maxWidth: 5, rowLimit: 2) { lines.append($0) }
        writer.begin(columns: ["v"])
        writer.row([.text(String(repeating: "x", count: 100_000))])
        writer.row([.blob(Data(count: 1_000))])
        writer.row([.integer(3)])
        writer.end(rows: 3)
        #expect(lines == [" v", "-------", " xxxx…", " <blo…", "(3 rows; the first 2 are shown, 1 more is not: use --format csv, json or ndjson for every row)"])
    }

    @Test func csvJSONAndNDJSONGiveEveryRow() throws {
        let total = 30_000
        let sql = "\(Self.endless) SELECT n, 'row ' || n AS label FROM r LIMIT \(total)"
        for format in [QueryOutputFormat.csv, .json, .ndjson] {
            let (env, queries) = try environment()
            defer { env.dir.remove() }
            #expect(env.feedline.query(request(.text(sql), format, queries: queries), paths: env.paths()) == .success, "\(format)")
            let text = env.out.text
            switch format {
            case .csv:
                let lines = text.split(separator: "\n")
                #expect(lines.count == total + 1)
                #expect(lines.last == "\(total),row \(total)")
            case .json:
                let rows = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
                #expect(rows.count == total)
                #expect(rows.last?["n"] as? Int == total)
            default:
                let lines = text.split(separator: "\n")
                #expect(lines.count == total)
                #expect(lines.last == "{\"n\":\(total),\"label\":\"row \(total)\"}")
            }
        }
    }

    // MARK: SQL that starts with a comment, and standard input

    @Test func sqlStartingWithACommentIsTheSQLArgument() throws {
        let sql = "-- the stations\nselect 1 AS one"
        // ArgumentParser alone reads a word starting with `--` as an option name.
        #expect(throws: (any Error).self) { try FeedlineCommand.parseAsRoot(["query", sql]) }

        let rewritten = QueryCommand.arguments(["query", sql, "--format", "csv"])
        #expect(rewritten == ["query", "--format", "csv", "--", sql])
        let parsed = try #require(try FeedlineCommand.parseAsRoot(rewritten) as? QueryCommand)
        #expect(parsed.sql == sql)
        #expect(parsed.format == "csv")

        // An explicit `--` works as is and is left alone; options and other commands are untouched.
        #expect(QueryCommand.arguments(["query", "--", sql]) == ["query", "--", sql])
        #expect(try (FeedlineCommand.parseAsRoot(["query", "--", sql]) as? QueryCommand)?.sql == sql)
        #expect(QueryCommand.arguments(["query", "--format", "csv", "select 1"]) == ["query", "--format", "csv", "select 1"])
        #expect(QueryCommand.arguments(["report", "-- x"]) == ["report", "-- x"])
        // `-` is the SQL argument (standard input).
        #expect(try (FeedlineCommand.parseAsRoot(["query", "-"]) as? QueryCommand)?.sql == "-")

        let (env, queries) = try environment()
        defer { env.dir.remove() }
        #expect(env.feedline.query(request(.text(sql), .csv, queries: queries), paths: env.paths()) == .success, "\(env.err.text)")
        #expect(env.out.text == "one\n1")
    }

    @Test("The executable takes `-- comment` SQL, reads `-` from standard input, and stops at --timeout",
          .enabled(if: FeedlineExecutable.url != nil))
    func theExecutableTakesCommentedSQLAndStandardInput() throws {
        let (env, _) = try environment()
        defer { env.dir.remove() }
        func feedline(_ arguments: [String], input: String = "") throws -> (status: Int32, out: String, err: String) {
            let process = Process()
            process.executableURL = FeedlineExecutable.url!
            process.arguments = arguments + ["--db", env.database.path]
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") }
            process.currentDirectoryURL = env.dir.url
            let stdin = Pipe()
            let out = try OutputFile(env.dir.url, "stdout.txt"), err = try OutputFile(env.dir.url, "stderr.txt")
            process.standardInput = stdin
            process.standardOutput = out.handle
            process.standardError = err.handle
            try process.run()
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
            process.waitUntilExit()
            return (process.terminationStatus, out.text, err.text)
        }

        let commented = try feedline(["query", "-- how many\nselect count(*) AS n from t", "--format", "csv"])
        #expect(commented.status == 0, "\(commented.err)")
        #expect(commented.out == "n\n2\n")

        let piped = try feedline(["query", "-", "--format", "csv"], input: "-- from a file\nselect x from t order by x")
        #expect(piped.status == 0, "\(piped.err)")
        #expect(piped.out == "x\n1\n2\n")

        let runaway = try feedline(["query", "--timeout", "1", "\(Self.endless) SELECT count(*) FROM r"])
        #expect(runaway.status == 75)
        #expect(runaway.err == "error: The query stopped after 1 s (--timeout); give a larger --timeout, or --timeout 0 for no limit.\n")
    }

    // MARK: Saved queries stay in their folder

    @Test func savedQueryNamesArePlainNamesAndCannotLeaveTheFolder() throws {
        let (env, queries) = try environment()
        defer { env.dir.remove() }
        let fm = FileManager.default
        try "SELECT 'evil' AS secret".write(to: env.dir.path("evil.sql"), atomically: true, encoding: .utf8)
        try "-- Both rows.\nSELECT x FROM t ORDER BY x".write(to: queries.appendingPathComponent("rows.sql"), atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: queries.appendingPathComponent("escape.sql").path, withDestinationPath: "../evil.sql")
        try fm.createSymbolicLink(atPath: queries.appendingPathComponent("alias.sql").path, withDestinationPath: "rows.sql")

        for name in ["../evil", "../evil.sql", "a/b", "..", "/etc/passwd", ""] {
            let mark = env.err.text.count
            #expect(env.feedline.query(request(.saved(name), queries: queries), paths: env.paths()) == .usage, "\(name)")
            #expect(String(env.err.text.dropFirst(mark)).trimmingCharacters(in: .newlines)
                == "error: --saved takes a saved query's name (letters, digits, - and _), not '\(name)'; see `feedline query --list`.")
        }

        // A link that leads outside the folder is refused, by --saved and by a bare name.
        var mark = env.err.text.count
        #expect(env.feedline.query(request(.saved("escape"), queries: queries), paths: env.paths()) == .usage)
        #expect(env.feedline.query(request(.text("escape"), queries: queries), paths: env.paths()) == .usage)
        let refusals = env.err.text.dropFirst(mark).split(separator: "\n")
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0.hasPrefix("error: the saved query 'escape' resolves to ") && $0.hasSuffix("evil.sql, outside \(queries.path); it is not run.") })
        #expect(!env.out.text.contains("evil"))

        // A link inside the folder runs; the listing leaves out what cannot run.
        mark = env.out.text.count
        #expect(env.feedline.query(request(.saved("alias"), .csv, queries: queries), paths: env.paths()) == .success, "\(env.err.text)")
        #expect(env.out.text.dropFirst(mark).trimmingCharacters(in: .newlines) == "x\n1\n2")
        #expect(SavedQuery.all(in: queries).map(\.name) == ["alias", "rows"])
    }
}
