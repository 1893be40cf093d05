import Foundation
import Logging

/// How log events are written to standard error: `human` (swift-log's stream format, the
/// default) or `json` (one JSON object a line, `JSONLogHandler`).
///
/// Chosen by `--log-format`, else `FEEDLINE_LOG_FORMAT`, else `log_format:` in `feedline.yaml`,
/// else `human`.
public enum LogFormat: String, Sendable, CaseIterable {
    case human
    case json

    /// The values, for messages: "human or json".
    static var choices: String { allCases.map(\.rawValue).joined(separator: " or ") }

    /// A misspelt format in the environment or the home's config (exit 78).
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The format from the flag, else `FEEDLINE_LOG_FORMAT`, else the home's `log_format:`
    /// (already checked when the home was read), else `human`. The flag is checked by
    /// `GlobalOptions.validate`; an empty variable counts as unset.
    static func resolve(flag: String?, variables: [String: String], home: FeedlineHome?) throws -> LogFormat {
        if let flag, let format = LogFormat(rawValue: flag) { return format }
        if let text = variables["FEEDLINE_LOG_FORMAT"], !text.isEmpty {
            guard let format = LogFormat(rawValue: text) else {
                throw Problem(description: "FEEDLINE_LOG_FORMAT must be \(choices), not '\(text)'.")
            }
            return format
        }
        return home?.config.logFormat ?? .human
    }
}

/// The executable's logging: the handler for a format, behind the secret scrubber.
enum FeedlineLogging {
    /// A logger at `level` writing `format` to standard error, every event scrubbed by `redaction`.
    static func logger(format: LogFormat, level: Logger.Level, redaction: SecretRedaction) -> Logger {
        var logger = Logger(label: "feedline") { label in
            let inner: any LogHandler = switch format {
            case .human: StreamLogHandler.standardError(label: label)
            case .json: JSONLogHandler(label: label, write: JSONLogHandler.standardError)
            }
            return RedactingLogHandler(inner: inner, redaction: redaction)
        }
        logger.logLevel = level
        return logger
    }

    /// The error output for a format: the lines as they are (`human`) or each line as a JSON log
    /// object (`json`: `error: …` at level error, `warning: …` warning, `note: …` notice, other
    /// lines info), scrubbed by `redaction` either way. Written whatever `--log-level` says: these
    /// are the command's own messages.
    static func errorOutput(format: LogFormat, redaction: SecretRedaction, write: @escaping @Sendable (String) -> Void,
                            clock: @escaping @Sendable () -> Date = { Date() }) -> @Sendable (String) -> Void {
        switch format {
        case .human:
            return { text in write(redaction.scrub(text)) }
        case .json:
            return { text in
                let lines = redaction.scrub(text).split(separator: "\n", omittingEmptySubsequences: true)
                guard !lines.isEmpty else { return }
                write(lines.map { JSONLogHandler.line(forMessageLine: String($0), time: clock()) }.joined(separator: "\n"))
            }
        }
    }
}
