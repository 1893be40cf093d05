import AirKorea
import App
import FeedCore
import Foundation
import GRDB
import Logging
import Pipeline
import TestSupport

/// A settable clock shared by value copies.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ value: Date) { self.value = value }
    var now: Date { lock.withLock { value } }
    func set(_ date: Date) { lock.withLock { value = date } }
    func advance(_ seconds: TimeInterval) { lock.withLock { value = value.addingTimeInterval(seconds) } }
}

/// The key every reliability test puts in the environment: it must never come back out. It
/// holds characters that percent-encoding changes, so both forms can be searched for.
let sentinelKey = "SENTINEL+rel/Key=9d41c7"

/// An end-to-end environment: temporary directory, real HTTP (libcurl) to the given base URL,
/// fixed (settable) clock, captured output, fast retries.
struct RelEnvironment: Sendable {
    let dir: TemporaryDirectory
    let out = TextSink()
    let err = TextSink()
    let logs = TextSink()
    let clock = TestClock(Date(timeIntervalSince1970: 1_709_704_800))  // 2024-03-06 06:00 UTC = 15:00 KST
    var variables: [String: String] = [
        "AIRKOREA_SERVICE_KEY": sentinelKey,
        "FEEDLINE_RETRY_ATTEMPTS": "3",
        "FEEDLINE_RETRY_BASE_MS": "5",
        "FEEDLINE_RETRY_CAP_MS": "20",
    ]
    var baseURL = URL(string: "http://127.0.0.1:9/")!
    /// The transport's idle timeout (connecting, or silence while waiting for data); the whole transfer may take 4× this.
    var timeout: TimeInterval = 5

    /// The database the runs write: a SQLite file in `dir`, or a database of its own on the
    /// test PostgreSQL server.
    let db: TestDatabase

    init(_ prefix: String = "rel", store: TestStore = .sqlite) throws {
        dir = try TemporaryDirectory(prefix)
        db = try TestDatabase(store, file: dir.path("feedline.sqlite"), name: prefix)
    }

    var environment: AppEnvironment {
        let logs = self.logs, out = self.out, err = self.err, clock = self.clock
        var logger = Logger(label: "feedline-reliability") { _ in CapturingLogHandler(sink: logs) }
        logger.logLevel = .trace
        return AppEnvironment(
            variables: variables, transport: CurlTransport(timeout: timeout), clock: { clock.now },
            feeds: [AirKoreaFeed(baseURL: baseURL)], workingDirectory: dir.url,
            output: { out.append($0) }, errorOutput: { err.append($0) }, logger: logger)
    }

    var database: URL { db.file }

    func paths(pipelines: URL) -> Paths {
        Paths(environment: environment, database: db.argument, pipelines: pipelines.path,
              fixtures: FixturePaths.fixtures.path, archive: dir.path("archive").path)
    }

    /// Writes `Pipelines/NAME.yaml` in the temporary directory and returns the directory.
    @discardableResult
    func writePipeline(_ name: String, _ yaml: String) throws -> URL {
        let directory = dir.path("Pipelines")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try yaml.write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    var feedline: Console { Console(environment: environment) }

    /// Everything the app printed or logged.
    var printed: String { out.text + "\n" + err.text + "\n" + logs.text }
}

// MARK: - Secrets

/// Whether `data` holds the sentinel key in any form a leak would take (raw, percent-encoded
/// with either encoder, or decoded).
func containsSentinel(_ data: Data) -> Bool {
    let forms = [sentinelKey, FeedRequest.percentEncode(sentinelKey),
                 sentinelKey.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? sentinelKey,
                 "rel/Key=9d41c7", "SENTINEL%2Brel"]
    return forms.contains { data.range(of: Data($0.utf8)) != nil }
}

/// Every file under `directory`, concatenated.
func allBytes(under directory: URL) -> Data {
    var data = Data()
    guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return data }
    for case let url as URL in walker {
        if let bytes = try? Data(contentsOf: url) { data.append(bytes) }
    }
    return data
}

// MARK: - Database dumps

/// Dumps and reads of a SQLite file (`TestDatabase` reads either store).
enum DatabaseDump {
    static let bookkeeping = TestDatabase.bookkeeping

    /// Every table's rows as text, rows sorted (see `TestDatabase.dump`).
    static func dump(_ path: URL, excludingTables: Set<String> = bookkeeping, excludingColumns: Set<String> = []) throws -> String {
        try TestDatabase(.sqlite, file: path).dump(excludingTables: excludingTables, excludingColumns: excludingColumns)
    }

    /// One integer from a query.
    static func integer(_ path: URL, _ sql: String) throws -> Int {
        let queue = try DatabaseQueue(path: path.path, configuration: configuration(readonly: false))
        return try queue.read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    static func strings(_ path: URL, _ sql: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path.path, configuration: configuration(readonly: false))
        return try queue.read { try String.fetchAll($0, sql: sql) }
    }

    /// A test reader's connection. The busy timeout covers SQLite's one documented case of
    /// SQLITE_BUSY for a WAL reader: opening the file at the very moment the last other
    /// connection closes and cleans up the WAL (here: right after a run returns). The readers
    /// of `LockingTests`, which must never wait, use no timeout at all.
    static func configuration(readonly: Bool) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.busyMode = .timeout(5)
        return config
    }

    static func firstDifference(_ a: String, _ b: String) -> String { TestDatabase.firstDifference(a, b) }
}

// MARK: - The built executable

/// The `feedline` executable built beside this test bundle (`.build/debug/feedline`, whatever
/// the scratch path), or nil when it has not been built.
enum FeedlineBinary {
    static var url: URL? {
        var candidates: [URL] = []
        // The test runner (…/debug/feedlinePackageTests.xctest) sits beside the executable.
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(exe.deletingLastPathComponent().appendingPathComponent("feedline"))
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("feedline"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("feedline"))
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent("feedline"))
        }
        // Fallback: the default scratch path of this checkout.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/feedline"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

// MARK: - Pages

/// Pipelines and pages the end-to-end tests serve.
enum Pages {
    /// By-province, Seoul, 3 rows a page.
    static let provincePipeline = """
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
          ver: "1.3"
        format: xml
        page_size: 3
        """

    /// Page `page` (1…3: 3, 3 and 1 items) of the clean 7-item sequence at `dataTime`.
    static func clean(_ page: Int, dataTime: String = "2024-03-06 15:00", format: String = "xml") -> Data {
        let counts = [1: 3, 2: 3, 3: 1]
        let items = AirKoreaPages.items(first: (page - 1) * 3, count: counts[page] ?? 0, dataTime: dataTime)
        return body(items, page: page, format: format)
    }

    static func body(_ items: [AirKoreaPages.Item], page: Int, format: String = "xml", rows: Int = 3, total: Int = 7) -> Data {
        format == "json"
            ? AirKoreaPages.json(items, pageNo: page, numOfRows: rows, totalCount: total)
            : AirKoreaPages.xml(items, pageNo: page, numOfRows: rows, totalCount: total)
    }

    static func page(of request: LoopbackServer.Request) -> Int { Int(request.query["pageNo"] ?? "") ?? 0 }
}
