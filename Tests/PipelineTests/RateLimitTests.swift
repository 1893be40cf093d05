import Foundation
import Pipeline
import PropertyBased
import Testing

@Suite struct RateLimitTests {
    /// Limits (up to two paced ones), and the gaps between the moments calls are asked for.
    static let traffic = Generator<([RateLimit], [Double]), Shrink.None<([RateLimit], [Double])>> { rng in
        let windows: [RateLimit.Window] = [.minute, .hour]
        let limits = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
            RateLimit(Int.random(in: 1...12, using: &rng), per: windows.randomElement(using: &rng)!)
        }
        // Bursts (many asks at one moment) and pauses, in any mix.
        let gaps = (0..<Int.random(in: 1...120, using: &rng)).map { _ in
            Bool.random(using: &rng) ? 0 : Double.random(in: 0...90, using: &rng)
        }
        return (limits, gaps)
    }

    @Test func noWindowEverHoldsMoreCallsThanItsLimitAndNoCallWaitsLongerThanItMust() throws {
        try seededPropertyCheck(count: 300, input: Self.traffic) { limits, gaps in
            var schedule = RateSchedule(limits: limits)
            var now = Date(timeIntervalSince1970: 1_700_000_000)
            var sent: [Date] = []
            for gap in gaps {
                now = now.addingTimeInterval(gap)
                let earlier = sent
                let at = schedule.reserve(now: now)
                #expect(at >= now)
                if let last = earlier.last { #expect(at >= last, "calls go in the order they were booked") }
                // It waits only as long as some limit (or the call before it) makes it.
                let bound = limits.compactMap { limit -> Date? in
                    earlier.count >= limit.calls ? earlier[earlier.count - limit.calls].addingTimeInterval(limit.window.seconds) : nil
                } + [now] + (earlier.last.map { [$0] } ?? [])
                #expect(at == bound.max()!)
                sent.append(at)
            }
            // Any half-open span of a window's length holds at most its limit.
            for limit in limits {
                for (i, start) in sent.enumerated() {
                    let inWindow = sent[i...].prefix { $0 < start.addingTimeInterval(limit.window.seconds) }.count
                    #expect(inWindow <= limit.calls, "\(inWindow) calls in one \(limit.window) of \(limit)")
                }
            }
        }
    }

    @Test func aPauseHoldsEveryCallUntilItEnds() {
        let t0 = Date(timeIntervalSince1970: 0)
        var schedule = RateSchedule(limits: [RateLimit(60, per: .minute)])
        schedule.pause(until: t0.addingTimeInterval(42))
        schedule.pause(until: t0.addingTimeInterval(10))  // never shortened
        #expect(schedule.reserve(now: t0) == t0.addingTimeInterval(42))
        // Limits of a day or a month are budgets, not paced.
        #expect(RateSchedule(limits: [RateLimit(1, per: .month)]).limits.isEmpty)
    }

    @Test func aBudgetAddsScheduledRunsUpAndTellsHowLongPacingTakes() {
        let limits = [RateLimit(60, per: .minute), RateLimit(32_258, per: .day), RateLimit(1_000_000, per: .month)]
        let hourly = RateBudget(shares: [RateBudget.Share(callsPerRun: 650, runsPerDay: 24, runsPerMonth: 720)], limits: limits)
        #expect(hourly.callsPerRun == 650)
        #expect(hourly.pacedDuration == 600, "calls 1–60 at once, 601–650 ten minutes later")
        #expect(hourly.lines.map(\.calls) == [60, 15_600, 468_000])
        #expect(hourly.fits)
        let tooOften = RateBudget(shares: [RateBudget.Share(callsPerRun: 650, runsPerDay: 96, runsPerMonth: 2880)], limits: limits)
        #expect(tooOften.lines.map(\.fits) == [true, false, false], "62,400 a day, 1,872,000 a month")
        #expect(!tooOften.fits)
        #expect(RateBudget(shares: [RateBudget.Share(callsPerRun: 60, runsPerDay: 1, runsPerMonth: 30)], limits: limits).pacedDuration == 0)
    }

    @Test func aRateLimitAnswerIsWaitedOutOnceThenGivesUp() {
        let policy = RetryPolicy.standard
        let told = FeedError(.httpStatus(429), .transient, "429", isRateLimited: true, retryAfter: 17)
        let silent = FeedError(.api(code: "429", name: "RATE_LIMITED"), .transient, "429", isRateLimited: true)
        #expect(policy.decide(told, attempt: 1, unitRandom: 0.5) == .retry(after: 17))
        #expect(policy.decide(silent, attempt: 1, unitRandom: 0.5) == .retry(after: 60), "a minute when the provider does not say")
        #expect(policy.decide(told, attempt: 2, delayedSoFar: 17, unitRandom: 0.5, rateLimitRetries: 1) == .giveUp(.rateLimited))
        #expect(RetryPolicy.explanation(.rateLimited, attempts: 2, waited: 60)?.contains("rate limit answered again") == true)
        #expect(RetryPolicy.never.decide(told, attempt: 1, unitRandom: 0) == .giveUp(.attemptsExhausted(1)))
    }
}
