import AirKorea
import CareerNet
import FeedCore
import Foundation
import Logging
import OpenAQ
import OpenWeather
import Pipeline
import PostgresStorage
import Saramin

/// Every effect feedline uses, built once and handed down: the one composition root.
///
/// `live()` builds the real thing for the executable; tests build their own with a loopback
/// transport, a fixed clock and a temporary directory.
public struct AppEnvironment: Sendable {
    /// Environment variables (API keys and path overrides).
    public var variables: [String: String]
    /// HTTP for live runs.
    public var transport: any HTTPTransport
    /// Current time.
    public var clock: @Sendable () -> Date
    /// The feeds feedline knows.
    public var feeds: [any Feed]
    /// The directory relative paths are resolved against.
    public var workingDirectory: URL
    /// Writes to standard output / standard error.
    public var output: @Sendable (String) -> Void
    public var errorOutput: @Sendable (String) -> Void
    public var logger: Logger
    /// The feedline home the default paths come from (nil: defaults relative to the working
    /// directory).
    public var home: FeedlineHome?
    /// Waits between retries of a live fetch.
    public var sleep: @Sendable (TimeInterval) async throws -> Void = RetryingFetcher.taskSleep
    /// Jitter for retry delays, in [0, 1).
    public var random: @Sendable () -> Double = RetryingFetcher.systemRandom
    /// This host and process, how other processes are probed, and the run-lock heartbeat timing.
    public var runLocks: RunLockSettings = .live
    /// Books every live call of this process against its feed's rate limits.
    public let pacer = RatePacer()

    public init(variables: [String: String], transport: any HTTPTransport, clock: @escaping @Sendable () -> Date,
                feeds: [any Feed], workingDirectory: URL, output: @escaping @Sendable (String) -> Void,
                errorOutput: @escaping @Sendable (String) -> Void, logger: Logger, home: FeedlineHome? = nil) {
        self.variables = variables; self.transport = transport; self.clock = clock; self.feeds = feeds
        self.workingDirectory = workingDirectory; self.output = output; self.errorOutput = errorOutput; self.logger = logger
        self.home = home
    }

    /// The real environment: process variables, HTTP over libcurl, the system clock, stdout/stderr.
    public static func live(logger: Logger) -> AppEnvironment {
        let variables = ProcessInfo.processInfo.environment
        return AppEnvironment(
            variables: variables,
            transport: CurlTransport(),
            clock: { Date() },
            feeds: standardFeeds(variables: variables),
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
            output: { text in FileHandle.standardOutput.write(Data((text + "\n").utf8)) },
            errorOutput: { text in FileHandle.standardError.write(Data((text + "\n").utf8)) },
            logger: logger)
    }

    /// The feeds, with base URLs overridable for testing against a local server
    /// (`FEEDLINE_AIRKOREA_BASE_URL`, `FEEDLINE_CAREERNET_BASE_URL`, `FEEDLINE_SARAMIN_BASE_URL`,
    /// `FEEDLINE_OPENWEATHER_BASE_URL`, `FEEDLINE_OPENAQ_BASE_URL`).
    public static func standardFeeds(variables: [String: String]) -> [any Feed] {
        let airKoreaBase = variables["FEEDLINE_AIRKOREA_BASE_URL"].flatMap(URL.init(string:))
        let careerNetBase = variables["FEEDLINE_CAREERNET_BASE_URL"].flatMap(URL.init(string:))
        let saraminBase = variables["FEEDLINE_SARAMIN_BASE_URL"].flatMap(URL.init(string:))
        return [
            airKoreaBase.map { AirKoreaFeed(baseURL: $0) } ?? AirKoreaFeed(),
            careerNetBase.map { CareerNetFeed(baseURL: $0) } ?? CareerNetFeed(),
            saraminBase.map { SaraminFeed(baseURL: $0) } ?? SaraminFeed(),
            variables["FEEDLINE_OPENWEATHER_BASE_URL"].flatMap(URL.init(string:)).map { OpenWeatherFeed(baseURL: $0) } ?? OpenWeatherFeed(),
            variables["FEEDLINE_OPENAQ_BASE_URL"].flatMap(URL.init(string:)).map { OpenAQFeed(baseURL: $0) } ?? OpenAQFeed(),
        ]
    }

    /// The environment variables the bundled feeds read their keys from, in registration order,
    /// for the help text and the man page. Written out rather than read from the feeds: the
    /// help is built at every start, and making the five feeds there costs `--version` 1.5 MiB
    /// of resident code. A test holds it equal to `standardFeeds`' variables.
    public static let credentialVariables = ["AIRKOREA_SERVICE_KEY", "CAREERNET_API_KEY", "SARAMIN_ACCESS_KEY", "OPENWEATHER_API_KEY", "OPENAQ_API_KEY"]

    /// What the bundled feeds bring to a store (declarations and writers), with the views across them.
    public static var standardSchema: FeedSchema {
        let feeds = standardFeeds(variables: [:])
        return FeedSchema.merged(feeds.map(\.schema) + [CrossSourceViews.schema(for: feeds)])
    }

    /// Views across feeds (`air_quality_hourly`) come after every feed's own migrations.
    public var storeSchema: FeedSchema { FeedSchema.merged(feeds.map(\.schema) + [CrossSourceViews.schema(for: feeds)]) }

    /// Every table, view and trigger a store of this environment holds: feedline's own (the
    /// ledger, the reference tables), then the feeds', then the views across them. The data
    /// dictionary (`describe`, the Datasette metadata) reads their meanings from here.
    /// The views of a database with the standard feeds, by name (for help texts).
    static var standardViewNames: [String] {
        let feeds = standardFeeds(variables: [:])
        let schema = LedgerTables.declarations + ReferenceTables.declarations
            + FeedSchema.merged(feeds.map(\.schema) + [CrossSourceViews.schema(for: feeds)]).declarations
        return schema.views.map(\.name).sorted()
    }

    public var declaredSchema: SchemaDeclarations {
        LedgerTables.declarations + ReferenceTables.declarations + storeSchema.declarations
    }

    /// Resolves a path given on the command line or in the environment.
    public func resolve(_ path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : workingDirectory.appendingPathComponent(path)
    }
}

/// Where things are, from flags > environment > defaults.
public struct Paths: Sendable {
    /// The SQLite file (for a PostgreSQL store: a stand-in path nothing is written to; see
    /// `postgresURL`).
    public var database: URL
    /// The `postgres://` URL `--db`, `FEEDLINE_DB` or `feedline.yaml` gave, password included:
    /// parse it with `PostgresAddress` and show it only through `databaseName`.
    public var postgresURL: String?
    public var pipelines: URL
    public var fixtures: URL
    public var archive: URL

    /// The saved-queries directory.
    public var queries: URL
    /// The metrics file `run`, `replay` and `schedule` rewrite after each run (`--metrics-file`,
    /// `FEEDLINE_METRICS_FILE`, `metrics_file:` in feedline.yaml); nil: none.
    public var metricsFile: URL?
    /// The home the defaults came from, if any.
    public var home: FeedlineHome?

    /// Each path from, in order: the command line, its environment variable (both relative to
    /// the working directory), the home's `feedline.yaml`, the default (both relative to the home,
    /// or to the working directory when there is no home).
    public init(environment: AppEnvironment, database: String? = nil, pipelines: String? = nil,
                fixtures: String? = nil, archive: String? = nil, queries: String? = nil, metricsFile: String? = nil) {
        let v = environment.variables
        let home = environment.home
        func pick(_ given: String?, _ variable: String, _ setting: String?, _ fallback: String) -> URL {
            if let given = given ?? v[variable].flatMap({ $0.isEmpty ? nil : $0 }) { return environment.resolve(given) }
            if let home { return home.resolve(setting, default: fallback) }
            return environment.resolve(fallback)
        }
        let url = [database, v["FEEDLINE_DB"], home?.config.database].compactMap { $0 }.first { !$0.isEmpty }
        if let url, PostgresAddress.isURL(url) {
            self.postgresURL = url
            self.database = environment.resolve("feedline-postgres-store")
        } else {
            self.postgresURL = nil
            self.database = pick(database, "FEEDLINE_DB", home?.config.database, "Data/feedline.sqlite")
        }
        self.pipelines = pick(pipelines, "FEEDLINE_PIPELINES", home?.config.pipelines, "Pipelines")
        self.fixtures = pick(fixtures, "FEEDLINE_FIXTURES", home?.config.fixtures, "Data/fixtures")
        self.archive = pick(archive, "FEEDLINE_ARCHIVE", home?.config.archive, "Data/archive")
        self.queries = pick(queries, "FEEDLINE_QUERIES", home?.config.queries, "Data/queries")
        if let given = metricsFile ?? v["FEEDLINE_METRICS_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            self.metricsFile = environment.resolve(given)
        } else if let home, let setting = home.config.metricsFile {
            self.metricsFile = home.resolve(setting, default: setting)
        } else {
            self.metricsFile = nil
        }
        self.home = home
    }

    /// The database as written into generated crontab lines and systemd units: the SQLite file's
    /// absolute path, or the PostgreSQL URL with no password at all (the runs read it from
    /// PGPASSWORD or ~/.pgpass; a unit file is no place for it).
    public var databaseForCommands: String {
        guard let postgresURL else { return database.standardizedFileURL.path }
        guard var address = try? PostgresAddress(parsing: postgresURL) else { return PostgresAddress.redacting(postgresURL) }
        address.password = nil
        return address.description
    }

    /// The database for messages: the SQLite path, or the PostgreSQL URL without its password.
    public var databaseName: String {
        guard let postgresURL else { return database.path }
        return (try? PostgresAddress(parsing: postgresURL).description) ?? PostgresAddress.redacting(postgresURL)
    }
}
