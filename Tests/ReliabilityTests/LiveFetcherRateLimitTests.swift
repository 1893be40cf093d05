import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// The 429 classification at `LiveFetcher` itself: transient, rate-limited, the server's
/// `Retry-After` carried on the error and booked with the pacer, with and without a body the
/// feed reads; other statuses keep their classes.
@Suite struct LiveFetcherRateLimitTests {
    /// Answers every GET with `response`.
    struct FixedTransport: HTTPTransport {
        let response: HTTPResponse
        func get(_ url: URL, headers: [String: String]) async throws -> HTTPResponse { response }
    }

    static let now = Date(timeIntervalSince1970: 1_709_704_800)
    static let request = FeedRequest(source: "airkorea", operation: "getCtprvnRltmMesureDnsty",
                                     baseURL: URL(string: "http://127.0.0.1:9/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty")!,
                                     query: [QueryItem("sidoName", "서울")], format: .xml, credential: nil)

    /// The error `fetch` throws for `response`, and when the pacer next lets the source call.
    func failure(_ response: HTTPResponse, feedReadsBody: FeedError? = nil) async throws -> (FeedError, Date) {
        let dir = try TemporaryDirectory("fetcher-429")
        defer { dir.remove() }
        let pacer = RatePacer()
        var fetcher = LiveFetcher(transport: FixedTransport(response: response), environment: [:],
                                  archive: PayloadArchive(root: dir.url), clock: { Self.now }, pacer: pacer)
        if let feedReadsBody { fetcher.httpErrors = { _, _, _ in feedReadsBody } }
        do {
            _ = try await fetcher.fetch(Self.request)
        } catch let error as FeedError {
            return (error, pacer.reserve("airkorea", limits: [], now: Self.now))
        }
        Issue.record("fetch did not fail")
        throw CancellationError()
    }

    @Test("a 429 with Retry-After is transient and rate-limited, carries the wait, and pauses the feed for it")
    func tooManyRequestsWithRetryAfter() async throws {
        let (error, next) = try await failure(HTTPResponse(status: 429, contentType: "text/plain", body: Data(), headers: ["Retry-After": "7"]))
        #expect(error.kind == .httpStatus(429))
        #expect(error.retryability == .transient)
        #expect(error.isRateLimited)
        #expect(error.retryAfter == 7)
        #expect(next == Self.now.addingTimeInterval(7), "the pacer holds the feed for the server's wait")
        #expect(RetryPolicy().decide(error, attempt: 1, unitRandom: 0.5) == .retry(after: 7), "the retry waits what the server asked")
        #expect(RetryPolicy().decide(error, attempt: 2, unitRandom: 0.5, rateLimitRetries: 1) == .giveUp(.rateLimited), "once, never in a loop")
    }

    @Test("a 429 without Retry-After is transient and rate-limited with no wait of its own, and books no pause")
    func tooManyRequestsWithoutRetryAfter() async throws {
        let (error, next) = try await failure(HTTPResponse(status: 429, contentType: nil, body: Data()))
        #expect(error.retryability == .transient && error.isRateLimited && error.retryAfter == nil)
        #expect(next == Self.now)
    }

    @Test("a 429 whose body the feed reads keeps the feed's sentence and is still rate-limited with the header's wait")
    func tooManyRequestsReadByTheFeed() async throws {
        let typed = FeedError(.api(code: "99", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR"), .transient, "Too many calls per second.")
        let (error, next) = try await failure(HTTPResponse(status: 429, contentType: "text/xml", body: Data("<x/>".utf8), headers: ["Retry-After": "12"]),
                                              feedReadsBody: typed)
        #expect(error.kind == typed.kind && error.message == typed.message)
        #expect(error.isRateLimited && error.retryAfter == 12)
        #expect(next == Self.now.addingTimeInterval(12))
    }

    @Test("other statuses keep their classes: 503 and 408 transient, 404 and 401 terminal, none rate-limited",
          arguments: [(503, Retryability.transient), (408, .transient), (500, .transient), (404, .terminal), (401, .terminal), (400, .terminal)])
    func otherStatuses(status: Int, expected: Retryability) async throws {
        let (error, _) = try await failure(HTTPResponse(status: status, contentType: nil, body: Data(), headers: ["Retry-After": "5"]))
        #expect(error.kind == .httpStatus(status))
        #expect(error.retryability == expected)
        #expect(!error.isRateLimited)
    }
}
