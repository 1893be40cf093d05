import Foundation
import Logging

/// A one-line progress display for long runs on a terminal: the pipeline, pages fetched, files
/// loaded of how many (with the percentage), rows, the rate, the time elapsed, and an ETA when a
/// total is known:
///
///     feedline: replay · files 54/108 (50%) · 46,080 rows · 23,040 rows/s · 0:02 · ETA 0:02
///
/// It reads the structured events the runner already logs (`Console.log`: `fetched page`,
/// `loaded payload`, …), so no use case knows it exists. `attach(to:)` installs it into the live
/// environment only when standard error is a terminal; under cron or CI (not a terminal), or with
/// `FEEDLINE_PROGRESS=0` or `TERM=dumb`, nothing changes and logs stay plain lines at the chosen
/// `--log-level` (`info` shows one line per fetched page).
///
/// The line is redrawn in place (`\r` + clear-line) at most every `interval`; it is cleared before
/// anything else is written to standard output or error, so summaries and warnings never mix
/// with it. Counters restart after each summary line (one pipeline each).
public final class TerminalProgress: @unchecked Sendable {
    /// `@unchecked Sendable`: every state change happens under `lock`.
    private let lock = NSLock()
    private let write: @Sendable (String) -> Void
    private let clock: @Sendable () -> Date
    private let interval: TimeInterval

    private var state = State()
    private var shown = false
    private var lastDraw: Date?

    /// What has happened since the last summary line.
    struct State: Equatable {
        var started: Date?
        var pages = 0
        var items = 0
        var payloads = 0
        var skipped = 0
        var failed = 0
        var rows = 0
        /// Items expected so far: the sum of the `fetch.total` each request's first page reported.
        var totalItems: Int?
        var operation: String?
        /// The run's ledger name (`run started`).
        var pipeline: String?
        /// Files or pages the run will load (`payloads staged`), and when that was known.
        var totalFiles: Int?
        var loadStarted: Date?
        /// Files or pages done: loaded, already loaded or failed.
        var filesDone: Int { payloads + skipped + failed }
    }

    /// `write` receives raw text for the terminal (no newline added).
    public init(write: @escaping @Sendable (String) -> Void, clock: @escaping @Sendable () -> Date, interval: TimeInterval = 0.1) {
        self.write = write
        self.clock = clock
        self.interval = interval
    }

    // MARK: Installing

    /// `environment` with progress on standard error when it is a terminal; unchanged otherwise.
    public static func attach(to environment: AppEnvironment) -> AppEnvironment {
        let v = environment.variables
        let enabled = isatty(STDERR_FILENO) != 0 && v["FEEDLINE_PROGRESS"] != "0" && v["TERM"] != "dumb"
        guard enabled else { return environment }
        let progress = TerminalProgress(write: { FileHandle.standardError.write(Data($0.utf8)) }, clock: environment.clock)
        return progress.installed(in: environment)
    }

    /// `environment` whose logger feeds this display and whose output and error output clear
    /// the line before writing.
    public func installed(in environment: AppEnvironment) -> AppEnvironment {
        var env = environment
        let output = environment.output, errorOutput = environment.errorOutput
        env.output = { [self] text in
            clear()
            output(text)
            reset()
        }
        env.errorOutput = { [self] text in
            clear()
            errorOutput(text)
            redraw()
        }
        var logger = environment.logger
        let level = logger.logLevel
        logger.handler = ProgressLogHandler(inner: logger.handler, progress: self, forwardLevel: level)
        env.logger = logger
        return env
    }

    // MARK: Events

    /// Updates the counters from one log event and redraws when due.
    func observe(_ message: String, metadata: Logger.Metadata?) {
        func int(_ key: String) -> Int? { metadata?[key].flatMap { Int("\($0)") } }
        let changed: Bool = lock.withLock {
            switch message {
            case "run started":
                if let name = metadata?["run.pipeline"] { state.pipeline = "\(name)" }
            case "payloads staged":
                state.totalFiles = int("load.total")
                state.loadStarted = clock()
            case "fetched page":
                state.pages += 1
                state.items += int("fetch.items") ?? 0
                if let total = int("fetch.total") { state.totalItems = (state.totalItems ?? 0) + total }
                if let op = metadata?["feed.operation"] { state.operation = "\(op)" }
            case "loaded payload":
                state.payloads += 1
                state.rows += int("load.rows") ?? 0
            case "payload already loaded; skipped":
                state.skipped += 1
            case "file could not be loaded":
                state.failed += 1
            default:
                return false
            }
            if state.started == nil { state.started = clock() }
            return true
        }
        if changed { redraw(force: false) }
    }

    // MARK: Drawing

    /// The progress line at `now` (no control characters).
    func line(at now: Date) -> String {
        lock.withLock { Self.line(state, now: now) }
    }

    static func line(_ s: State, now: Date) -> String {
        let elapsed = s.started.map { max(0, now.timeIntervalSince($0)) } ?? 0
        var parts: [String] = []
        if let pipeline = s.pipeline { parts.append(pipeline) }
        if s.pages > 0 {
            let total = s.totalItems.map { " of \(grouped($0))" } ?? ""
            parts.append("fetched \(s.pages) page\(s.pages == 1 ? "" : "s") (\(grouped(s.items))\(total) items\(s.operation.map { ", \($0)" } ?? ""))")
        }
        if let total = s.totalFiles {
            var files = "files \(grouped(s.filesDone))/\(grouped(total))"
            var notes: [String] = []
            if total > 0 { notes.append("\(s.filesDone * 100 / total)%") }
            if s.skipped > 0 { notes.append("\(grouped(s.skipped)) already loaded") }
            if s.failed > 0 { notes.append("\(grouped(s.failed)) failed") }
            if !notes.isEmpty { files += " (\(notes.joined(separator: ", ")))" }
            parts.append(files)
            parts.append("\(grouped(s.rows)) rows")
        } else if s.payloads > 0 || s.skipped > 0 || s.failed > 0 {
            var loaded = "loaded \(s.payloads) payload\(s.payloads == 1 ? "" : "s"), \(grouped(s.rows)) rows"
            if s.skipped > 0 { loaded += ", \(s.skipped) already loaded" }
            if s.failed > 0 { loaded += ", \(s.failed) failed" }
            parts.append(loaded)
        }
        let count = s.rows > 0 ? s.rows : s.items
        let unit = s.rows > 0 ? "rows" : "items"
        if elapsed >= 0.5 && count > 0 {
            parts.append("\(grouped(Int((Double(count) / elapsed).rounded()))) \(unit)/s")
        }
        parts.append(duration(elapsed))
        if let total = s.totalFiles, let start = s.loadStarted {
            // Loading: files left at the pace of the files done so far.
            let loading = max(0, now.timeIntervalSince(start))
            if s.filesDone > 0, s.filesDone < total, loading >= 0.5 {
                parts.append("ETA \(duration(Double(total - s.filesDone) * loading / Double(s.filesDone)))")
            }
        } else if let total = s.totalItems, s.items > 0, s.items < total, elapsed >= 0.5 {
            let remaining = Double(total - s.items) / (Double(s.items) / elapsed)
            parts.append("ETA \(duration(remaining))")
        }
        return "feedline: " + parts.joined(separator: " · ")
    }

    /// Redraws the line, at most every `interval` unless `force`.
    func redraw(force: Bool = true) {
        lock.withLock {
            guard state.started != nil else { return }
            let now = clock()
            if !force, let lastDraw, now.timeIntervalSince(lastDraw) < interval { return }
            lastDraw = now
            shown = true
            write("\r\u{1B}[2K" + Self.line(state, now: now))
        }
    }

    /// Removes the line from the terminal (it is drawn again on the next event).
    func clear() {
        lock.withLock {
            guard shown else { return }
            shown = false
            write("\r\u{1B}[2K")
        }
    }

    /// Starts counting afresh (after a pipeline's summary line).
    func reset() {
        lock.withLock {
            state = State()
            lastDraw = nil
        }
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// Feeds every log event to a `TerminalProgress` and forwards those at or above the chosen level
/// to the real handler (clearing the progress line around them).
struct ProgressLogHandler: LogHandler {
    var inner: any LogHandler
    let progress: TerminalProgress
    /// The level the user chose: only events at or above it reach `inner`.
    var forwardLevel: Logger.Level

    init(inner: any LogHandler, progress: TerminalProgress, forwardLevel: Logger.Level) {
        var inner = inner
        inner.logLevel = .trace
        self.inner = inner
        self.progress = progress
        self.forwardLevel = forwardLevel
    }

    /// Debug, so the runner's `info`/`debug` events reach the display whatever `--log-level` says;
    /// setting it sets the level forwarded to the real handler.
    var logLevel: Logger.Level {
        get { min(forwardLevel, .debug) }
        set { forwardLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        progress.observe(event.message.description, metadata: event.metadata)
        guard event.level >= forwardLevel else { return }
        progress.clear()
        inner.log(event: event)
        progress.redraw()
    }
}
