import Foundation
import Logging

/// Collects text written by the app (stdout, stderr, logs) so tests can read and grep it.
public final class TextSink: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    public func append(_ line: String) { lock.withLock { lines.append(line) } }
    public var text: String { lock.withLock { lines.joined(separator: "\n") } }
    /// Forgets what was written so far.
    public func clear() { lock.withLock { lines.removeAll() } }
}

/// A swift-log handler that writes into a `TextSink`, metadata (and any error) included.
public struct CapturingLogHandler: LogHandler {
    public let sink: TextSink
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(sink: TextSink) { self.sink = sink }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = self.metadata.merging(event.metadata ?? [:]) { _, b in b }
        let error = event.error.map { " error=\($0)" } ?? ""
        sink.append("\(event.level) \(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))\(error)")
    }
}
