import AirKorea
import CareerNet
import FeedCore
import Foundation
import Logging
import Pipeline
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

    public init(variables: [String: String], transport: any HTTPTransport, clock: @escaping @Sendable () -> Date,
                feeds: [any Feed], workingDirectory: URL, output: @escaping @Sendable (String) -> Void,
                errorOutput: @escaping @Sendable (String) -> Void, logger: Logger) {
        self.variables = variables; self.transport = transport; self.clock = clock; self.feeds = feeds
        self.workingDirectory = workingDirectory; self.output = output; self.errorOutput = errorOutput; self.logger = logger
    }

    /// The real environment: process variables, URLSession, the system clock, stdout/stderr.
    public static func live(logger: Logger) -> AppEnvironment {
        let variables = ProcessInfo.processInfo.environment
        return AppEnvironment(
            variables: variables,
            transport: URLSessionTransport(),
            clock: { Date() },
            feeds: standardFeeds(variables: variables),
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
            output: { text in FileHandle.standardOutput.write(Data((text + "\n").utf8)) },
            errorOutput: { text in FileHandle.standardError.write(Data((text + "\n").utf8)) },
            logger: logger)
    }

    /// The feeds, with base URLs overridable for testing against a local server
    /// (`FEEDLINE_AIRKOREA_BASE_URL`, `FEEDLINE_CAREERNET_BASE_URL`, `FEEDLINE_SARAMIN_BASE_URL`).
    public static func standardFeeds(variables: [String: String]) -> [any Feed] {
        let airKoreaBase = variables["FEEDLINE_AIRKOREA_BASE_URL"].flatMap(URL.init(string:))
        let careerNetBase = variables["FEEDLINE_CAREERNET_BASE_URL"].flatMap(URL.init(string:))
        let saraminBase = variables["FEEDLINE_SARAMIN_BASE_URL"].flatMap(URL.init(string:))
        return [
            airKoreaBase.map { AirKoreaFeed(baseURL: $0) } ?? AirKoreaFeed(),
            careerNetBase.map { CareerNetFeed(baseURL: $0) } ?? CareerNetFeed(),
            saraminBase.map { SaraminFeed(baseURL: $0) } ?? SaraminFeed(),
        ]
    }

    /// Resolves a path given on the command line or in the environment.
    public func resolve(_ path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : workingDirectory.appendingPathComponent(path)
    }
}

/// Where things are, from flags > environment > defaults.
public struct Paths: Sendable {
    public var database: URL
    public var pipelines: URL
    public var fixtures: URL
    public var archive: URL

    public init(environment: AppEnvironment, database: String? = nil, pipelines: String? = nil,
                fixtures: String? = nil, archive: String? = nil) {
        let v = environment.variables
        self.database = environment.resolve(database ?? v["FEEDLINE_DB"] ?? "Data/feedline.sqlite")
        self.pipelines = environment.resolve(pipelines ?? v["FEEDLINE_PIPELINES"] ?? "Pipelines")
        self.fixtures = environment.resolve(fixtures ?? v["FEEDLINE_FIXTURES"] ?? "Data/fixtures")
        self.archive = environment.resolve(archive ?? v["FEEDLINE_ARCHIVE"] ?? "Data/archive")
    }
}
