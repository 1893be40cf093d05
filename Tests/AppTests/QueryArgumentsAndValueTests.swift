@testable import App
import Foundation
import GRDB
import Storage
import Testing
import TestSupport

/// `feedline query`: every word after `--` is SQL, and one value a query computes is bounded.
@Suite struct QueryArgumentsAndValueTests {
    func environment() throws -> (TestEnvironment, URL) {
        let env = try TestEnvironment()
        try DatabaseQueue(path: env.database.path).write { db in
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        }
        let queries = env.dir.path("queries")
        try FileManager.default.createDirectory(at: queries, withIntermediateDirectories: true)
        return (env, queries)
    }

    @Test("`query -- select 1`: the words after -- are joined into the one SQL argument")
    func wordsAfterTerminatorAreTheSQL() throws {
        let plain = QueryCommand.arguments(["query", "--", "select", "1"])
        #expect(plain == ["query", "--", "select 1"])
        #expect(try (FeedlineCommand.parseAsRoot(plain) as? QueryCommand)?.sql == "select 1")

        let withOptions = QueryCommand.arguments(["query", "--format", "csv", "--", "select", "'--format'", "AS", "o,", "count(*)", "AS", "n", "from", "t"])
        let parsed = try #require(try FeedlineCommand.parseAsRoot(withOptions) as? QueryCommand)
        #expect(parsed.sql == "select '--format' AS o, count(*) AS n from t", "a word after -- that looks like an option is SQL")
        #expect(parsed.format == "csv")

        let (env, queries) = try environment()
        defer { env.dir.remove() }
        let request = QueryRequest(source: .text(try #require(parsed.sql)), format: .csv, savedQueries: queries, timeout: 60)
        #expect(env.feedline.query(request, paths: env.paths()) == .success, "\(env.err.text)")
        #expect(env.out.text == "o,n\n--format,2", "\(env.err.text)")
    }

    @Test("a value over the bound (randomblob of 100 MB) stops the query with one clear line")
    func oversizedValueIsRefused() throws {
        let (env, queries) = try environment()
        defer { env.dir.remove() }
        let request = QueryRequest(source: .text("select length(randomblob(100000000)) AS n"), format: .csv, savedQueries: queries, timeout: 60)
        let status = env.feedline.query(request, paths: env.paths())
        #expect(status == .failure)
        #expect(env.err.text.contains("larger than 64 MiB"), "\(env.err.text)")
        #expect(!env.out.text.contains("100000000"))

        // A value under the bound is computed as before.
        let small = QueryRequest(source: .text("select length(randomblob(1000000)) AS n"), format: .csv, savedQueries: queries, timeout: 60)
        #expect(env.feedline.query(small, paths: env.paths()) == .success)
        #expect(env.out.text.hasSuffix("n\n1000000"), "\(env.out.text)")
    }
}
