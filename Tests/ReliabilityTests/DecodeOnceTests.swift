import AirKorea
import App
import FeedCore
import Foundation
import Logging
import Pipeline
import Testing
import TestSupport

/// A live run decodes each page once: the fetch stage's inspection (which surfaces API error
/// envelopes inside the retried unit) is the decode the load writes.
@Suite struct DecodeOnceTests {
    /// AirKorea, counting its decodes and how often it builds a pipeline's requests.
    struct CountingFeed: Feed {
        let base: AirKoreaFeed
        let decodes: Counter
        var requestBuilds = Counter()
        /// Decodes of bytes held in memory (a page just fetched) rather than read from a file.
        var fromMemory = Counter()
        var source: String { base.source }
        var operations: [String] { base.operations }
        var credentialVariable: String { base.credentialVariable }
        var schema: FeedSchema { base.schema }
        func requests(for spec: SourceSpec) throws -> [FeedRequest] {
            requestBuilds.increment()
            return try base.requests(for: spec)
        }
        func request(_ request: FeedRequest, page: Int) -> FeedRequest? { base.request(request, page: page) }
        func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool { base.isLastPage(summary, of: request) }
        func recognise(head: Data, format: PayloadFormat) -> String? { base.recognise(head: head, format: format) }
        func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
            decodes.increment()
            if payload.bytes != nil { fromMemory.increment() }
            return try base.decode(payload, context: context, into: &sink)
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    @Test func eachPageOfALiveRunIsDecodedOnce() async throws {
        try await onOwnThread {
            let server = try FaultServer { seen in
                let page = Pages.page(of: seen.request)
                // The second page answers a rate-limit envelope once, then data: the retried
                // attempt is decoded, and only the page that loads is decoded again — never.
                if page == 2 && seen.attempt == 1 {
                    return .respond(status: 200, contentType: "text/xml", body: AirKoreaPages.gatewayError(code: "23", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR"))
                }
                return .respond(status: 200, contentType: "text/xml", body: Pages.clean(page))
            }
            defer { server.stop() }
            var env = try RelEnvironment("decode-once")
            defer { env.dir.remove() }
            env.baseURL = server.baseURL
            let pipelines = try env.writePipeline("seoul", Pages.provincePipeline)
            let counter = Counter(), builds = Counter(), fromMemory = Counter()
            var environment = env.environment
            environment.feeds = [CountingFeed(base: AirKoreaFeed(baseURL: server.baseURL), decodes: counter, requestBuilds: builds,
                                              fromMemory: fromMemory)]
            let status = await Console(environment: environment).run(names: ["seoul"], source: .live, paths: env.paths(pipelines: pipelines))
            #expect(status == .success, "\(env.printed)")
            #expect(server.requests.count == 4, "three pages, one retried")
            #expect(counter.count == 4, "one decode per fetched answer, not \(counter.count)")
            // …each from the bytes received, not from the archive copy read back.
            #expect(fromMemory.count == 4, "decoded from memory: \(fromMemory.count) of \(counter.count)")
            #expect(try DatabaseDump.integer(env.database, "SELECT count(*) FROM measurement") == 7)
            // Requests are built when the pipeline file is checked and once for the run: the
            // quota check and the runner share the plan.
            #expect(builds.count == 2, "the catalog's check and the run's plan, not \(builds.count)")
        }
    }
}
