import FeedCore
import Foundation
import Logging
import Pipeline

/// The API keys of this process's environment as `SecretScrubber`s: what every log line (human or
/// JSON), every error line and standard output pass through before they leave the process.
///
/// The fetcher already scrubs what a server sends back; this is the last gate for text feedline
/// composes itself (a URL, a parameter, an error's description), in every form a key can take
/// (as configured, percent-encoded or decoded, JSON- or XML-escaped — `SecretScrubber`).
public struct SecretRedaction: Sendable {
    let scrubbers: [SecretScrubber]

    /// The keys held by `variables` under the bundled feeds' credential variables and those of
    /// `feeds` (an empty or blank value is no key).
    public init(variables: [String: String], feeds: [any Feed] = []) {
        let names = Set(AppEnvironment.credentialVariables + feeds.map(\.credentialVariable))
        let keys = Set(names.compactMap { variables[$0].flatMap(APIKey.init)?.configured })
        scrubbers = keys.sorted { $0.count > $1.count }.map { SecretScrubber(secret: $0) }
    }

    /// Whether there is no key to remove.
    public var isEmpty: Bool { scrubbers.isEmpty }

    /// No keys: text passes unchanged.
    public static let none = SecretRedaction(variables: [:])

    /// `text` with every form of every key replaced by `REDACTED`.
    public func scrub(_ text: String) -> String {
        scrubbers.reduce(text) { $1.scrub($0) }
    }

    /// A metadata value with every string in it scrubbed.
    func scrub(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(scrub(text))
        case .stringConvertible(let value): return .string(scrub(value.description))
        case .array(let values): return .array(values.map(scrub))
        case .dictionary(let values): return .dictionary(scrub(values))
        }
    }

    /// Metadata with every key and value scrubbed.
    func scrub(_ metadata: Logger.Metadata) -> Logger.Metadata {
        guard !scrubbers.isEmpty else { return metadata }
        return Dictionary(metadata.map { (scrub($0.key), scrub($0.value)) }, uniquingKeysWith: { a, _ in a })
    }
}

/// A log handler that scrubs every event (message, metadata, error) with `SecretRedaction`
/// before the handler that formats it sees it: the one path both log formats go through.
struct RedactingLogHandler: LogHandler {
    var inner: any LogHandler
    let redaction: SecretRedaction

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = redaction.scrub(newValue) }
    }

    /// None: a provider's metadata would reach the inner handler unscrubbed (feedline sets none).
    var metadataProvider: Logger.MetadataProvider? {
        get { nil }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue.map(redaction.scrub) }
    }

    func log(event: LogEvent) {
        var event = event
        if !redaction.scrubbers.isEmpty {
            event.message = Logger.Message(stringLiteral: redaction.scrub(event.message.description))
            event.metadata = event.metadata.map(redaction.scrub)
            if let error = event.error { event.error = RedactedError(description: redaction.scrub(String(describing: error))) }
        }
        inner.log(event: event)
    }
}

/// An error whose text was scrubbed of keys.
struct RedactedError: Error, CustomStringConvertible {
    var description: String
}
