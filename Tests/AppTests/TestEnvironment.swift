import AirKorea
import App
import FeedCore
import Foundation
import Logging
import Pipeline
import TestSupport

/// An environment for end-to-end tests: a temporary working directory, a fixed clock, real
/// HTTP (libcurl) to whatever base URL the test gives, and captured output.
struct TestEnvironment {
    let dir: TemporaryDirectory
    let out = TextSink()
    let err = TextSink()
    let logs = TextSink()
    /// Retries wait 1 ms instead of seconds, so fault tests stay fast.
    var variables: [String: String] = ["FEEDLINE_RETRY_BASE_MS": "1", "FEEDLINE_RETRY_CAP_MS": "5"]
    var airKoreaBase = URL(string: "http://127.0.0.1:9/")!  // nothing listens on the discard port
    /// Where CareerNet, Saramin, OpenWeather and OpenAQ requests go (one server can play all four:
    /// their paths differ).
    var careerBase = URL(string: "http://127.0.0.1:9/")!

    /// The database the runs write: a SQLite file in `dir`, or a database of its own on the
    /// test PostgreSQL server.
    let db: TestDatabase

    init(store: TestStore = .sqlite) throws {
        dir = try TemporaryDirectory("e2e")
        db = try TestDatabase(store, file: dir.path("feedline.sqlite"), name: "e2e")
    }

    var environment: AppEnvironment {
        let logs = self.logs
        var logger = Logger(label: "feedline-test") { _ in CapturingLogHandler(sink: logs) }
        logger.logLevel = .trace
        let out = self.out, err = self.err
        return AppEnvironment(
            variables: variables, transport: CurlTransport(timeout: 5),
            clock: { Date(timeIntervalSince1970: 1_709_704_800) },  // 2024-03-06 06:00 UTC
            feeds: AppEnvironment.standardFeeds(variables: [
                "FEEDLINE_AIRKOREA_BASE_URL": airKoreaBase.absoluteString,
                "FEEDLINE_CAREERNET_BASE_URL": careerBase.absoluteString,
                "FEEDLINE_SARAMIN_BASE_URL": careerBase.absoluteString,
                "FEEDLINE_OPENWEATHER_BASE_URL": careerBase.absoluteString,
                "FEEDLINE_OPENAQ_BASE_URL": careerBase.absoluteString,
            ]),
            workingDirectory: dir.url,
            output: { out.append($0) }, errorOutput: { err.append($0) }, logger: logger)
    }

    var database: URL { db.file }

    /// Paths inside the temporary directory, with fixtures from the repository.
    func paths(pipelines: URL? = nil) -> Paths {
        Paths(environment: environment, database: db.argument,
              pipelines: (pipelines ?? FixturePaths.repositoryRoot.appendingPathComponent("Pipelines")).path,
              fixtures: FixturePaths.fixtures.path, archive: dir.path("archive").path)
    }

    /// Writes a pipeline file into `<tmp>/Pipelines` and returns that directory.
    func writePipeline(_ name: String, _ yaml: String) throws -> URL { try dir.writePipeline(name, yaml) }

    var feedline: Console { Console(environment: environment) }
}

/// Every file under `directory`, concatenated as bytes (for grepping secrets).
func allBytes(under directory: URL) -> Data {
    var data = Data()
    guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return data }
    for case let url as URL in walker {
        if let bytes = try? Data(contentsOf: url) { data.append(bytes) }
    }
    return data
}
