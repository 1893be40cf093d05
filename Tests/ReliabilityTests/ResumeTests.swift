import FeedCore
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A live run interrupted part-way (its source failing, or the process killed) leaves nothing
/// loaded; the next run of the same plan loads the pages it archived from the archive, fetches
/// only the rest, spends quota only on the calls it makes, and ends with the rows of an
/// uninterrupted run. A loopback server counts every request; each case runs on both stores.
@Suite(.serialized) struct ResumeTests {
    /// By-province Seoul, 3 rows a page (`Pages.provincePipeline`): 5 pages, the last holding 2, 14 stations.
    static let pipeline = Pages.provincePipeline
    static let total = 14

    /// What the server does with pages from `failFrom` on (all pages answer while it is nil).
    final class Source: @unchecked Sendable {
        enum Failure { case unavailable, notFound, stall }
        private let lock = NSLock()
        private var failing: (from: Int, how: Failure)?
        private var pages: [Int] = []
        func fail(from page: Int, _ how: Failure) { lock.withLock { failing = (page, how) } }
        func heal() { lock.withLock { failing = nil } }
        /// Every page asked for, in order (retries included).
        var requested: [Int] { lock.withLock { pages } }
        func saw(_ page: Int) -> Failure? {
            lock.withLock {
                pages.append(page)
                guard let failing, page >= failing.from else { return nil }
                return failing.how
            }
        }
    }

    static func server(_ source: Source) throws -> FaultServer {
        try FaultServer { seen in
            let page = Pages.page(of: seen.request)
            switch source.saw(page) {
            case .unavailable?: return .respond(status: 503, contentType: "text/plain", body: Data("down".utf8))
            case .notFound?: return .respond(status: 404, contentType: "text/plain", body: Data("gone".utf8))
            case .stall?: return .stall(seconds: 60)
            case nil:
                let items = AirKoreaPages.items(first: (page - 1) * 3, count: max(0, min(3, total - (page - 1) * 3)))
                return .respond(status: 200, contentType: "text/xml", body: Pages.body(items, page: page, total: total))
            }
        }
    }

    /// The rows of an uninterrupted run, normalized for comparison across databases.
    static func reference(_ store: TestStore) async throws -> String {
        let source = Source()
        let server = try server(source)
        defer { server.stop() }
        var env = try RelEnvironment("resume-ref", store: store)
        defer { env.dir.remove() }
        env.baseURL = server.baseURL
        let pipelines = try env.writePipeline("seoul", pipeline)
        #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success, "\(env.printed)")
        #expect(source.requested == [1, 2, 3, 4, 5])
        return try normalized(env.db)
    }

    /// The loaded rows (measurements, stations, bookmarks, the payload index), without what
    /// differs between two databases (run ids, archive paths, fetch times). Only these tables: a
    /// process with every feed registered has more (empty) tables than the in-process reference.
    static func normalized(_ db: TestDatabase) throws -> String {
        var text = ""
        for table in ["measurement", "station", "bookmark", "payload"] {
            let columns = try db.columns(of: table).filter { !["run_id", "archive_path", "request_url", "fetched_at", "updated_at"].contains($0) }
            let rows = try db.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table)").map { $0.joined(separator: "|") }.sorted()
            text += "## \(table) (\(rows.count))\n" + rows.joined(separator: "\n") + "\n"
        }
        return text
    }

    static func journals(_ env: RelEnvironment) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: env.dir.path("archive/.resume").path)) ?? []
    }

    @Test(arguments: TestStore.all)
    func aRunWhoseSourceFailedPartWayIsResumedFromTheArchive(store: TestStore) async throws {
        try await onOwnThread {
            let expected = try await Self.reference(store)
            let source = Source()
            let server = try Self.server(source)
            defer { server.stop() }
            var env = try RelEnvironment("resume", store: store)
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let paths = env.paths(pipelines: try env.writePipeline("seoul", Self.pipeline))

            // The source goes down at page 3: the run fails (after its retries) and keeps nothing.
            source.fail(from: 3, .unavailable)
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .temporaryFailure)
            #expect(source.requested == [1, 2, 3, 3, 3])
            #expect(try env.db.integer("SELECT count(*) FROM measurement") == 0)
            #expect(try env.db.strings("SELECT status FROM run ORDER BY id") == ["failed"])
            #expect(Self.journals(env) == ["seoul.journal"])

            // It is back: the next run fetches pages 3–5 only and loads 1–2 from the archive.
            source.heal()
            let printedBefore = env.out.text.count
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths, json: true) == .success, "\(env.printed)")
            #expect(source.requested == [1, 2, 3, 3, 3, 3, 4, 5])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.dropFirst(printedBefore).utf8)) as? [[String: Any]]).first
            #expect(report?["pages_resumed"] as? Int == 2)
            #expect(report?["payloads"] as? Int == 5)
            #expect(try Self.normalized(env.db) == expected)
            // Quota counts the calls really made, failed attempts included; the journal is gone.
            #expect(try env.db.integer("SELECT sum(calls) FROM api_call") == source.requested.count)
            #expect(Self.journals(env).isEmpty)
            #expect(!containsSentinel(allBytes(under: env.dir.url)))

            // Nothing is left to resume: the next run fetches every page.
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .success)
            #expect(Array(source.requested.dropFirst(8)) == [1, 2, 3, 4, 5])
        }
    }

    @Test(arguments: TestStore.all)
    func freshOldOrRefusedPlansAreFetchedAgain(store: TestStore) async throws {
        try await onOwnThread {
            let source = Source()
            let server = try Self.server(source)
            defer { server.stop() }
            var env = try RelEnvironment("resume-fresh", store: store)
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let paths = env.paths(pipelines: try env.writePipeline("seoul", Self.pipeline))
            func runFromPage2Down(_ how: Source.Failure) async {
                source.fail(from: 2, how)
                _ = await env.feedline.run(names: ["seoul"], source: .live, paths: paths)
                source.heal()
            }

            // `fresh` fetches page 1 again.
            await runFromPage2Down(.unavailable)
            var before = source.requested.count
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths, fresh: true) == .success)
            #expect(Array(source.requested.dropFirst(before)) == [1, 2, 3, 4, 5])

            // A journal older than its window (a day for a pipeline without a schedule) is not used.
            await runFromPage2Down(.unavailable)
            env.clock.advance(86_400 + 60)
            before = source.requested.count
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .success)
            #expect(Array(source.requested.dropFirst(before)) == [1, 2, 3, 4, 5])

            // A refusal for good (HTTP 404) is not a reason to resume: the journal is dropped.
            await runFromPage2Down(.notFound)
            #expect(Self.journals(env).isEmpty)
            before = source.requested.count
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .success)
            #expect(Array(source.requested.dropFirst(before)) == [1, 2, 3, 4, 5])

            // Another plan (other parameters) starts its own journal and fetches everything.
            await runFromPage2Down(.unavailable)
            _ = try env.writePipeline("seoul", Self.pipeline.replacingOccurrences(of: "서울", with: "부산"))
            before = source.requested.count
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: paths) == .success)
            #expect(Array(source.requested.dropFirst(before)) == [1, 2, 3, 4, 5])
        }
    }

    static let binary = FeedlineBinary.url

    /// `kill -9` while the run waits for page 3: nothing is loaded, and the next run (a new
    /// process) fetches pages 3–5 only and ends with an uninterrupted run's rows.
    @Test(.enabled(if: binary != nil, "the feedline executable is not built beside the tests (swift build first)"),
          arguments: TestStore.all)
    func aKilledRunIsResumedByTheNextProcess(store: TestStore) async throws {
        try await onOwnThread {
            let binary = try #require(Self.binary)
            let expected = try await Self.reference(store)
            let source = Source()
            let server = try Self.server(source)
            defer { server.stop() }
            let env = try RelEnvironment("resume-kill", store: store)
            defer { env.dir.remove() }
            let pipelines = try env.writePipeline("seoul", Self.pipeline)
            let arguments = ["run", "seoul", "--live", "--db", env.db.argument, "--pipelines-dir", pipelines.path,
                             "--archive", env.dir.path("archive").path]
            let variables = ["FEEDLINE_AIRKOREA_BASE_URL": server.baseURL.absoluteString, "AIRKOREA_SERVICE_KEY": sentinelKey]

            source.fail(from: 3, .stall)
            let killed = try FeedlineProcess(binary, arguments, environment: variables)
            let deadline = Date().addingTimeInterval(120)
            while !source.requested.contains(3) && Date() < deadline && killed.process.isRunning { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(source.requested == [1, 2, 3])
            killed.killHard()
            source.heal()

            let resumed = try FeedlineProcess(binary, arguments, environment: variables)
            #expect(resumed.wait() == 0)
            #expect(source.requested == [1, 2, 3, 3, 4, 5])
            let loaded = try Self.normalized(env.db)
            #expect(loaded == expected, "\(TestDatabase.firstDifference(loaded, expected))")
            #expect(try env.db.integer("SELECT sum(calls) FROM api_call") == 6)
            #expect(try env.db.strings("SELECT status FROM run ORDER BY id") == ["abandoned", "succeeded"])
            #expect(Self.journals(env).isEmpty)
        }
    }
}
