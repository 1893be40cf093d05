import Foundation
import Testing
import TestSupport

/// feedline opens libcurl when its first request is made (dlopen), so replays, queries and the
/// waiting scheduler never map it and its libraries. The real binary, with a `libcurl.so.4` on
/// `LD_LIBRARY_PATH` that is not libcurl: a live run fails at once, naming what is wrong, while
/// everything that makes no request works as usual.
@Suite("HTTP: libcurl is loaded on first use")
struct LibcurlLoadingTests {
    /// A directory holding a shared library named `libcurl.so.4` that has none of libcurl's
    /// functions (a copy of zlib).
    static func fakeLibcurl(in directory: URL) throws -> URL {
        let zlib = ["/usr/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/aarch64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"]
            .first { FileManager.default.fileExists(atPath: $0) }
        let dir = directory.appendingPathComponent("fake-libcurl")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // The file itself, not the symbolic link (a relative link copied elsewhere would dangle).
        let library = URL(fileURLWithPath: try #require(zlib, "no libz.so.1 to stand in for libcurl")).resolvingSymlinksInPath()
        try FileManager.default.copyItem(at: library, to: dir.appendingPathComponent("libcurl.so.4"))
        return dir
    }

    func feedline(_ arguments: [String], in env: TestEnvironment, libraries: URL, extra: [String: String] = [:]) throws -> (status: Int32, output: String, seconds: Double) {
        let process = Process()
        process.executableURL = FeedlineExecutable.url!
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") && !$0.key.hasSuffix("_SERVICE_KEY") }
            .merging(["LD_LIBRARY_PATH": libraries.path]) { _, b in b }.merging(extra) { _, b in b }
        process.currentDirectoryURL = env.dir.url
        let out = try OutputFile(env.dir.url, "out-\(UUID().uuidString).txt")
        process.standardOutput = out.handle
        process.standardError = out.handle
        let started = Date()
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, out.text, Date().timeIntervalSince(started))
    }

    @Test("a live run without a usable libcurl fails at once and says what to install; fixture runs and queries need no libcurl",
          .enabled(if: FeedlineExecutable.url != nil))
    func liveRunNamesTheMissingLibrary() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let libraries = try Self.fakeLibcurl(in: env.dir.url)

        // Port 9 (discard) on loopback: nothing is ever sent, the library fails first.
        let live = try feedline(["run", "airkorea-seoul", "--live", "--db", env.database.path, "--pipelines-dir", FixturePaths.repositoryRoot.appendingPathComponent("Pipelines").path],
                                in: env, libraries: libraries,
                                extra: ["AIRKOREA_SERVICE_KEY": "not-a-real-key", "FEEDLINE_AIRKOREA_BASE_URL": "http://127.0.0.1:9/"])
        #expect(live.status == 1, "\(live.output)")
        #expect(live.output.contains("libcurl could not be loaded (the libcurl found has no curl_global_init)"), "\(live.output)")
        #expect(live.output.contains("install libcurl4"), "\(live.output)")
        #expect(!live.output.contains("not-a-real-key"))
        // Not retried as a network failure: a missing library is terminal.
        #expect(!live.output.contains("Gave up after") && !live.output.contains("transient"), "\(live.output)")

        let fixtures = try feedline(["run", "airkorea-seoul", "--db", env.database.path, "--pipelines-dir", FixturePaths.repositoryRoot.appendingPathComponent("Pipelines").path,
                                     "--fixtures", FixturePaths.fixtures.path], in: env, libraries: libraries)
        #expect(fixtures.status == 0, "\(fixtures.output)")
        let query = try feedline(["query", "SELECT count(*) > 0 AS loaded FROM measurement", "--db", env.database.path, "--format", "csv"],
                                 in: env, libraries: libraries)
        #expect(query.status == 0 && query.output.contains("loaded\n1"), "\(query.output)")
    }
}
