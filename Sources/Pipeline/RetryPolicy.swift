import Foundation

/// When and how long to wait before trying a failed request again: the pure core of retrying.
///
/// `decide(_:attempt:delayedSoFar:unitRandom:)` looks at an error and the attempt that produced
/// it and returns an `Action`; `RetryingFetcher` (FeedCore) carries the action out with an
/// injected sleeper. Nothing here sleeps, reads the clock or draws random numbers.
///
/// Rules:
/// - Only `FeedError`s marked `.transient` are retried (5xx, 408/429, timeouts, connection
///   resets, empty bodies, API codes such as `23` per-second rate, `01`, `05`, `99`).
///   Terminal errors (bad key, bad parameter, malformed document) give up at once.
/// - A **daily quota** error (data.go.kr code `22`, `LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR`)
///   is transient in the error classification — a *later* run will succeed — but retrying
///   within this run cannot help before the quota resets at midnight KST, so it gives up at
///   once (`.dailyQuotaExhausted`) and the run ends with exit 10 (deferred).
/// - Backoff is exponential with "equal jitter": the `n`-th retry waits
///   `min(cap, base × 2^(n-1))`, scaled by a factor drawn from `[1 - jitter, 1]`, so waits
///   never collapse to zero (a per-second limit needs a real pause) and retries of concurrent
///   runs spread out.
/// - A **rate limit** answer (HTTP 429 or the provider's own, `FeedError.isRateLimited`) waits
///   for the window — `retryAfter` when the provider said, else `rateLimitWait` — and is retried
///   once; a second one gives up (`.rateLimited`): the run ends with exit 75, never in a loop.
///   Client-side pacing (`RateSchedule`) keeps a run from meeting one at all.
/// - Two caps: `maxAttempts` (the first try included) and `maxTotalDelay` (the sum of waits
///   for one request); whichever is reached first ends the retries.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries per request, the first one included (1 = never retry).
    public var maxAttempts: Int
    /// Wait before the first retry, before jitter (seconds).
    public var baseDelay: TimeInterval
    /// Longest single wait (seconds).
    public var maxDelay: TimeInterval
    /// Longest sum of waits for one request (seconds).
    public var maxTotalDelay: TimeInterval
    /// Fraction of each wait that is random, in 0…1 (0.5: a wait lies in [d/2, d]).
    public var jitter: Double
    /// The wait after a rate-limit answer that did not say how long (seconds).
    public var rateLimitWait: TimeInterval = 60

    /// 4 attempts, 1 s base, 30 s cap per wait, 60 s in all, half jitter.
    public static let standard = RetryPolicy()

    /// A policy that never retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    public init(maxAttempts: Int = 4, baseDelay: TimeInterval = 1, maxDelay: TimeInterval = 30,
                maxTotalDelay: TimeInterval = 60, jitter: Double = 0.5) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxTotalDelay = max(0, maxTotalDelay)
        self.jitter = min(1, max(0, jitter))
    }

    /// What to do after a failed attempt.
    public enum Action: Sendable, Equatable {
        /// Wait this long (seconds), then try again.
        case retry(after: TimeInterval)
        /// Stop and report the error.
        case giveUp(GiveUpReason)
    }

    /// Why retrying stops.
    public enum GiveUpReason: Sendable, Equatable {
        /// The error is terminal: retrying cannot help.
        case terminal
        /// The daily quota is used up: only a run after midnight KST can succeed.
        case dailyQuotaExhausted
        /// This many attempts were made, the most allowed.
        case attemptsExhausted(Int)
        /// The next wait would take the total past `maxTotalDelay` (seconds waited so far).
        case delayBudgetExhausted(TimeInterval)
        /// The error is not a `FeedError` (e.g. cancellation): not ours to retry.
        case notAFeedError
        /// The rate limit answered again after one wait for its window.
        case rateLimited
    }

    /// Decides what follows a failed attempt.
    /// - Parameters:
    ///   - error: what the attempt threw.
    ///   - attempt: the 1-based number of the attempt that failed.
    ///   - delayedSoFar: seconds already waited between earlier attempts of this request.
    ///   - unitRandom: a number in [0, 1) from the caller's random source, for the jitter.
    ///   - rateLimitRetries: how many earlier attempts of this request were rate-limit answers.
    public func decide(_ error: Error, attempt: Int, delayedSoFar: TimeInterval = 0, unitRandom: Double,
                       rateLimitRetries: Int = 0) -> Action {
        guard let error = error as? FeedError else { return .giveUp(.notAFeedError) }
        guard error.retryability == .transient else { return .giveUp(.terminal) }
        if isDailyQuotaError(error) { return .giveUp(.dailyQuotaExhausted) }
        guard attempt < maxAttempts else { return .giveUp(.attemptsExhausted(attempt)) }
        if error.isRateLimited {
            // Waiting for the window is the point, so it is not held to the retry time budget.
            guard rateLimitRetries == 0 else { return .giveUp(.rateLimited) }
            return .retry(after: max(0, error.retryAfter ?? rateLimitWait))
        }
        let wait = delay(beforeRetry: attempt, unitRandom: unitRandom)
        guard delayedSoFar + wait <= maxTotalDelay else { return .giveUp(.delayBudgetExhausted(delayedSoFar)) }
        return .retry(after: wait)
    }

    /// The wait before retry number `retry` (1-based), jitter applied with `unitRandom` in [0, 1).
    public func delay(beforeRetry retry: Int, unitRandom: Double) -> TimeInterval {
        let exponent = Double(max(0, min(retry - 1, 62)))
        let raw = min(maxDelay, baseDelay * pow(2, exponent))
        let r = min(max(unitRandom, 0), 1)
        return raw * (1 - jitter + jitter * r)
    }

    /// Whether `error` says the daily quota is used up (`FeedError.exhaustsDailyQuota`, set by
    /// the feed that read the answer).
    public func isDailyQuotaError(_ error: FeedError) -> Bool { error.exhaustsDailyQuota }

    /// The sentence appended to an error when retrying stopped, or nil when nothing needs saying
    /// (a terminal error on its first attempt speaks for itself).
    public static func explanation(_ reason: GiveUpReason, attempts: Int, waited: TimeInterval) -> String? {
        switch reason {
        case .terminal, .notAFeedError:
            return attempts > 1 ? "Gave up on attempt \(attempts): this error is not retryable." : nil
        case .dailyQuotaExhausted:
            return "Not retried: the daily quota resets at midnight KST (Asia/Seoul)."
        case .attemptsExhausted(let n):
            return "Gave up after \(n) attempts (waited \(Self.seconds(waited)) in all)."
        case .delayBudgetExhausted:
            return "Gave up after \(attempts) attempts: waiting longer would pass the retry time budget (waited \(Self.seconds(waited)))."
        case .rateLimited:
            return "Stopped: the provider's rate limit answered again after waiting for its window (waited \(Self.seconds(waited)) in all); try again later."
        }
    }

    /// `0.25 s`, `12 s`: a duration as people read it.
    public static func seconds(_ t: TimeInterval) -> String {
        t < 10 ? String(format: "%.2f s", t) : String(format: "%.0f s", t)
    }

    // MARK: - Configuration

    /// The policy from environment variables over `defaults`:
    /// `FEEDLINE_RETRY_ATTEMPTS` (tries, ≥ 1), `FEEDLINE_RETRY_BASE_MS`, `FEEDLINE_RETRY_CAP_MS`
    /// (longest single wait), `FEEDLINE_RETRY_BUDGET_MS` (longest total wait),
    /// `FEEDLINE_RATE_LIMIT_WAIT_MS` (the wait after a rate-limit answer that does not say how
    /// long; default 60 000), all milliseconds.
    /// Throws a sentence naming the variable when a value is not a whole number in range.
    public static func fromEnvironment(_ variables: [String: String], defaults: RetryPolicy = .standard) throws -> RetryPolicy {
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let raw = variables[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            guard let n = Int(raw), range.contains(n) else {
                throw RetryConfigurationError(message: "\(name) must be a whole number in \(range.lowerBound)…\(range.upperBound), not '\(raw)'.")
            }
            return n
        }
        var policy = defaults
        if let n = try number("FEEDLINE_RETRY_ATTEMPTS", 1...100) { policy.maxAttempts = n }
        if let ms = try number("FEEDLINE_RETRY_BASE_MS", 0...3_600_000) { policy.baseDelay = Double(ms) / 1000 }
        if let ms = try number("FEEDLINE_RETRY_CAP_MS", 0...3_600_000) { policy.maxDelay = Double(ms) / 1000 }
        if let ms = try number("FEEDLINE_RETRY_BUDGET_MS", 0...86_400_000) { policy.maxTotalDelay = Double(ms) / 1000 }
        if let ms = try number("FEEDLINE_RATE_LIMIT_WAIT_MS", 0...3_600_000) { policy.rateLimitWait = Double(ms) / 1000 }
        return policy
    }
}

/// A retry setting in the environment is not usable.
public struct RetryConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
