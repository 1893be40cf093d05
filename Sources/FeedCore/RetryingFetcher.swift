import Foundation
import Pipeline

/// A retry of one request, reported before the wait (for logs and tests).
public struct RetryEvent: Sendable {
    /// The request (its `displayURL` is redacted).
    public var request: FeedRequest
    /// What the failed attempt threw.
    public var error: FeedError
    /// The attempt that failed (1-based).
    public var attempt: Int
    /// Seconds waited before the next attempt.
    public var delay: TimeInterval
}

/// The thin shell around `RetryPolicy`: fetches through `base`, and when an attempt fails asks
/// the policy what to do — wait (with the injected `sleep`) and try again, or give up with the
/// error, its message extended by one sentence saying why retrying stopped.
public struct RetryingFetcher: PayloadFetching {
    public let base: any PayloadFetching
    public let policy: RetryPolicy
    /// Waits this many seconds (`Task.sleep` live; a recorder in tests). Throws on cancellation.
    public let sleep: @Sendable (TimeInterval) async throws -> Void
    /// A number in [0, 1) for the jitter.
    public let random: @Sendable () -> Double
    /// Told about each retry before its wait.
    public let onRetry: @Sendable (RetryEvent) -> Void

    public init(base: any PayloadFetching, policy: RetryPolicy,
                sleep: @escaping @Sendable (TimeInterval) async throws -> Void,
                random: @escaping @Sendable () -> Double,
                onRetry: @escaping @Sendable (RetryEvent) -> Void = { _ in }) {
        self.base = base; self.policy = policy; self.sleep = sleep; self.random = random; self.onRetry = onRetry
    }

    /// `Task.sleep` for `seconds`.
    public static let taskSleep: @Sendable (TimeInterval) async throws -> Void = { seconds in
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }

    /// The system random source.
    public static let systemRandom: @Sendable () -> Double = { Double.random(in: 0..<1) }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        var attempt = 1
        var waited: TimeInterval = 0
        while true {
            do {
                return try await base.fetch(request)
            } catch {
                switch policy.decide(error, attempt: attempt, delayedSoFar: waited, unitRandom: random()) {
                case .retry(let delay):
                    if let feedError = error as? FeedError {
                        onRetry(RetryEvent(request: request, error: feedError, attempt: attempt, delay: delay))
                    }
                    try await sleep(delay)
                    waited += delay
                    attempt += 1
                case .giveUp(let reason):
                    guard var feedError = error as? FeedError else { throw error }
                    if let why = RetryPolicy.explanation(reason, attempts: attempt, waited: waited) {
                        feedError.message += " " + why
                    }
                    throw feedError
                }
            }
        }
    }
}

/// Surfaces API error envelopes while fetching, so that they can be retried like HTTP errors.
///
/// data.go.kr answers quota, rate and gateway errors with HTTP 200 and a small XML envelope
/// (`<OpenAPI_ServiceResponse>…<returnReasonCode>23</returnReasonCode>`); only decoding tells
/// them from data. This decorator decodes payloads of at most `maxBytes` (an error envelope is a
/// few hundred bytes) with their feed, discarding the records, and rethrows an `.api` error so
/// a `RetryingFetcher` above it can decide. Anything else the decode finds (a malformed page)
/// is left to the runner, which decodes every page again anyway.
public struct EnvelopeCheckingFetcher: PayloadFetching {
    public let base: any PayloadFetching
    public let feeds: [String: any Feed]
    public let maxBytes: Int

    public init(base: any PayloadFetching, feeds: [any Feed], maxBytes: Int = 64 * 1024) {
        self.base = base
        self.feeds = Dictionary(feeds.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
        self.maxBytes = maxBytes
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        let payload = try await base.fetch(request)
        guard payload.byteCount <= maxBytes, let feed = feeds[request.source] else { return payload }
        var sink = DiscardingSink()
        do {
            _ = try feed.decode(payload, context: DecodeContext(request: request), into: &sink)
        } catch let error as FeedError {
            if case .api = error.kind { throw error }
        } catch {
            // Not an API answer: the runner's own decode reports it.
        }
        return payload
    }
}

/// A sink that keeps nothing.
struct DiscardingSink: RecordSink {
    mutating func accept(_ record: FeedRecord) throws {}
    mutating func diagnose(_ diagnostic: Diagnostic) {}
}
