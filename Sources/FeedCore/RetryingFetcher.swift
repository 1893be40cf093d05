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
        var rateLimitRetries = 0
        while true {
            do {
                return try await base.fetch(request)
            } catch {
                switch policy.decide(error, attempt: attempt, delayedSoFar: waited, unitRandom: random(), rateLimitRetries: rateLimitRetries) {
                case .retry(let delay):
                    if let feedError = error as? FeedError {
                        onRetry(RetryEvent(request: request, error: feedError, attempt: attempt, delay: delay))
                        if feedError.isRateLimited { rateLimitRetries += 1 }
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

/// Decodes every page as it is fetched (`PageInspector`), so that the retried unit is fetch +
/// inspect: data.go.kr answers quota, rate and gateway errors with HTTP 200 and a small XML
/// envelope (`<OpenAPI_ServiceResponse>…<returnReasonCode>23</returnReasonCode>`) that only
/// decoding tells from data, and a decorator above this one (`RetryingFetcher`) decides on the
/// `.api` error it throws like on an HTTP error. The decoded page rides on the payload
/// (`RawPayload.inspection`) to the load, which writes it without decoding again.
public struct InspectingFetcher: PayloadFetching {
    public let base: any PayloadFetching
    public let inspector: PageInspector

    public init(base: any PayloadFetching, inspector: PageInspector) {
        self.base = base
        self.inspector = inspector
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        try inspector.inspect(try await base.fetch(request), request: request)
    }
}

/// Gives each fetch a deadline for its *complete* answer, whatever the transport does.
///
/// A server that drips a byte just often enough to keep a transport's idle timeout from firing
/// can hold a fetch for as long as the transport's own whole-transfer limit allows (any
/// transport may have none). This decorator answers with a transient timeout error once
/// `seconds` have passed, and cancels the abandoned fetch.
public struct DeadlineFetcher: PayloadFetching {
    public let base: any PayloadFetching
    /// Seconds a fetch may take in all.
    public let seconds: TimeInterval
    /// Waits (`Task.sleep` live).
    public let sleep: @Sendable (TimeInterval) async throws -> Void

    public init(base: any PayloadFetching, seconds: TimeInterval,
                sleep: @escaping @Sendable (TimeInterval) async throws -> Void = RetryingFetcher.taskSleep) {
        self.base = base; self.seconds = seconds; self.sleep = sleep
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        let gate = OnceGate()
        let base = self.base, seconds = self.seconds, sleep = self.sleep
        let timeout = FeedError(.transport, .transient,
                                "The request failed: timed out (no complete answer within \(RetryPolicy.seconds(seconds)); the server sent too slowly or stalled).",
                                context: request.displayURL)
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RawPayload, Error>) in
                let fetch = Task {
                    do {
                        let payload = try await base.fetch(request)
                        if gate.claim() { continuation.resume(returning: payload) }
                    } catch {
                        if gate.claim() { continuation.resume(throwing: error) }
                    }
                }
                let timer = Task {
                    do { try await sleep(seconds) } catch {
                        // Cancelled: either the fetch finished first (the gate is taken) or the caller gave up.
                        if gate.claim() {
                            fetch.cancel()
                            continuation.resume(throwing: CancellationError())
                        }
                        return
                    }
                    if gate.claim() {
                        fetch.cancel()
                        continuation.resume(throwing: timeout)
                    }
                }
                box.set(fetch: fetch, timer: timer)
            }
        } onCancel: {
            box.cancelAll()
        }
    }

    /// Lets exactly one of the racers resume the continuation.
    private final class OnceGate: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func claim() -> Bool { lock.withLock { defer { done = true }; return !done } }
    }

    /// The two racing tasks, for cancellation from outside and for stopping the timer.
    private final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var tasks: [Task<Void, Never>] = []
        private var cancelled = false
        func set(fetch: Task<Void, Never>, timer: Task<Void, Never>) {
            let cancelNow = lock.withLock { tasks = [fetch, timer]; return cancelled }
            if cancelNow { cancelAll() }
            Task { await fetch.value; timer.cancel() }
        }
        func cancelAll() {
            let all = lock.withLock { cancelled = true; return tasks }
            for task in all { task.cancel() }
        }
    }
}
