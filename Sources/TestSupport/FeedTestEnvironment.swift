import App
import FeedCore
import Foundation
import GRDB
import Logging

/// An environment for a feed's end-to-end tests: a temporary working directory, a fixed clock,
/// captured output and logs, real HTTP, and the standard feeds — the one under test pointed at
/// `base`, every other at the discard port, so no test can reach a real API.
public struct FeedTestEnvironment {
    public let dir: TemporaryDirectory
    public let out = TextSink(), err = TextSink(), logs = TextSink()
    /// Retries and rate-limit waits take milliseconds, so fault tests stay fast.
    public var variables: [String: String] = ["FEEDLINE_RETRY_BASE_MS": "1", "FEEDLINE_RETRY_CAP_MS": "5", "FEEDLINE_RATE_LIMIT_WAIT_MS": "5"]
    /// Where the feed under test sends its requests (nothing listens on the discard port).
    public var base = URL(string: "http://127.0.0.1:9/")!
    public var now: Date
    /// The variable that points the feed under test at `base` (`FEEDLINE_OPENAQ_BASE_URL`).
    public let baseURLVariable: String

    static let baseURLVariables = ["FEEDLINE_AIRKOREA_BASE_URL", "FEEDLINE_CAREERNET_BASE_URL", "FEEDLINE_SARAMIN_BASE_URL",
                                   "FEEDLINE_OPENWEATHER_BASE_URL", "FEEDLINE_OPENAQ_BASE_URL"]

    /// The database the runs write and the assertions read: a SQLite file in `dir`, or a
    /// database of its own on the test PostgreSQL server.
    public let db: TestDatabase

    public init(_ prefix: String, baseURLVariable: String, now: Date, store: TestStore = .sqlite) throws {
        dir = try TemporaryDirectory(prefix)
        self.baseURLVariable = baseURLVariable
        self.now = now
        db = try TestDatabase(store, file: dir.path("feedline.sqlite"), name: prefix)
    }

    public var environment: AppEnvironment {
        let logs = self.logs, out = self.out, err = self.err, now = self.now
        var logger = Logger(label: "feedline-test") { _ in CapturingLogHandler(sink: logs) }
        logger.logLevel = .trace
        var bases = Dictionary(uniqueKeysWithValues: Self.baseURLVariables.map { ($0, "http://127.0.0.1:9/") })
        bases[baseURLVariable] = base.absoluteString
        return AppEnvironment(
            variables: variables, transport: CurlTransport(timeout: 5), clock: { now },
            feeds: AppEnvironment.standardFeeds(variables: bases),
            workingDirectory: dir.url, output: { out.append($0) }, errorOutput: { err.append($0) }, logger: logger)
    }

    /// The SQLite file (a PostgreSQL environment writes to `db.postgresURL` instead).
    public var database: URL { db.file }
    public var feedline: Console { Console(environment: environment) }

    /// Paths inside the temporary directory, with the repository's pipelines and fixtures.
    public func paths(pipelines: URL = FixturePaths.repositoryRoot.appendingPathComponent("Pipelines")) -> Paths {
        Paths(environment: environment, database: db.argument, pipelines: pipelines.path,
              fixtures: FixturePaths.fixtures.path, archive: dir.path("archive").path)
    }

    public func writePipeline(_ name: String, _ yaml: String) throws -> URL { try dir.writePipeline(name, yaml) }

    /// Every row of `sql` as text (`NULL` for NULL).
    public func rows(_ sql: String) throws -> [[String]] { try db.rows(sql) }

    /// The first column of the first row of `sql`.
    public func value(_ sql: String) throws -> String? { try rows(sql).first?.first }
}

extension FeedTestEnvironment {
    /// Everything the run left behind — its output and logs, every file under `dir` (archive,
    /// SQLite file) and every row of the database — for searching for a secret.
    public func leftBehind() throws -> Data {
        var data = Data((out.text + err.text + logs.text).utf8)
        if let walker = FileManager.default.enumerator(at: dir.url, includingPropertiesForKeys: nil) {
            for case let url as URL in walker { if let bytes = try? Data(contentsOf: url) { data.append(bytes) } }
        }
        if db.store != .sqlite { data.append(Data(try db.dump(excludingTables: []).utf8)) }
        return data
    }
}
