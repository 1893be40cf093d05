import Domain
import Foundation
import Pipeline

/// Counts every call made with an API key, per API and KST day, in the `QuotaLedger` (the
/// database), and refuses to make a call once the day's limit is reached.
///
/// Each attempt counts — retries included — because the provider counts every call that reaches
/// it. The count is taken *before* the call (one atomic statement: count it if under the limit),
/// so a crash never under-counts and two processes sharing a key never overshoot together.
/// When the API itself answers that the quota is used up (code `22`), the count is raised to
/// the limit so later runs stop before calling.
///
/// The key is identified by its environment variable and a one-way fingerprint, never stored.
public struct QuotaCountingFetcher: PayloadFetching {
    public let base: any PayloadFetching
    public let ledger: any QuotaLedger
    public let limits: QuotaLimits
    /// Where keys are read from, to fingerprint them.
    public let environment: [String: String]
    public let clock: @Sendable () -> Date
    public let policy: RetryPolicy

    public init(base: any PayloadFetching, ledger: any QuotaLedger, limits: QuotaLimits, environment: [String: String],
                clock: @escaping @Sendable () -> Date, policy: RetryPolicy = .standard) {
        self.base = base; self.ledger = ledger; self.limits = limits; self.environment = environment
        self.clock = clock; self.policy = policy
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        guard let scope = Self.scope(of: request, environment: environment) else {
            return try await base.fetch(request)  // no key needed, or none set (the base says so)
        }
        let day = quotaDay(clock())
        let limit = limits.limit(for: request.source)
        let counted: Bool
        do {
            counted = try ledger.reserveCall(scope, on: day, limit: limit)
        } catch {
            throw FeedError(.invalidRequest, .transient, "Could not count the call in the quota ledger: \(error)", context: request.displayURL)
        }
        guard counted else { throw QuotaPlanner.exhaustedError(scope, day: day, limit: limit ?? 0, request: request) }
        do {
            return try await base.fetch(request)
        } catch let error as FeedError where policy.isDailyQuotaError(error) {
            if let limit { try? ledger.markExhausted(scope, on: day, limit: limit) }
            throw error
        }
    }

    /// The scope a request counts against with the key now in `environment`; nil when the
    /// request needs no key or the key is not set.
    public static func scope(of request: FeedRequest, environment: [String: String]) -> QuotaScope? {
        guard let credential = request.credential,
              let key = environment[credential.environmentVariable], !key.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return QuotaScope(request: request, keyFingerprint: fingerprint(ofKey: key))
    }

    /// A short one-way fingerprint of a key: 12 hex digits of SHA-256 over a fixed prefix and the
    /// key with surrounding space removed and percent-encoding undone (data.go.kr hands out an
    /// encoded and a decoded form of the same key; both count as one).
    public static func fingerprint(ofKey key: String) -> String {
        let trimmed = key.trimmingCharacters(in: .whitespacesAndNewlines)
        let canonical = trimmed.removingPercentEncoding ?? trimmed
        return String(SHA256.hex(Array("feedline-quota-v1:\(canonical)".utf8)).prefix(12))
    }
}
