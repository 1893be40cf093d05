import Foundation
import Pipeline

/// Client-side pacing for every feed of a process: one `RateSchedule` per feed, from the feed's
/// paced limits, plus the pauses providers ask for (`x-ratelimit-remaining: 0` with
/// `x-ratelimit-reset`, a 429's `Retry-After`). One pacer serves every live fetch of a process
/// (runs, scheduled runs, backfills), so two pipelines of one feed together keep to its limits.
/// It only books times; `PacingFetcher` does the waiting, with the environment's clock and sleep.
public final class RatePacer: @unchecked Sendable {
    private let lock = NSLock()
    private var schedules: [String: RateSchedule] = [:]

    public init() {}

    /// Books the next call to `source` under `limits` at `now`: the time it may go.
    public func reserve(_ source: String, limits: [RateLimit], now: Date) -> Date {
        lock.withLock {
            let paced = limits.filter(\.isPaced)
            var schedule = schedules[source] ?? RateSchedule(limits: paced)
            if schedule.limits != paced { schedule = RateSchedule(limits: paced, pausedUntil: schedule.pausedUntil) }
            let at = schedule.reserve(now: now)
            schedules[source] = schedule
            return at
        }
    }

    /// Holds every call to `source` until `until` (a provider said its window is used up).
    public func pause(_ source: String, until: Date) {
        lock.withLock {
            var schedule = schedules[source] ?? RateSchedule(limits: [])
            schedule.pause(until: until)
            schedules[source] = schedule
        }
    }
}

/// Waits for the feed's turn before every attempt of a live fetch (it sits inside the retries,
/// so a retried call is paced like any other), keeping to the feed's `rateLimits`.
public struct PacingFetcher: PayloadFetching {
    public let base: any PayloadFetching
    public let pacer: RatePacer
    public let limits: [String: [RateLimit]]
    public let clock: @Sendable () -> Date
    public let sleep: @Sendable (TimeInterval) async throws -> Void

    public init(base: any PayloadFetching, pacer: RatePacer, feeds: [any Feed], clock: @escaping @Sendable () -> Date,
                sleep: @escaping @Sendable (TimeInterval) async throws -> Void) {
        self.base = base; self.pacer = pacer; self.clock = clock; self.sleep = sleep
        limits = Dictionary(feeds.map { ($0.source, $0.rateLimits) }, uniquingKeysWith: { a, _ in a })
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        let now = clock()
        let wait = pacer.reserve(request.source, limits: limits[request.source] ?? [], now: now).timeIntervalSince(now)
        if wait > 0 { try await sleep(wait) }
        return try await base.fetch(request)
    }
}
