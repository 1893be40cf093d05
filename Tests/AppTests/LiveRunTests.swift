import App
import Foundation
import GRDB
import Pipeline
import Testing
import TestSupport

/// Live mode over real HTTP: a loopback server plays data.go.kr, libcurl fetches, pages are
/// followed, payloads archived, and everything lands in a temporary SQLite file.
@Suite(.serialized) struct LiveRunTests {
    static let sentinelKey = "SENTINEL-KEY-7f3a9c"
    static let pipeline = """
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
          ver: "1.3"
        format: xml
        page_size: 3
        """

    /// Serves realtime pages of 3, 3 and 1 items (7 in all), by `pageNo`.
    static func pagingServer(format: String = "xml", failOnPage: Int? = nil, failure: LoopbackServer.Reply? = nil) throws -> LoopbackServer {
        try LoopbackServer { request in
            let page = Int(request.query["pageNo"] ?? "") ?? 0
            if page == failOnPage, let failure { return failure }
            let counts = [1: 3, 2: 3, 3: 1]
            let items = AirKoreaPages.items(first: (page - 1) * 3, count: counts[page] ?? 0)
            let body = format == "json"
                ? AirKoreaPages.json(items, pageNo: page, numOfRows: 3, totalCount: 7)
                : AirKoreaPages.xml(items, pageNo: page, numOfRows: 3, totalCount: 7)
            return .respond(status: 200, contentType: format == "json" ? "application/json" : "text/xml", body: body)
        }
    }

    func count(_ db: URL, _ sql: String) throws -> Int {
        let queue = try openForAssertions(db.path)
        return try queue.read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    @Test func livePagingFollowsShortPageAndLoadsEveryRow() async throws {
        let server = try Self.pagingServer()
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = Self.sentinelKey
        env.airKoreaBase = server.baseURL
        let pipelines = try env.writePipeline("seoul", Self.pipeline)

        let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .success, "\(env.err.text)")

        // Three requests, pageNo 1…3, each carrying the key, the province and the page size.
        let requests = server.requests
        #expect(requests.map { $0.query["pageNo"] } == ["1", "2", "3"])
        #expect(requests.allSatisfy { $0.query["serviceKey"] == Self.sentinelKey && $0.query["sidoName"] == "서울" && $0.query["numOfRows"] == "3" })
        #expect(requests.first?.path == "/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty")

        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 7)
        #expect(try count(env.database, "SELECT count(*) FROM payload") == 3)
        #expect(try count(env.database, "SELECT count(*) FROM run WHERE status = 'succeeded' AND rows_inserted = 7") == 1)
        #expect(try count(env.database, "SELECT count(*) FROM measurement WHERE khai IS NULL AND pm10 IS NOT NULL") == 7)
        #expect(try count(env.database, "SELECT count(*) FROM bookmark WHERE pipeline = 'seoul' AND value = '2024-03-06T06:00:00Z'") == 1)

        // The archive holds the three pages and their redacted requests.
        let archived = Console.payloadFiles(under: env.dir.path("archive"))
        #expect(archived.count == 3)
        let meta = try String(contentsOf: archived[0].deletingPathExtension().appendingPathExtension("meta.json"), encoding: .utf8)
        #expect(meta.contains("serviceKey=REDACTED"))

        // Status reports the calls made today against the daily quota.
        #expect(env.feedline.status(paths: env.paths(pipelines: pipelines), json: false) == .success)
        #expect(env.out.text.contains("airkorea/ArpltnInforInqireSvc (AIRKOREA_SERVICE_KEY): 3 calls, 497 of 500 left"), "\(env.out.text)")
    }

    @Test func theKeyNeverLeavesTheEnvironment() async throws {
        // A run that succeeds and one that fails on a gateway error, then grep everything.
        let server = try Self.pagingServer(failOnPage: 2, failure: .respond(status: 200, contentType: "text/xml",
                                                                             body: AirKoreaPages.gatewayError(code: "30", name: "SERVICE_KEY_IS_NOT_REGISTERED_ERROR")))
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = Self.sentinelKey
        env.airKoreaBase = server.baseURL
        let pipelines = try env.writePipeline("seoul", Self.pipeline)

        let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines), json: true)
        #expect(status == .failure)
        #expect(env.out.text.contains("SERVICE_KEY_IS_NOT_REGISTERED_ERROR") || env.out.text.contains("30"))

        let everything = env.out.text + env.err.text + env.logs.text
        #expect(!everything.contains(Self.sentinelKey))
        #expect(allBytes(under: env.dir.url).range(of: Data(Self.sentinelKey.utf8)) == nil, "the key was written to a file")
        #expect(env.logs.text.contains("serviceKey=REDACTED"))
    }

    @Test func anErrorOnALaterPageLoadsNothing() async throws {
        let server = try Self.pagingServer(failOnPage: 3, failure: .respond(status: 200, contentType: "text/xml",
                                                                             body: AirKoreaPages.gatewayError(code: "22", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR")))
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = Self.sentinelKey
        env.airKoreaBase = server.baseURL
        let pipelines = try env.writePipeline("seoul", Self.pipeline)

        let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .deferred, "an exhausted quota waits for tomorrow: deferred, not a failing source")
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 0)
        #expect(try count(env.database, "SELECT count(*) FROM payload") == 0)
        #expect(try count(env.database, "SELECT count(*) FROM run WHERE status = 'failed' AND error LIKE '%22%'") == 1)
    }

    @Test func httpFailuresAreClassified() async throws {
        for (reply, expected) in [(LoopbackServer.Reply.respond(status: 503, contentType: "text/plain", body: Data("busy".utf8)), ExitStatus.temporaryFailure),
                                  (.respond(status: 404, contentType: "text/plain", body: Data("nope".utf8)), .failure),
                                  (.dropConnection, .temporaryFailure)] {
            let server = try Self.pagingServer(failOnPage: 1, failure: reply)
            defer { server.stop() }
            var env = try TestEnvironment()
            defer { env.dir.remove() }
            env.variables["AIRKOREA_SERVICE_KEY"] = Self.sentinelKey
            env.airKoreaBase = server.baseURL
            let pipelines = try env.writePipeline("seoul", Self.pipeline)
            let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
            #expect(status == expected, "\(reply): \(env.out.text)")
            #expect(try count(env.database, "SELECT count(*) FROM measurement") == 0)
        }
    }

    /// A live run keeps its pages' rows for the load in a spool file under TMPDIR, not in
    /// memory: where no spool can be made, the run stops with a sentence saying so and loads
    /// nothing; with one, every row loads and no spool file is left behind.
    @Test func livePagesWaitForTheLoadInASpoolUnderTMPDIR() async throws {
        let server = try Self.pagingServer()
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = Self.sentinelKey
        env.airKoreaBase = server.baseURL
        env.variables["TMPDIR"] = env.dir.path("no-such-directory").path
        let pipelines = try env.writePipeline("seoul", Self.pipeline)

        #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .failure)
        let said = env.out.text + env.err.text
        #expect(said.contains("spool") && said.contains("TMPDIR"), "\(said)")
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 0)

        let spools = env.dir.path("spools")
        try FileManager.default.createDirectory(at: spools, withIntermediateDirectories: true)
        env.variables["TMPDIR"] = spools.path
        #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success, "\(env.err.text)")
        #expect(try count(env.database, "SELECT count(*) FROM measurement") == 7)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spools.path).isEmpty)
    }

    @Test func liveModeWithoutAKeyStopsAtOnceNamingTheVariable() async throws {
        let server = try Self.pagingServer()
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.airKoreaBase = server.baseURL
        let pipelines = try env.writePipeline("seoul", Self.pipeline)
        let status = await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .configuration)
        #expect(env.err.text.contains("AIRKOREA_SERVICE_KEY"))
        #expect(server.requests.isEmpty)
    }

    @Test func jsonAndXMLPagesLoadIdenticalRows() async throws {
        var tables: [String] = []
        for format in ["xml", "json"] {
            let server = try Self.pagingServer(format: format)
            defer { server.stop() }
            var env = try TestEnvironment()
            defer { env.dir.remove() }
            env.variables["AIRKOREA_SERVICE_KEY"] = Self.sentinelKey
            env.airKoreaBase = server.baseURL
            let pipelines = try env.writePipeline("seoul", Self.pipeline.replacingOccurrences(of: "format: xml", with: "format: \(format)"))
            #expect(await env.feedline.run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines)) == .success)
            let queue = try openForAssertions(env.database.path)
            tables.append(try await queue.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM measurement ORDER BY station_name")
                    .map { row in row.columnNames.filter { $0 != "payload_sha256" }.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ") }
                    .joined(separator: "\n")
            })
        }
        #expect(tables[0] == tables[1])
        #expect(tables[0].contains("kst_hour=14"))
    }
}
