import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Writes each log event as one JSON object on one line (`--log-format json`):
///
///     {"time":"2024-03-06T06:00:00.125Z","level":"info","message":"fetched page","fetch.page":"2",…}
///
/// `time` is UTC ISO-8601 with milliseconds, `level` swift-log's level name, `message` the text;
/// then the event's metadata as flat keys, exactly as named (`run.pipeline`, `fetch.page`: the
/// dot-namespaced keys stay as they are), values as strings (a nested dictionary's keys are
/// joined with dots; a list is a JSON array), and `error` when the event carries one. A metadata
/// key that is one of `time`, `level` or `message` is written as `metadata.KEY`. Keys after the
/// first three are sorted, so equal events give equal lines.
///
/// Secrets are removed before an event gets here (`RedactingLogHandler`).
struct JSONLogHandler: LogHandler {
    let label: String
    /// Writes one line (no newline at its end).
    let write: @Sendable (String) -> Void
    let clock: @Sendable () -> Date
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, write: @escaping @Sendable (String) -> Void, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.label = label; self.write = write; self.clock = clock
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        var fields: [(String, String)] = []
        Self.flatten(merged, prefix: "", into: &fields)
        if let error = event.error { fields.append(("error", Self.string(String(describing: error)))) }
        write(Self.line(time: clock(), level: event.level.rawValue, message: event.message.description, fields: fields))
    }

    // MARK: - Lines

    /// A line for an error-output line of a command: `error: …`, `warning: …` and `note: …`
    /// become levels error, warning and notice with the prefix removed; other lines are info.
    static func line(forMessageLine text: String, time: Date) -> String {
        for (prefix, level) in [("error: ", "error"), ("warning: ", "warning"), ("note: ", "notice")] where text.hasPrefix(prefix) {
            return line(time: time, level: level, message: String(text.dropFirst(prefix.count)), fields: [])
        }
        return line(time: time, level: "info", message: text, fields: [])
    }

    /// `time`, `level` and `message`, then `fields` (values already JSON) sorted by key.
    static func line(time: Date, level: String, message: String, fields: [(String, String)]) -> String {
        var out = "{\"time\":\"\(timestamp(time))\",\"level\":\(string(level)),\"message\":\(string(message))"
        let reserved: Set<String> = ["time", "level", "message"]
        for (key, value) in fields.sorted(by: { $0.0 < $1.0 }) {
            out += ",\(string(reserved.contains(key) ? "metadata.\(key)" : key)):\(value)"
        }
        return out + "}"
    }

    /// Metadata as (key, JSON value) pairs: nested dictionaries flattened with dotted keys.
    static func flatten(_ metadata: Logger.Metadata, prefix: String, into fields: inout [(String, String)]) {
        for (key, value) in metadata {
            let name = prefix.isEmpty ? key : "\(prefix).\(key)"
            if case .dictionary(let nested) = value {
                flatten(nested, prefix: name, into: &fields)
            } else {
                fields.append((name, json(value)))
            }
        }
    }

    /// A metadata value as JSON: text as a string, a list as an array, a dictionary as an object.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return string(text)
        case .stringConvertible(let value): return string(value.description)
        case .array(let values): return "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let values):
            return "{" + values.sorted { $0.key < $1.key }.map { "\(string($0.key)):\(json($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string literal: the project's one JSON writer (`JSONText`).
    static func string(_ text: String) -> String { JSONText.string(text) }

    /// `date` as UTC ISO-8601 with milliseconds: `2024-03-06T06:00:00.125Z`.
    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(millis >= 0 ? millis / 1000 : (millis - 999) / 1000)
        let fraction = Int(millis - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))Z"
    }

    /// Writes a line to standard error in one call, so concurrent lines never interleave.
    static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
