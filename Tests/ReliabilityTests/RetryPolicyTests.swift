import FeedCore
import Foundation
import Pipeline
import Testing

/// The pure retry policy and its shell, with a recording sleeper and a fixed random source.
struct RetryPolicyTests {
    static let http503 = FeedError(.httpStatus(503), .transient, "The server answered HTTP 503 (server error).")
    static let http404 = FeedError(.httpStatus(404), .terminal, "The server answered HTTP 404 (no such endpoint).")
    static let quota22 = FeedError(.api(code: "22", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"), .transient, "quota",
                                   exhaustsDailyQuota: true)
    static let rate23 = FeedError(.api(code: "23", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR"), .transient, "rate")
    static let key30 = FeedError(.api(code: "30", name: "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"), .terminal, "key")

    @Test func transientErrorsBackOffExponentiallyWithinTheJitterBand() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 1, maxDelay: 30, maxTotalDelay: 1000, jitter: 0.5)
        for attempt in 1...7 {
            let raw = min(30, pow(2, Double(attempt - 1)))
            #expect(policy.decide(Self.http503, attempt: attempt, unitRandom: 0) == .retry(after: raw / 2))
            #expect(policy.decide(Self.http503, attempt: attempt, unitRandom: 0.999_999) == .retry(after: raw * (0.5 + 0.5 * 0.999_999)))
        }
        // The cap holds however far the exponent goes.
        #expect(policy.delay(beforeRetry: 60, unitRandom: 1) == 30)
        #expect(policy.delay(beforeRetry: 1000, unitRandom: 0) == 15)
    }

    @Test func rateLimitsAndServerErrorsAreRetriedButTheDailyQuotaAndTerminalErrorsAreNot() {
        let policy = RetryPolicy.standard
        #expect(policy.decide(Self.rate23, attempt: 1, unitRandom: 0.5) == .retry(after: 0.75))
        #expect(policy.decide(FeedError(.transport, .transient, "timed out"), attempt: 1, unitRandom: 0) == .retry(after: 0.5))
        #expect(policy.decide(FeedError(.httpStatus(429), .transient, "429"), attempt: 2, unitRandom: 0) == .retry(after: 1))
        #expect(policy.decide(Self.quota22, attempt: 1, unitRandom: 0.5) == .giveUp(.dailyQuotaExhausted))
        // The feed decides what exhausts the quota: an API code alone means nothing to the policy.
        #expect(policy.decide(FeedError(.api(code: "22", name: "X"), .transient, "q"), attempt: 1, unitRandom: 0) == .retry(after: 0.5))
        #expect(policy.decide(FeedError(.quotaExhausted, .transient, "counted", exhaustsDailyQuota: true), attempt: 1, unitRandom: 0) == .giveUp(.dailyQuotaExhausted))
        #expect(policy.decide(Self.key30, attempt: 1, unitRandom: 0.5) == .giveUp(.terminal))
        #expect(policy.decide(Self.http404, attempt: 1, unitRandom: 0.5) == .giveUp(.terminal))
        #expect(policy.decide(CancellationError(), attempt: 1, unitRandom: 0.5) == .giveUp(.notAFeedError))
    }

    @Test func attemptsAndTotalDelayAreCapped() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 1, maxDelay: 30, maxTotalDelay: 60, jitter: 0)
        #expect(policy.decide(Self.http503, attempt: 3, unitRandom: 0) == .retry(after: 4))
        #expect(policy.decide(Self.http503, attempt: 4, unitRandom: 0) == .giveUp(.attemptsExhausted(4)))
        let budget = RetryPolicy(maxAttempts: 100, baseDelay: 1, maxDelay: 30, maxTotalDelay: 10, jitter: 0)
        #expect(budget.decide(Self.http503, attempt: 3, delayedSoFar: 3, unitRandom: 0) == .retry(after: 4))       // 3 + 4 ≤ 10
        #expect(budget.decide(Self.http503, attempt: 4, delayedSoFar: 7, unitRandom: 0) == .giveUp(.delayBudgetExhausted(7)))  // 7 + 8 > 10
        #expect(RetryPolicy.never.decide(Self.http503, attempt: 1, unitRandom: 0) == .giveUp(.attemptsExhausted(1)))
    }

    @Test func environmentOverridesAndRejectsNonsense() throws {
        let policy = try RetryPolicy.fromEnvironment(["FEEDLINE_RETRY_ATTEMPTS": "2", "FEEDLINE_RETRY_BASE_MS": "5",
                                                      "FEEDLINE_RETRY_CAP_MS": "40", "FEEDLINE_RETRY_BUDGET_MS": "100"])
        #expect(policy.maxAttempts == 2 && policy.baseDelay == 0.005 && policy.maxDelay == 0.04 && policy.maxTotalDelay == 0.1)
        #expect(try RetryPolicy.fromEnvironment([:]) == .standard)
        #expect(RetryPolicy.standard.maxAttempts == 4 && RetryPolicy.standard.baseDelay == 1 && RetryPolicy.standard.maxDelay == 30)
        #expect(throws: RetryConfigurationError.self) { try RetryPolicy.fromEnvironment(["FEEDLINE_RETRY_ATTEMPTS": "0"]) }
        do {
            _ = try RetryPolicy.fromEnvironment(["FEEDLINE_RETRY_BASE_MS": "fast"])
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("FEEDLINE_RETRY_BASE_MS") && "\(error)".contains("fast"))
        }
    }

    // MARK: - The shell

    /// Fails with the scripted errors, then succeeds; counts calls.
    final class ScriptedFetcher: PayloadFetching, @unchecked Sendable {
        private let lock = NSLock()
        private var script: [Error]
        private(set) var calls = 0
        init(_ script: [Error]) { self.script = script }
        func fetch(_ request: FeedRequest) async throws -> RawPayload {
            let next: Error? = lock.withLock {
                calls += 1
                return script.isEmpty ? nil : script.removeFirst()
            }
            if let next { throw next }
            return RawPayload(file: URL(fileURLWithPath: "/dev/null"), request: request, source: request.source, operation: request.operation,
                              format: .xml, fetchedAt: Date(timeIntervalSince1970: 0), sha256: "0", byteCount: 0)
        }
    }

    final class Sleeps: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [TimeInterval] = []
        func record(_ t: TimeInterval) { lock.withLock { values.append(t) } }
        var all: [TimeInterval] { lock.withLock { values } }
    }

    static let request = FeedRequest(source: "airkorea", operation: "getCtprvnRltmMesureDnsty",
                                     baseURL: URL(string: "http://127.0.0.1:9/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty")!,
                                     query: [QueryItem("pageNo", "1")], format: .xml,
                                     credential: CredentialRequirement(environmentVariable: "AIRKOREA_SERVICE_KEY", placement: .query("serviceKey")))

    func retrying(_ base: ScriptedFetcher, _ policy: RetryPolicy, _ sleeps: Sleeps) -> RetryingFetcher {
        RetryingFetcher(base: base, policy: policy, sleep: { sleeps.record($0) }, random: { 0.5 })
    }

    @Test func theShellSleepsWhatThePolicySaysAndSucceedsAfterTransientFailures() async throws {
        let base = ScriptedFetcher([Self.http503, Self.rate23])
        let sleeps = Sleeps()
        let payload = try await retrying(base, RetryPolicy(maxAttempts: 4, baseDelay: 1, jitter: 0.5), sleeps).fetch(Self.request)
        #expect(payload.operation == "getCtprvnRltmMesureDnsty")
        #expect(base.calls == 3)
        #expect(sleeps.all == [0.75, 1.5])
    }

    @Test func theShellFailsFastOnTerminalErrorsAndOnTheDailyQuota() async throws {
        for (error, fragment) in [(Self.key30, "key"), (Self.quota22, "midnight KST")] {
            let base = ScriptedFetcher([error, error, error])
            let sleeps = Sleeps()
            do {
                _ = try await retrying(base, .standard, sleeps).fetch(Self.request)
                Issue.record("expected \(error) to be thrown")
            } catch let thrown as FeedError {
                #expect(thrown.kind == error.kind)
                #expect(thrown.description.contains(fragment))
                #expect(!thrown.description.contains("\n"), "one line")
            }
            #expect(base.calls == 1, "\(error) must not be retried")
            #expect(sleeps.all.isEmpty)
        }
    }

    @Test func theShellGivesUpAfterTheLastAttemptSayingSo() async throws {
        let base = ScriptedFetcher(Array(repeating: Self.http503, count: 10))
        let sleeps = Sleeps()
        do {
            _ = try await retrying(base, RetryPolicy(maxAttempts: 3, baseDelay: 0.01, jitter: 0), sleeps).fetch(Self.request)
            Issue.record("expected a failure")
        } catch let error as FeedError {
            #expect(error.retryability == .transient)
            #expect(error.message.contains("Gave up after 3 attempts"))
        }
        #expect(base.calls == 3)
        #expect(sleeps.all == [0.01, 0.02])
    }

    @Test func cancellationDuringTheWaitStopsRetrying() async throws {
        let base = ScriptedFetcher(Array(repeating: Self.http503, count: 10))
        let fetcher = RetryingFetcher(base: base, policy: .standard, sleep: { _ in throw CancellationError() }, random: { 0 })
        await #expect(throws: CancellationError.self) { _ = try await fetcher.fetch(Self.request) }
        #expect(base.calls == 1)
    }
}
