import AirKorea
import Domain
import FeedCore
import Foundation
import Logging
import Pipeline
import Storage

/// The use cases behind the commands. Commands parse and validate; this does the work with the
/// environment it is given and returns an exit status.
public struct Console: Sendable {
    public let environment: AppEnvironment

    public init(environment: AppEnvironment) { self.environment = environment }

    var out: @Sendable (String) -> Void { environment.output }
    var err: @Sendable (String) -> Void { environment.errorOutput }

    // MARK: - pipelines

    /// Lists and validates the pipeline files: a table of the valid pipelines, then a table of
    /// every problem in every invalid file (its path, the field, what is wrong), then the counts;
    /// with `json`, one JSON object instead. A fixture file that does not exist is a warning on
    /// standard error. Exit: 0 all valid; 78 any file invalid (or none to list).
    public func listPipelines(paths: Paths, json: Bool = false) -> ExitStatus {
        let catalog = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory)
        let (pipelines, problems) = catalog.loadAll()
        var invalidFiles: [String] = []
        for problem in problems where !invalidFiles.contains(problem.file) { invalidFiles.append(problem.file) }
        var missingFixtures: [String: [String]] = [:]
        for p in pipelines {
            if p.fixtures.isEmpty {
                err("warning: \(p.file): field 'fixtures': none listed, so `feedline run` without --live skips \(p.name) and `feedline check` cannot test it; "
                    + "after a live run, `feedline fixtures add \(p.name) ARCHIVED_FILE` adds a payload it archived.")
            }
            for fixture in p.fixtures where !FileManager.default.fileExists(atPath: paths.fixtures.appendingPathComponent(fixture).path) {
                missingFixtures[p.name, default: []].append(fixture)
                err("warning: \(p.file): field 'fixtures': \(fixture) does not exist under \(environment.displayPath(paths.fixtures)).")
            }
        }
        let quota = scheduledQuota(of: pipelines, paths: paths)
        if json {
            out(Self.pipelinesJSON(pipelines, problems: problems, invalidFiles: invalidFiles, missingFixtures: missingFixtures, quota: quota))
        } else {
            if !pipelines.isEmpty {
                var table = TextTable(["PIPELINE", "FEED/OPERATION", "FORMAT", "SCHEDULE", "TIME ZONE", "PARAMETERS"])
                for p in pipelines {
                    let params = p.spec.parameters.map { "\($0.name)=\($0.values.joined(separator: ","))" }.joined(separator: " ")
                    table.append([p.name, "\(p.source)/\(p.spec.operation)", p.spec.format.rawValue, p.schedule ?? "-", p.timeZone, params])
                }
                out(table.text)
            }
            let quotaLines = quota.textLines
            if !quotaLines.isEmpty {
                out("")
                quotaLines.forEach(out)
            }
            if !problems.isEmpty {
                var table = TextTable(["FILE", "FIELD", "PROBLEM"])
                for problem in problems { table.append([problem.file, problem.field ?? "-", problem.message]) }
                if !pipelines.isEmpty { out("") }
                out(table.text)
            }
            if !pipelines.isEmpty || !problems.isEmpty { out("") }
            out("\(pipelines.count) valid, \(invalidFiles.count) invalid"
                + (problems.count > invalidFiles.count ? " (\(problems.count) problems)" : ""))
        }
        quota.warnings.forEach(err)
        if pipelines.isEmpty && problems.isEmpty { err("No pipeline files (*.yaml) in \(environment.displayPath(paths.pipelines)).") }
        if !invalidFiles.isEmpty {
            let files = invalidFiles.count == 1 ? "file is" : "files are"
            err("error: \(invalidFiles.count) pipeline \(files) invalid (\(problems.count) problem\(problems.count == 1 ? "" : "s")): \(invalidFiles.joined(separator: ", ")).")
        }
        return problems.isEmpty ? .success : .configuration
    }

    /// The daily quota use of the valid pipelines' schedules (`ScheduledQuota`). The database is
    /// read only when a pipeline's parameters stand for its stations or places; the limits are
    /// the feeds' own unless `FEEDLINE_QUOTA_*` sets them (an unusable setting is a warning).
    func scheduledQuota(of pipelines: [PipelineDefinition], paths: Paths) -> ScheduledQuota {
        let needsReader = pipelines.contains { p in
            CoordinatePlaceholder.all.contains { placeholder in p.spec.parameters.contains { $0.values.contains(placeholder.token) } }
        }
        let reader = needsReader ? (try? environment.existingStore(paths)) ?? nil : nil
        var limits = QuotaLimits(feeds: environment.feeds)
        do { limits = try QuotaLimits.fromEnvironment(environment.variables, feeds: environment.feeds) } catch {
            err("warning: \(error) The feeds' own daily limits are shown.")
        }
        return environment.scheduledQuota(pipelines, reader: reader, limits: limits)
    }

    /// `feedline pipelines --json`: `{"pipelines": […], "problems": [{"file", "field", "message",
    /// "pipeline"}], "valid": N, "invalid": M, "quota_per_day": […], "quota_notes": […]}`; each
    /// pipeline lists its `checks` (name, kind, table, severity, on_failure) and `snapshots`
    /// (table, file, format, key, columns); `quota_per_day` has one object per key and API (scope,
    /// busiest_day, calls_per_day, limit, share, standing, pipelines with calls_per_run and
    /// runs_per_day).
    static func pipelinesJSON(_ pipelines: [PipelineDefinition], problems: [PipelineCatalog.Problem], invalidFiles: [String],
                              missingFixtures: [String: [String]], quota: ScheduledQuota) -> String {
        let listed: [[String: Any]] = pipelines.map { p in
            [
                "name": p.name, "file": p.file, "description": p.description ?? NSNull(), "source": p.source,
                "operation": p.spec.operation, "format": p.spec.format.rawValue, "page_size": p.spec.pageSize,
                "max_pages": p.spec.maxPages, "schedule": p.schedule ?? NSNull(), "timezone": p.timeZone,
                "catch_up": p.catchUp.rawValue, "on_drift": p.onDrift.rawValue, "target": p.target ?? NSNull(),
                "parameters": Dictionary(p.spec.parameters.map { ($0.name, $0.values) }, uniquingKeysWith: { a, _ in a }),
                "fixtures": p.fixtures, "missing_fixtures": missingFixtures[p.name] ?? [],
                "checks": p.checks.map { ["name": $0.name, "kind": $0.kind.name, "table": $0.table ?? NSNull(),
                                          "severity": $0.severity.rawValue, "on_failure": $0.onFailure.rawValue] as [String: Any] },
                "snapshots": p.snapshots.map { ["table": $0.table, "file": $0.file, "format": $0.format.rawValue, "key": $0.key,
                                                "columns": $0.columns] as [String: Any] },
                "freshness": p.freshness.map { c -> Any in
                    ["warn_after_seconds": c.warnAfter.map { Int($0) } as Any, "error_after_seconds": c.errorAfter.map { Int($0) } as Any] as [String: Any]
                } ?? NSNull(),
            ]
        }
        let found: [[String: Any]] = problems.map {
            ["file": $0.file, "field": $0.field ?? NSNull(), "message": $0.message, "pipeline": $0.pipelineName]
        }
        let object: [String: Any] = ["pipelines": listed, "problems": found, "valid": pipelines.count, "invalid": invalidFiles.count,
                                     "quota_per_day": quota.json, "quota_notes": quota.notes]
        return JSONText.encode(JSONValue(any: object))
    }

    // MARK: - run

    /// `feedline run`: runs the named pipelines (all when `names` is empty) from fixtures or
    /// live through `PipelineRuns`, printing a line per run as it finishes and the totals.
    public func run(names: [String], source: RunMode, paths: Paths, json: Bool = false, dryRun: Bool = false,
                    fresh: Bool = false, slot: PipelineRuns.ScheduledSlot? = nil) async -> ExitStatus {
        let runs = PipelineRuns(environment: environment)
        do throws(CommandRefusal) {
            let selection = try runs.select(names: names, paths: paths)
            for problem in selection.skipped { err("error: \(problem) (skipped)") }
            if dryRun { return self.dryRun(selection.pipelines, source: source, paths: paths, json: json) }  // DryRun.swift
            let metrics = try preparedMetricsFile(paths)
            let nameWidth = selection.pipelines.map { DisplayWidth.columns($0.name) }.max() ?? 0
            let out = out, err = err
            let outcome = try await runs.run(selection, mode: source, paths: paths, names: names, slot: slot, fresh: fresh) { report in
                if !json { out(Self.summaryLine(report, nameWidth: nameWidth)) }
            }
            for locked in outcome.lockedOut { err("error: \(locked.reason)") }
            for name in outcome.alreadyRun { out("\(name): already run for this slot (claimed by another scheduler, or a run started since); nothing to do") }
            for pipeline in outcome.withoutFixtures { (json ? err : out)(Self.withoutFixturesLine(pipeline)) }
            if !names.isEmpty && outcome.reports.isEmpty && !outcome.withoutFixtures.isEmpty && outcome.lockedOut.isEmpty && outcome.alreadyRun.isEmpty {
                return .configuration
            }
            if json { out(Self.json(outcome.reports)) } else if !outcome.reports.isEmpty {
                Self.summaryFooter(outcome.reports, database: paths.databaseName).forEach(out)
            }
            return rewriteMetrics(metrics, paths: paths, after: outcome.exitStatus)
        } catch {
            return refused(error)
        }
    }

    /// The line for a pipeline a fixture run skipped because its file lists no fixtures.
    static func withoutFixturesLine(_ pipeline: PipelineDefinition) -> String {
        "\(pipeline.name): skipped: \(pipeline.file) lists no fixtures (run it with --live, then "
            + "`feedline fixtures add \(pipeline.name) ARCHIVED_FILE` turns a payload it archived into one)"
    }

    /// Replaces `{today}` and `{yesterday}` in parameter values by dates in Asia/Seoul, and
    /// `{now}` by the current Unix second (an OpenWeather history `end`).
    static func expandingPlaceholders(_ pipeline: PipelineDefinition, now: Date) -> PipelineDefinition {
        let today = HourSlot(containing: now).date
        var copy = pipeline
        copy.spec.parameters = pipeline.spec.parameters.map { p in
            (p.name, p.values.map {
                $0.replacingOccurrences(of: "{today}", with: today.description)
                    .replacingOccurrences(of: "{yesterday}", with: today.adding(days: -1).description)
                    .replacingOccurrences(of: "{now}", with: String(Int64(now.timeIntervalSince1970)))
            })
        }
        return copy
    }

    // MARK: - replay

    /// `feedline replay`: replays files or directories with no network, then prints the run.
    public func replay(inputs: [String], sourceHint: String?, parameters: [String: String], paths: Paths,
                       force: Bool, json: Bool = false, checksFrom: String? = nil) async -> ExitStatus {
        do throws(CommandRefusal) {
            let metrics = try preparedMetricsFile(paths)
            let outcome = try await PipelineRuns(environment: environment)
                .replay(inputs: inputs, sourceHint: sourceHint, parameters: parameters, paths: paths, force: force, checksFrom: checksFrom)
            outcome.notes.forEach(err)
            let report = outcome.report
            for failure in report.fileErrors { err("error: \(failure.file): \(Self.stripContext(failure.error, file: failure.file))") }
            if json { out(Self.json([report])) } else {
                out(Self.summaryLine(report))
                Self.summaryFooter([report], database: paths.databaseName).forEach(out)
            }
            return rewriteMetrics(metrics, paths: paths, after: outcome.exitStatus)
        } catch {
            return refused(error)
        }
    }

    /// `transform` applied to every element, spread over the cores; results in input order.
    static func concurrentMap<Element, Result: Sendable>(_ elements: [Element], _ transform: @Sendable (Element) -> Result) -> [Result]
    where Element: Sendable {
        let slots = ConcurrentSlots<Result>(elements.count)
        DispatchQueue.concurrentPerform(iterations: elements.count) { index in
            let result = transform(elements[index])
            slots.lock.withLock { slots.results[index] = result }
        }
        return slots.results.map { $0! }
    }

    /// The payload files (`*.xml`, `*.json`, not `*.meta.json` or hidden) under `directory` that
    /// are regular files (directly or through a symbolic link), sorted by path.
    public static func payloadFiles(under directory: URL) -> [URL] { replayFiles(under: directory).files }

    /// The payload files under `directory`, sorted by path, with the entries named like payloads
    /// that are not regular files: FIFOs, sockets and devices are `skipped` (reason given);
    /// dangling links, link loops and entries that cannot be looked at are `unreadable`.
    /// Symbolic links to directories are followed (deployments link archives in); a directory
    /// reached twice (a link back up the tree) is walked once. Hidden entries are left out.
    static func replayFiles(under directory: URL) -> (files: [URL], skipped: [(URL, String)], unreadable: [(file: String, error: String)]) {
        var files: [URL] = [], skipped: [(URL, String)] = [], unreadable: [(file: String, error: String)] = []
        var visited: Set<String> = []
        func walk(_ folder: URL) {
            guard visited.insert(folder.resolvingSymlinksInPath().path).inserted else { return }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
                if folder != directory { unreadable.append((folder.path, ReplayFileError(problem: "the directory cannot be listed").description)) }
                return
            }
            for name in names where !name.hasPrefix(".") {
                let url = folder.appendingPathComponent(name)
                let kind = ReplayPathKind.of(url.path)
                if kind == .directory { walk(url); continue }
                guard !name.hasSuffix(".meta.json"), ["xml", "json"].contains(url.pathExtension.lowercased()) else { continue }
                switch kind {
                case .regular: files.append(url)
                case .directory: continue
                case .special: skipped.append((url, kind.problem ?? "not a regular file"))
                case .missing, .danglingLink, .linkLoop, .inaccessible:
                    unreadable.append((url.path, ReplayFileError(problem: kind.problem ?? "cannot be read").description))
                }
            }
        }
        walk(directory)
        return (files.sorted { $0.path < $1.path }, skipped.sorted { $0.0.path < $1.0.path }, unreadable.sorted { $0.file < $1.file })
    }

    // MARK: - Reporting

    /// One run's line; `nameWidth` pads the pipeline name so the lines of one command align.
    static func summaryLine(_ r: RunReport, nameWidth: Int = 0) -> String {
        let c = r.counts
        let status = r.error == nil ? (r.fileErrors.isEmpty ? "ok" : "partial") : "FAILED"
        func n(_ value: Int) -> String { TerminalProgress.grouped(value) }
        var line = DisplayWidth.pad(r.pipeline, toColumns: nameWidth) + "  " + DisplayWidth.pad("[\(r.mode.rawValue)]", toColumns: 10)
            + "  " + DisplayWidth.pad(status, toColumns: 7)
        line += "  " + DisplayWidth.pad(r.run.map { "run #\($0.rawValue)" } ?? "", toColumns: 8)
        line += "  payloads \(n(c.payloadsLoaded))"
        if c.payloadsAlreadyLoaded > 0 { line += " (+\(n(c.payloadsAlreadyLoaded)) already loaded)" }
        if r.resumedPages > 0 { line += " (\(n(r.resumedPages)) from an interrupted run's archive)" }
        line += "  rows \(n(c.rows)): \(n(c.inserted)) new, \(n(c.updated)) updated, \(n(c.unchanged)) unchanged  diagnostics \(n(c.diagnostics))"
        if !r.fileErrors.isEmpty { line += "  unreadable files \(n(r.fileErrors.count))" }
        if !r.checks.isEmpty { line += "  checks \(r.checks.tally)" }
        if let error = r.error { line += "\n  error: \(error)" }
        for warning in r.checks where warning.isWarning { line += "\n  warning: check '\(warning.name)': \(warning.message)" }
        return line
    }

    /// What a `run` or `replay` did in all, where it went and what to look at next: totals, the
    /// database, how to list the diagnostics each run recorded.
    static func summaryFooter(_ reports: [RunReport], database: String) -> [String] {
        func n(_ value: Int) -> String { TerminalProgress.grouped(value) }
        var total = LoadCounts()
        for r in reports {
            total.inserted += r.counts.inserted; total.updated += r.counts.updated; total.unchanged += r.counts.unchanged
            total.diagnostics += r.counts.diagnostics; total.payloadsLoaded += r.counts.payloadsLoaded
            total.payloadsAlreadyLoaded += r.counts.payloadsAlreadyLoaded
        }
        let ok = reports.filter { $0.error == nil && $0.fileErrors.isEmpty }.count
        let failed = reports.filter { $0.error != nil }.count
        let partial = reports.count - ok - failed
        var outcome = "\(n(ok)) ok"
        if partial > 0 { outcome += ", \(n(partial)) partial" }
        if failed > 0 { outcome += ", \(n(failed)) failed" }
        var lines = ["total: \(n(reports.count)) run\(reports.count == 1 ? "" : "s") (\(outcome)) · payloads \(n(total.payloadsLoaded))"
            + (total.payloadsAlreadyLoaded > 0 ? " (+\(n(total.payloadsAlreadyLoaded)) already loaded)" : "")
            + " · rows \(n(total.rows)): \(n(total.inserted)) new, \(n(total.updated)) updated, \(n(total.unchanged)) unchanged"
            + " · diagnostics \(n(total.diagnostics))"]
        lines.append("database: \(database)")
        let withDiagnostics = reports.filter { $0.counts.diagnostics > 0 }.compactMap(\.run)
        if let first = withDiagnostics.first {
            let runs = withDiagnostics.map { "#\($0.rawValue)" }.joined(separator: ", ")
            lines.append("diagnostics recorded by run\(withDiagnostics.count == 1 ? "" : "s") \(runs); list them: feedline query diagnostics --param run=\(first.rawValue)")
        }
        if failed > 0 { lines.append("failed runs: feedline status shows their errors; fix and run them again (re-running is safe)") }
        lines.append("next: feedline status · feedline query latest · feedline describe")
        return lines
    }

    static func status(_ reports: [RunReport]) -> ExitStatus {
        let failed = reports.filter { !$0.succeeded }
        if failed.isEmpty { return .success }
        if failed.count < reports.count { return .partial }
        if failed.contains(where: { if case .missingCredential = $0.error?.kind { return true } else { return false } }) { return .configuration }
        // Out of quota (feedline's count, or the API's own answer such as AirKorea's 22): waiting
        // for tomorrow's quota, not a failing source.
        if failed.allSatisfy({ $0.error.map { $0.exhaustsDailyQuota || $0.kind == .quotaExhausted } ?? false }) { return .deferred }
        if failed.allSatisfy({ $0.error?.retryability == .transient }) { return .temporaryFailure }
        return .failure
    }

    /// `run`/`replay --json`: one object per run report.
    static func json(_ reports: [RunReport]) -> String {
        JSONText.encode(reports.map(RunReportJSON.init))
    }

    /// A run report as `--json` prints it.
    struct RunReportJSON: Encodable {
        struct FileError: Encodable { var file: String; var error: String }
        var pipeline: String
        var mode: String
        var status: String
        var run: Int64?
        var payloads: Int
        var payloads_already_loaded: Int
        /// Pages taken from the archive of an interrupted run of the same plan, not fetched again.
        var pages_resumed: Int
        var rows_inserted: Int
        var rows_updated: Int
        var rows_unchanged: Int
        var diagnostics: Int
        var error: String?
        var retryable: Bool?
        var file_errors: [FileError]
        var checks: [JSONValue]

        init(_ r: RunReport) {
            let c = r.counts
            pipeline = r.pipeline; mode = r.mode.rawValue
            status = r.error == nil ? (r.fileErrors.isEmpty ? "succeeded" : "partial") : "failed"
            run = r.run?.rawValue
            payloads = c.payloadsLoaded; payloads_already_loaded = c.payloadsAlreadyLoaded
            pages_resumed = r.resumedPages
            rows_inserted = c.inserted; rows_updated = c.updated; rows_unchanged = c.unchanged; diagnostics = c.diagnostics
            error = r.error?.description
            retryable = r.error.map { $0.retryability == .transient }
            file_errors = r.fileErrors.map { FileError(file: $0.file, error: $0.error) }
            checks = r.checks.map(CheckText.json)
        }

        // Absent values are written as null, not left out.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(pipeline, forKey: .pipeline); try c.encode(mode, forKey: .mode); try c.encode(status, forKey: .status)
            try c.encode(run, forKey: .run); try c.encode(payloads, forKey: .payloads)
            try c.encode(payloads_already_loaded, forKey: .payloads_already_loaded)
            try c.encode(pages_resumed, forKey: .pages_resumed)
            try c.encode(rows_inserted, forKey: .rows_inserted); try c.encode(rows_updated, forKey: .rows_updated)
            try c.encode(rows_unchanged, forKey: .rows_unchanged); try c.encode(diagnostics, forKey: .diagnostics)
            try c.encode(error, forKey: .error); try c.encode(retryable, forKey: .retryable)
            try c.encode(file_errors, forKey: .file_errors)
            try c.encode(checks, forKey: .checks)
        }

        enum CodingKeys: String, CodingKey {
            case pipeline, mode, status, run, payloads, payloads_already_loaded, pages_resumed, rows_inserted, rows_updated, rows_unchanged,
                 diagnostics, error, retryable, file_errors, checks
        }
    }

    static func stripContext(_ message: String, file: String) -> String {
        message.replacingOccurrences(of: " [\(file)]", with: "")
            .replacingOccurrences(of: " [\(URL(fileURLWithPath: file).lastPathComponent)]", with: "")
    }

    static func parseISO(_ text: String) -> Date? {
        // YYYY-MM-DDTHH:MM:SSZ
        guard text.count == 20, let date = LocalDate(iso: text.prefix(10)) else { return nil }
        let t = text.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        guard t.count == 3 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(date.daysSinceEpoch * 86400 + t[0] * 3600 + t[1] * 60 + t[2]))
    }

    static func log(_ event: RunEvent, logger: Logger) {
        switch event {
        case .started(let pipeline):
            logger.debug("run started", metadata: ["run.pipeline": "\(pipeline)"])
        case .staged(let count):
            logger.debug("payloads staged", metadata: ["load.total": "\(count)"])
        case .fetched(let request, let page, let items, let total):
            var metadata: Logger.Metadata = ["feed.operation": "\(request.operation)", "fetch.page": "\(page)", "fetch.items": "\(items)", "fetch.url": "\(request.displayURL)"]
            if page == 1, let total { metadata["fetch.total"] = "\(total)" }
            logger.info("fetched page", metadata: metadata)
        case .loaded(let file, let counts):
            logger.debug("loaded payload", metadata: ["load.file": "\(file)", "load.rows": "\(counts.rows)", "load.inserted": "\(counts.inserted)"])
        case .skippedUnchanged(let file):
            logger.debug("payload already loaded; skipped", metadata: ["load.file": "\(file)"])
        case .fileFailed(let file, let error):
            // The command prints one error line per such file itself; the log only repeats it at debug level.
            logger.debug("file could not be loaded", metadata: ["load.file": "\(file)", "load.error": "\(error)"])
        case .checked(let results):
            for result in results where result.isFailing {
                logger.debug("check failed", metadata: ["check.name": "\(result.name)", "check.severity": "\(result.severity.rawValue)",
                                                        "check.message": "\(result.message)"])
            }
            logger.debug("checks evaluated", metadata: ["check.tally": "\(results.tally)"])
        }
    }
}

/// Results written by concurrent workers, each to its own index.
private final class ConcurrentSlots<Value>: @unchecked Sendable {
    let lock = NSLock()
    var results: [Value?]
    init(_ count: Int) { results = Array(repeating: nil, count: count) }
}
