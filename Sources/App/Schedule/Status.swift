import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Pipeline
import Storage

/// One line of `feedline status`: what the ledger, the schedule and the lock table say about a
/// pipeline.
public struct PipelineStatus: Sendable {
    public var pipeline: String
    public var schedule: String?
    public var timeZone: String?
    public var lastRun: PipelineRunSummary?
    /// The newest time the pipeline's data itself carries (`newestDataKind` says which: the
    /// newest measured hour, forecast release or posting modification), else the end of the
    /// last successful run (`loaded`).
    public var newestDataAt: Date?
    public var newestDataAge: TimeInterval?
    public var newestDataKind: DataTimeKind?
    /// Not fresh: older than its freshness contract's `warn_after` or `error_after`, or without
    /// a contract older than twice the schedule's interval (or no successful run at all).
    public var isStale: Bool
    public var nextFireAt: Date?
    public var lock: RunLockHolder?
    /// In the ledger but no longer in Pipelines/.
    public var isOrphan: Bool
    /// The results of the last run's declared checks (samples left out).
    public var checks: [CheckResult] = []
    /// The fields that drifted in the last run (its `field_drift` rows last seen by it).
    public var drift: [FieldDriftRow] = []
    /// How fresh the newest data is, by the pipeline's contract or the schedule rule.
    public var freshness = FreshnessVerdict(rule: .none, level: .ok, problem: nil)
    /// The verdict of `status --check` (freshness, last run, checks); nil for a pipeline that is
    /// only in the ledger (no longer in Pipelines/, or a `PIPELINE:backfill` ledger name).
    public var verdict: PipelineVerdict?
}

/// What `feedline status` shows: a line per pipeline, today's quota use, and the pipeline files
/// that could not be read.
public struct StatusReport: Sendable {
    public var rows: [PipelineStatus]
    public var quota: [(usage: QuotaUsage, limit: Int?)]
    public var day: LocalDate
    /// `warning: …` lines for invalid pipeline files (their pipelines are left out).
    public var warnings: [String]
    /// What `status --check` reports, errors first: each pipeline's problems, each invalid
    /// pipeline file, each quota used up today.
    public var problems: [HealthProblem] = []
    /// What `feedline metrics` adds to the status; nil unless asked for.
    public var ledger: LedgerFigures?
    /// Every `field_drift` row (schema drift), newest first.
    public var drift: [FieldDriftRow] = []

    /// The worst problem (ok when there is none): the exit code of `status --check`.
    public var level: HealthLevel { problems.map(\.level).max() ?? .ok }

    /// What the ledger holds beyond the status, for `feedline metrics`: each newest run's
    /// payloads and diagnostics by code, and how many runs each pipeline has had by outcome.
    public struct LedgerFigures: Sendable {
        /// Payloads loaded and skipped (already loaded before) by each pipeline's newest run.
        public var payloads: [RunID: (loaded: Int, skipped: Int)] = [:]
        /// Diagnostics recorded by each pipeline's newest run, by code.
        public var diagnostics: [RunID: [String: Int]] = [:]
        /// Runs in the ledger by pipeline (its ledger name) and status.
        public var runs: [String: [String: Int]] = [:]

        /// Reads the figures with portable SQL through the store's reader (any store).
        static func read(_ reader: any DatabaseReading) throws -> LedgerFigures {
            var figures = LedgerFigures()
            let newest = "(SELECT max(id) FROM run GROUP BY pipeline)"
            for row in try reader.fetchAll(sql: "SELECT id, payloads, payloads_skipped FROM run WHERE id IN \(newest)").rows {
                guard let id = row[0].integer else { continue }
                figures.payloads[RunID(Int64(id))] = (row[1].integer ?? 0, row[2].integer ?? 0)
            }
            for row in try reader.fetchAll(sql: "SELECT run_id, code, count(*) FROM diagnostic WHERE run_id IN \(newest) GROUP BY run_id, code").rows {
                guard let id = row[0].integer, let code = row[1].text else { continue }
                figures.diagnostics[RunID(Int64(id)), default: [:]][code] = row[2].integer ?? 0
            }
            for row in try reader.fetchAll(sql: "SELECT pipeline, status, count(*) FROM run GROUP BY pipeline, status").rows {
                guard let pipeline = row[0].text, let status = row[1].text else { continue }
                figures.runs[pipeline, default: [:]][status] = row[2].integer ?? 0
            }
            return figures
        }
    }

    /// Reads the status of every pipeline: the last run (outcome, rows, diagnostics), age of
    /// the newest data (stale sources marked), next fire time and lock holder.
    ///
    /// A reader, like `query`: a missing database is refused with 78 (nothing is created), the
    /// file is never written (a read-only file works), and a database a newer feedline migrated
    /// is read as it is. Tables an older database does not have yet count as empty.
    ///
    /// `ledgerFigures`: also read what `feedline metrics` shows beyond the status.
    public static func read(_ environment: AppEnvironment, paths: Paths, ledgerFigures: Bool = false) throws(CommandRefusal) -> StatusReport {
        let (pipelines, problems) = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory).loadAll()
        let store: any FeedlineStore
        do { store = try environment.openStore(paths, forWriting: false) } catch {
            var refusal = environment.databaseOpenRefusal(error, paths: paths)
            refusal.lines = problems.map { "warning: \($0)" } + refusal.lines
            throw refusal
        }
        let summaries: [PipelineRunSummary], locks: [RunLockHolder], usage: [QuotaUsage]
        var dataTimes: [String: (Date, DataTimeKind)] = [:]
        var checks: [RunID: [CheckResult]] = [:]
        var figures: LedgerFigures?
        var drift: [FieldDriftRow] = []
        let today = HourSlot(containing: environment.clock()).date
        do {
            // The ledger rows `state import` records are no runs of a pipeline: they stay in `run`, not here.
            summaries = try store.hasTable("run") && store.hasTable("bookmark")
                ? store.pipelineRunSummaries().filter { !$0.pipeline.hasSuffix(stateImportRunName("")) } : []
            locks = try store.hasTable("run_lock") ? store.runLocks() : []
            usage = try store.hasTable("api_call") ? store.quotaUsage(on: today) : []
            // A pipeline's `target:` names the table whose newest data time its line shows,
            // from the column the table's declaration names.
            let declared = environment.declaredSchema
            let timed = Set(pipelines.compactMap(\.target)).compactMap { table in declared.table(table)?.dataTime.map { (table, $0) } }
            if !timed.isEmpty {
                let reader = try store.reading()
                for (table, column) in timed where try reader.hasTable(table) {
                    let newest = try reader.fetchAll(sql: "SELECT max(\(column.column)) FROM \(table)").rows.first?.first
                    if case .text(let text)? = newest, let time = column.instant(text) { dataTimes[table] = (time, column.kind) }
                }
            }
            if try store.hasTable("check_result") {
                for summary in summaries { checks[summary.run] = try store.checkResults(run: summary.run) }
            }
            drift = try FieldDriftRow.all(from: try store.reading())
            if ledgerFigures {
                figures = try store.hasTable("run") && store.hasTable("diagnostic") ? LedgerFigures.read(try store.reading()) : LedgerFigures()
            }
        } catch {
            throw CommandRefusal(.failure, problems.map { "warning: \($0)" } + ["error: cannot read the database \(paths.databaseName): \(error)"])
        }
        var rows = Console.statuses(pipelines: pipelines, summaries: summaries, locks: locks, now: environment.clock(), dataTimes: dataTimes)
        for index in rows.indices {
            rows[index].checks = rows[index].lastRun.flatMap { checks[$0.run] } ?? []
            // Drift the last run saw: its rows last seen at or after the run began.
            if let started = rows[index].lastRun?.startedAt {
                rows[index].drift = drift.filter { $0.pipeline == rows[index].pipeline && ($0.lastSeenAt.map { $0 >= started } ?? false) }
            }
        }
        let limits = (try? QuotaLimits.fromEnvironment(environment.variables, feeds: environment.feeds)) ?? QuotaLimits(feeds: environment.feeds)
        var report = StatusReport(rows: rows, quota: usage.map { ($0, limits.limit(for: $0.source)) }, day: today,
                                  warnings: problems.map { "warning: \($0)" })
        report.judge(invalidFiles: problems)
        report.ledger = figures
        report.drift = drift
        return report
    }

    /// Gives each pipeline in Pipelines/ its verdict and gathers every problem, errors first: a
    /// pipeline file that cannot be read is an error (its pipeline is not running), and so is a
    /// quota scope whose daily limit is used up.
    mutating func judge(invalidFiles: [PipelineCatalog.Problem]) {
        var found: [HealthProblem] = []
        for index in rows.indices where !rows[index].isOrphan {
            let row = rows[index]
            let verdict = PipelineVerdict.judge(pipeline: row.pipeline, lastRun: row.lastRun, checks: row.checks, freshness: row.freshness,
                                                drift: row.drift)
            rows[index].verdict = verdict
            found += verdict.problems
        }
        for problem in invalidFiles {
            found.append(HealthProblem(.error, problem.file, (problem.field.map { "field '\($0)': " } ?? "") + problem.message))
        }
        for (usage, limit) in quota {
            guard let limit, Self.isExhausted(usage, limit: limit) else { continue }
            found.append(HealthProblem(.error, "quota", "\(usage.source)/\(usage.api) (\(usage.credentialVariable)): \(usage.calls) of \(limit) calls used on \(day) (KST); the API refuses calls until midnight KST"))
        }
        // Stable: by level, then in the order found (pipelines by name, files, quota).
        problems = found.enumerated().sorted { ($0.element.level, -$0.offset) > ($1.element.level, -$1.offset) }.map(\.element)
    }

    /// Whether the daily `limit` is used up.
    static func isExhausted(_ usage: QuotaUsage, limit: Int) -> Bool { usage.calls >= limit }
}

extension Console {
    /// `feedline status`: prints the `StatusReport`, as a table or (`json`) one JSON object.
    /// The table fits `COLUMNS` (or the terminal) by leaving out what matters least; `wide`
    /// (or output that is not a terminal, with no `COLUMNS`) prints every column.
    ///
    /// `check` (`status --check`): a monitoring plug-in. Prints one line per problem (errors
    /// first; one `ok:` line when there is none), or with `json` the JSON object, and exits 0
    /// when every pipeline is fresh and its last run succeeded, 1 on a warning, 2 on an error.
    public func status(paths: Paths, json: Bool, wide: Bool = false, check: Bool = false) -> ExitStatus {
        let report: StatusReport
        do throws(CommandRefusal) { report = try StatusReport.read(environment, paths: paths) } catch { return refused(error) }
        // Under --check an invalid pipeline file is one of the problems printed.
        if !check { report.warnings.forEach(err) }
        let rows = report.rows, quota = report.quota.map { ($0.usage, $0.limit) }
        if json {
            out(Self.statusJSON(report))
        } else if check {
            out(Self.checkLines(report).joined(separator: "\n"))
        } else {
            let width = wide ? nil : Self.terminalWidth(environment.variables)
            out(Self.statusTable(rows, width: width))
            out(Self.quotaText(quota, day: report.day))
            let stale = rows.filter(\.isStale).map(\.pipeline)
            if !stale.isEmpty {
                out(Self.wrapped("stale (newest data older than its freshness contract or twice the schedule interval, or never loaded): \(stale.joined(separator: ", "))", width: width))
            }
            let drifted = rows.filter { !$0.drift.isEmpty }.map { "\($0.pipeline) (\($0.drift.count) field\($0.drift.count == 1 ? "" : "s"))" }
            if !drifted.isEmpty {
                out(Self.wrapped("schema drift (fields the last run saw added, removed or of another kind than declared; feedline drift lists them): \(drifted.joined(separator: ", "))", width: width))
            }
        }
        return check ? Self.exitStatus(report.level) : .success
    }

    /// `status --check`'s exit status: 0 ok, 1 warning, 2 error.
    static func exitStatus(_ level: HealthLevel) -> ExitStatus {
        switch level {
        case .ok: .success
        case .warning: .failure
        case .error: .checkError
        }
    }

    /// `status --check`'s lines: one per problem, errors first, or one `ok:` line.
    static func checkLines(_ report: StatusReport) -> [String] {
        guard report.problems.isEmpty else { return report.problems.map(\.description) }
        let judged = report.rows.filter { $0.verdict != nil }.count
        return ["ok: \(judged) pipeline\(judged == 1 ? "" : "s") fresh, every last run succeeded, no quota used up"]
    }

    /// Pure: joins pipeline definitions, ledger summaries and locks at `now`.
    /// `dataTimes`: the newest time the data of each target table carries (forecast releases,
    /// posting modifications); measurement pipelines use their newest observed hour.
    static func statuses(pipelines: [PipelineDefinition], summaries: [PipelineRunSummary], locks: [RunLockHolder],
                         now: Date, dataTimes: [String: (Date, DataTimeKind)] = [:]) -> [PipelineStatus] {
        let byName = Dictionary(summaries.map { ($0.pipeline, $0) }, uniquingKeysWith: { a, _ in a })
        let lockByName = Dictionary(locks.map { ($0.pipeline, $0) }, uniquingKeysWith: { a, _ in a })
        var rows: [PipelineStatus] = []
        for p in pipelines {
            let schedule = p.schedule.flatMap { try? CronSchedule($0, timeZone: p.timeZone) }
            let summary = byName[p.name]
            let (newest, kind) = Self.newestData(summary, table: p.target, dataTimes: dataTimes)
            let age = newest.map { now.timeIntervalSince($0) }
            // The pipeline's contract, else today's rule: twice the schedule's interval.
            let rule: FreshnessRule = p.freshness.map { .contract($0) }
                ?? schedule?.typicalInterval(around: now).map { .schedule(interval: $0) } ?? .none
            let freshness = FreshnessVerdict.judge(pipeline: p.name, age: age, kind: kind, rule: rule)
            var row = PipelineStatus(pipeline: p.name, schedule: p.schedule, timeZone: p.timeZone, lastRun: summary,
                                     newestDataAt: newest, newestDataAge: age, newestDataKind: kind, isStale: freshness.level != .ok,
                                     nextFireAt: schedule?.nextFireTime(after: now), lock: lockByName[p.name], isOrphan: false)
            row.freshness = freshness
            rows.append(row)
        }
        for s in summaries where !pipelines.contains(where: { $0.name == s.pipeline }) {
            let (newest, kind) = Self.newestData(s, table: nil, dataTimes: [:])
            rows.append(PipelineStatus(pipeline: s.pipeline, schedule: nil, timeZone: nil, lastRun: s, newestDataAt: newest,
                                       newestDataAge: newest.map { now.timeIntervalSince($0) }, newestDataKind: kind, isStale: false, nextFireAt: nil,
                                       lock: lockByName[s.pipeline], isOrphan: true))
        }
        return rows
    }

    /// The newest data time of a pipeline and its kind: the newest measured hour (its
    /// bookmark), else the newest time its target table's data carries, else its last load.
    static func newestData(_ summary: PipelineRunSummary?, table: String?, dataTimes: [String: (Date, DataTimeKind)]) -> (Date?, DataTimeKind?) {
        if let observed = summary?.newestObservedAt { return (observed, .measured) }
        if summary?.lastSuccessAt != nil, let table, let (time, kind) = dataTimes[table] { return (time, kind) }
        if let loaded = summary?.lastSuccessAt { return (loaded, .loaded) }
        return (nil, nil)
    }

    /// The width to fit: `COLUMNS`, else the terminal's width when standard output is one, else
    /// nil (no limit: scripts reading the output get every column).
    static func terminalWidth(_ variables: [String: String]) -> Int? {
        if let columns = variables["COLUMNS"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), columns > 0 { return columns }
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : nil
    }

    /// The status table, at most `width` columns wide when given: the least useful parts go
    /// first — an empty LOCK column, the UTC echo of NEXT RUN, the run mode, seconds of
    /// LAST RUN, the year of NEXT RUN (never its zone), then whole columns (ROWS, LAST RUN, DIAG), and last the kind of NEWEST DATA
    /// (for long pipeline names); nothing is cut mid-cell.
    static func statusTable(_ rows: [PipelineStatus], width: Int? = nil) -> String {
        struct Cells {
            var pipeline, started, startedShort, outcome, outcomeShort, counts, diagnostics, checks, newest, newestShort, next, nextShort, nextShortest, lock: String
        }
        let cells = rows.map { r -> Cells in
            let run = r.lastRun
            // Every time carries its zone: LAST RUN in UTC, NEXT RUN in the pipeline's zone.
            let started = run?.startedAt.map { iso8601UTC($0).dropLast().replacingOccurrences(of: "T", with: " ") + " UTC" } ?? "never"
            let startedShort = run?.startedAt.map { String(iso8601UTC($0).dropFirst(5).prefix(11)).replacingOccurrences(of: "T", with: " ") + " UTC" } ?? "never"
            let status = run?.status ?? "-"
            var outcome = status
            if let mode = run?.mode, run != nil { outcome += " (\(mode.rawValue))" }
            let counts = run.map { "\(TerminalProgress.grouped($0.rowsInserted))/\(TerminalProgress.grouped($0.rowsUpdated))/\(TerminalProgress.grouped($0.rowsUnchanged))" } ?? "-"
            var newest = r.newestDataAge.map { "\(Self.ageText($0)) ago" + (r.newestDataKind.map { " (\($0.rawValue))" } ?? "") } ?? "none"
            var newestShort = r.newestDataAge.map { "\(Self.ageText($0)) ago" } ?? "none"
            if r.isStale { newest += " STALE"; newestShort += " STALE" }
            var next = "", nextShort = "", nextShortest = ""
            if r.isOrphan { next = "(no pipeline file)"; nextShort = next; nextShortest = "-" } else if let at = r.nextFireAt, let zone = r.timeZone.flatMap(TimeZone.init(identifier:)) {
                next = Self.localTime(at, zone: zone)
                nextShort = next.components(separatedBy: " (").first ?? next
                // `03-06 15:15 Asia/Seoul`: the year goes, the zone stays.
                nextShortest = String(nextShort.dropFirst(5))
            } else { next = r.schedule == nil ? "not scheduled" : "never"; nextShort = next; nextShortest = r.schedule == nil ? "-" : "never" }
            let lock = r.lock.map { "pid \($0.pid)@\($0.host) since \(iso8601UTC($0.acquiredAt).dropLast().replacingOccurrences(of: "T", with: " ")) UTC" } ?? "-"
            return Cells(pipeline: r.pipeline, started: started, startedShort: startedShort, outcome: outcome, outcomeShort: status,
                         counts: counts, diagnostics: run.map { TerminalProgress.grouped($0.diagnostics) } ?? "-", checks: CheckText.cell(r.checks), newest: newest,
                         newestShort: newestShort, next: next, nextShort: nextShort, nextShortest: nextShortest, lock: lock)
        }
        typealias Column = (header: String, cell: (Cells) -> String)
        var columns: [Column] = [("PIPELINE", \.pipeline), ("LAST RUN", \.started), ("OUTCOME", \.outcome), ("ROWS new/upd/same", \.counts),
                                 ("DIAG", \.diagnostics), ("CHECKS", \.checks), ("NEWEST DATA", \.newest), ("NEXT RUN", \.next), ("LOCK", \.lock)]
        // The column of check results is shown once some pipeline declares checks.
        if rows.allSatisfy({ $0.checks.isEmpty }) { columns.removeAll { $0.header == "CHECKS" } }
        func render(_ columns: [Column]) -> [String] {
            let table = [columns.map(\.header)] + cells.map { c in columns.map { $0.cell(c) } }
            let widths = columns.indices.map { i in table.map { DisplayWidth.columns($0[i]) }.max() ?? 0 }
            return table.map { row in
                row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - DisplayWidth.columns(cell)) }
                    .joined(separator: "  ")
            }
        }
        func fits(_ columns: [Column]) -> Bool { width.map { w in render(columns).allSatisfy { DisplayWidth.columns($0) <= w } } ?? true }
        func replace(_ header: String, with cell: @escaping (Cells) -> String) { columns = columns.map { $0.header == header ? ($0.header, cell) : $0 } }
        func drop(_ header: String) { columns.removeAll { $0.header == header } }
        let steps: [() -> Void] = [
            { if rows.allSatisfy({ $0.lock == nil }) { drop("LOCK") } },
            { replace("NEXT RUN", with: \.nextShort) },
            { replace("OUTCOME", with: \.outcomeShort) },
            { replace("LAST RUN", with: \.startedShort) },
            { replace("NEXT RUN", with: \.nextShortest) },
            { drop("ROWS new/upd/same") },
            { drop("LAST RUN") },
            { drop("DIAG") },
            { drop("CHECKS") },
            { replace("NEWEST DATA", with: \.newestShort) },
        ]
        for step in steps where !fits(columns) { step() }
        var lines = render(columns)
        for r in rows {
            if let error = r.lastRun?.error, ["failed", "abandoned"].contains(r.lastRun?.status) {
                lines.append("\(r.pipeline): last error: \(error.split(separator: "\n").first ?? "")")
            }
            for check in r.checks where check.isWarning {
                lines.append(wrapped("\(r.pipeline): warning: check '\(check.name)': \(check.message)", width: width))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` columns (continuations indented).
    static func wrapped(_ text: String, width: Int?) -> String {
        guard let width, DisplayWidth.columns(text) > width else { return text }
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if DisplayWidth.columns(candidate) > width, !line.isEmpty {
                lines.append(line)
                line = "  " + word
            } else {
                line = candidate
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// `45s`, `12m`, `3h05m`, `2d04h`.
    static func ageText(_ seconds: TimeInterval) -> String {
        let s = Int(max(0, seconds))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" }
        if s < 86400 { return "\(s / 3600)h\(String(format: "%02d", s % 3600 / 60))m" }
        return "\(s / 86400)d\(String(format: "%02d", s % 86400 / 3600))h"
    }

    /// Today's calls per API and key variable, with what is left of the daily limit.
    static func quotaText(_ quota: [(QuotaUsage, Int?)], day: LocalDate) -> String {
        guard !quota.isEmpty else { return "quota \(day) (KST): no API calls yet today" }
        return "quota \(day) (KST):\n" + quota.map { usage, limit in
            let left = limit.map { "\(max($0 - usage.calls, 0)) of \($0) left" } ?? "no limit set"
            return "  \(usage.source)/\(usage.api) (\(usage.credentialVariable)): \(usage.calls) calls, \(left)"
        }.joined(separator: "\n")
    }

    /// `status --json`: the pipelines, today's quota and the verdict of `status --check`
    /// (`verdict`: status, exit code and the problem lines).
    static func statusJSON(_ report: StatusReport) -> String {
        let apis: [Any] = report.quota.map { usage, limit -> Any in
            ["source": usage.source, "api": usage.api, "credential_variable": usage.credentialVariable, "calls": usage.calls,
             "limit": limit as Any, "remaining": limit.map { max($0 - usage.calls, 0) } as Any,
             "exhausted": limit.map { StatusReport.isExhausted(usage, limit: $0) } ?? false]
        }
        let verdict: [String: Any] = ["status": report.level.description, "exit_code": report.level.rawValue,
                                      "problems": report.problems.map(\.description)]
        let document: [String: Any] = ["pipelines": statusObjects(report.rows), "quota": ["kst_date": report.day.description, "apis": apis],
                                       "verdict": verdict]
        return JSONText.encode(JSONValue(any: document))
    }

    static func statusJSON(_ rows: [PipelineStatus]) -> String {
        JSONText.encode(JSONValue(any: statusObjects(rows)))
    }

    /// One object per pipeline; absent values are null.
    static func statusObjects(_ rows: [PipelineStatus]) -> [Any] {
        func date(_ d: Date?) -> Any { d.map(iso8601UTC) as Any }
        return rows.map { r -> Any in
            let lastRun: Any = r.lastRun.map { run -> Any in
                ["id": Int(run.run.rawValue), "mode": run.mode?.rawValue as Any, "status": run.status,
                 "started_at": date(run.startedAt), "finished_at": date(run.finishedAt),
                 "rows_inserted": run.rowsInserted, "rows_updated": run.rowsUpdated, "rows_unchanged": run.rowsUnchanged,
                 "diagnostics": run.diagnostics, "error": run.error as Any, "checks": r.checks.map { CheckText.json($0, sample: false) }]
            } as Any
            let lock: Any = r.lock.map { lock -> Any in
                ["pid": Int(lock.pid), "host": lock.host, "acquired_at": date(lock.acquiredAt), "heartbeat_at": date(lock.heartbeatAt)]
            } as Any
            return ["pipeline": r.pipeline, "schedule": r.schedule as Any, "timezone": r.timeZone as Any,
                    "next_fire_at": date(r.nextFireAt), "newest_data_at": date(r.newestDataAt),
                    "newest_data_age_seconds": r.newestDataAge.map { Int($0) } as Any,
                    "newest_data_kind": r.newestDataKind?.rawValue as Any,
                    "stale": r.isStale, "orphan": r.isOrphan, "last_run": lastRun, "lock": lock,
                    "freshness": ["rule": r.freshness.rule.name, "warn_after_seconds": r.freshness.rule.warnAfter.map { Int($0) } as Any,
                                  "error_after_seconds": r.freshness.rule.errorAfter.map { Int($0) } as Any,
                                  "status": r.freshness.level.description] as [String: Any],
                    "verdict": r.verdict.map { v -> Any in
                        ["status": v.level.description, "problems": v.problems.map(\.description)] as [String: Any]
                    } as Any] as [String: Any]
        }
    }
}
