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
    }

    public var kind: Kind
    public var retryability: Retryability
    /// What happened, as a sentence.
    public var message: String
    /// The redacted URL or file involved.
    public var context: String?

    public init(_ kind: Kind, _ retryability: Retryability, _ message: String, context: String? = nil) {
        self.kind = kind; self.retryability = retryability; self.message = message; self.context = context
    }

    public var description: String {
        let tag = retryability == .transient ? " (transient: a later retry may succeed)" : ""
        if let context { return "\(message)\(tag) [\(context)]" }
        return message + tag
    }
}
