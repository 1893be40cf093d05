import Foundation

/// Whether trying again can help.
public enum Retryability: String, Sendable, Codable {
    /// Quota or rate limits, timeouts, 5xx, gateway hiccups: a later try may succeed.
    case transient
    /// Bad key, bad parameter, retired service, malformed document: retrying cannot help.
    case terminal
}

/// An error that stops a fetch or a decode. Reads as one sentence, carries its context, and
/// never contains a secret (URLs are the redacted `displayURL`).
public struct FeedError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The network failed (connection refused, reset, timeout).
        case transport
        /// A non-2xx HTTP status.
        case httpStatus(Int)
        /// The API answered with its own error code (gateway `returnReasonCode` or provider `resultCode`).
        case api(code: String, name: String)
        /// The document could not be read (malformed, truncated, wrong shape).
        case malformed
        /// A replayed file matched no known payload shape.
        case unrecognised
        /// A required environment variable is not set.
        case missingCredential(String)
        /// A pipeline or command asked for something the feed cannot do.
        case invalidRequest
        /// feedline's own count of today's calls reached the feed's daily limit: the call was
        /// not made.
        case quotaExhausted
        /// A declared check of severity `error` failed after the load (`CheckFailure` says which).
        case checkFailed
        /// A payload's fields drifted from what its operation declares and the pipeline says
        /// `on_drift: fail`: the load rolled back.
        case schemaDrift
    }

    public var kind: Kind
    public var retryability: Retryability
    /// What happened, as a sentence.
    public var message: String
    /// The redacted URL or file involved.
    public var context: String?

    /// Whether the error says the daily call quota is used up: only a run after it resets can
    /// succeed, so it is not retried and later runs that day do not call. Each feed maps its own
    /// answers to this (AirKorea: code 22); feedline's own count sets it too (`.quotaExhausted`).
    public var exhaustsDailyQuota: Bool

    /// Whether the provider said the call came too fast (HTTP 429, or its own rate-limit
    /// answer): the call is retried once after the window (`retryAfter`, else a minute), never
    /// in a loop.
    public var isRateLimited: Bool
    /// How long the provider asked to wait (`Retry-After`, `x-ratelimit-reset`), in seconds.
    public var retryAfter: TimeInterval?

    public init(_ kind: Kind, _ retryability: Retryability, _ message: String, context: String? = nil, exhaustsDailyQuota: Bool = false,
                isRateLimited: Bool = false, retryAfter: TimeInterval? = nil) {
        self.kind = kind; self.retryability = retryability; self.message = message; self.context = context
        self.exhaustsDailyQuota = exhaustsDailyQuota; self.isRateLimited = isRateLimited; self.retryAfter = retryAfter
    }

    public var description: String {
        let tag = retryability == .transient ? " (transient: a later retry may succeed)" : ""
        if let context { return "\(message)\(tag) [\(context)]" }
        return message + tag
    }
}
