import App
import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// A password written into a feed's base URL (`FEEDLINE_AIRKOREA_BASE_URL=http://user:secret@host/`)
/// is sent to that host, and shown nowhere: messages, `run.error`, `status`, the archive's
/// metadata and the database show the URL with `***` in its place, as a `postgres://` URL is.
@Suite(.serialized) struct BaseURLPasswordTests {
    static let password = "pa55SECRETword"
    static let pipeline = "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nformat: xml\npage_size: 10\n"

    func run(status code: Int) async throws -> (status: App.ExitStatus, left: String, requests: [LoopbackServer.Request]) {
        let page = AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 2), pageNo: 1, numOfRows: 10, totalCount: 2)
        let server = try LoopbackServer { _ in .respond(status: code, contentType: "text/xml", body: code == 200 ? page : Data("<html>nope</html>".utf8)) }
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = "some-key"
        env.airKoreaBase = URL(string: "http://feeduser:\(Self.password)@127.0.0.1:\(server.port)/")!
        let pipelines = try env.writePipeline("airkorea", Self.pipeline)
        let status = await env.feedline.run(names: ["airkorea"], source: .live, paths: env.paths(pipelines: pipelines), json: true)
        _ = env.feedline.status(paths: env.paths(pipelines: pipelines), json: false)
        _ = env.feedline.status(paths: env.paths(pipelines: pipelines), json: true)
        let left = env.out.text + env.err.text + env.logs.text + String(decoding: allBytes(under: env.dir.url), as: UTF8.self)
        return (status, left, server.requests)
    }

    @Test("a loaded page: the archive metadata, the payload table and the output show the base URL with ***")
    func passwordIsMaskedInWhatALoadStores() async throws {
        let (status, left, requests) = try await run(status: 200)
        #expect(status == .success, "\(left.prefix(600))")
        #expect(!requests.isEmpty && requests.allSatisfy { $0.headers["authorization"]?.hasPrefix("Basic ") == true },
                "the password is still sent to the host it names")
        #expect(!left.contains(Self.password), "the password came out: \(KeyEchoTests.around(Self.password, Data(left.utf8)))")
        #expect(left.contains("feeduser:***@127.0.0.1"), "the masked URL is shown")
    }

    @Test("a failed request: the error, run.error and status show the base URL with ***")
    func passwordIsMaskedInErrors() async throws {
        let (status, left, _) = try await run(status: 404)
        #expect(status != .success)
        #expect(left.contains("HTTP 404"), "\(left.prefix(600))")
        #expect(!left.contains(Self.password), "the password came out: \(KeyEchoTests.around(Self.password, Data(left.utf8)))")
        #expect(left.contains("feeduser:***@127.0.0.1"))
    }

    @Test func redactingPassword() {
        #expect(FeedRequest.redactingPassword(URL(string: "https://u:p%40ss@h.example:8443/a?b=c")!).absoluteString == "https://u:***@h.example:8443/a?b=c")
        #expect(FeedRequest.redactingPassword(URL(string: "https://u@h.example/")!).absoluteString == "https://u@h.example/")
        #expect(FeedRequest.redactingPassword(URL(string: "http://h.example/")!).absoluteString == "http://h.example/")
    }
}
