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
    /// Newest data older than twice the schedule's interval (or no successful run at all).
    public var isStale: Bool
    public var nextFireAt: Date?
    public var lock: RunLockHolder?
    /// In the ledger but no longer in Pipelines/.
    public var isOrphan: Bool
    /// The results of the last run's declared checks (samples left out).
    public var checks: [CheckResult] = []
}

/// What `feedline status` shows: a line per pipeline, today's quota use, and the pipeline files
/// that could not be read.
public struct StatusReport: Sendable {
    public var rows: [PipelineStatus]
    public var quota: [(usage: QuotaUsage, limit: Int?)]
    public var day: LocalDate
    /// `warning: …` lines for invalid pipeline files (their pipelines are left out).
    public var warnings: [String]

    /// Reads the status of every pipeline: the last run (outcome, rows, diagnostics), age of
    /// the newest data (stale sources marked), next fire time and lock holder.
    ///
    /// A reader, like `query`: a missing database is refused with 78 (nothing is created), the
    /// file is never written (a read-only file works), and a database a newer feedline migrated
    /// is read as it is. Tables an older database does not have yet count as empty.
    public static func read(_ environment: AppEnvironment, paths: Paths) throws(CommandRefusal) -> StatusReport {
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
        let today = HourSlot(containing: environment.clock()).date
        do {
            summaries = try store.hasTable("run") && store.hasTable("bookmark") ? store.pipelineRunSummaries() : []
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
        } catch {
            throw CommandRefusal(.failure, problems.map { "warning: \($0)" } + ["error: cannot read the database \(paths.databaseName): \(error)"])
        }
        var rows = Console.statuses(pipelines: pipelines, summaries: summaries, locks: locks, now: environment.clock(), dataTimes: dataTimes)
        for index in rows.indices { rows[index].checks = rows[index].lastRun.flatMap { checks[$0.run] } ?? [] }
        let limits = (try? QuotaLimits.fromEnvironment(environment.variables, feeds: environment.feeds)) ?? QuotaLimits(feeds: environment.feeds)
        return StatusReport(rows: rows, quota: usage.map { ($0, limits.limit(for: $0.source)) }, day: today,
                            warnings: problems.map { "warning: \($0)" })
    }
}

extension Console {
    /// `feedline status`: prints the `StatusReport`, as a table or (`json`) one JSON object.
    /// The table fits `COLUMNS` (or the terminal) by leaving out what matters least; `wide`
    /// (or output that is not a terminal, with no `COLUMNS`) prints every column.
    public func status(paths: Paths, json: Bool, wide: Bool = false) -> ExitStatus {
        let report: StatusReport
        do throws(CommandRefusal) { report = try StatusReport.read(environment, paths: paths) } catch { return refused(error) }
        report.warnings.forEach(err)
        let rows = report.rows, quota = report.quota.map { ($0.usage, $0.limit) }
        if json {
            out(Self.statusJSON(rows, quota: quota, day: report.day))
        } else {
            let width = wide ? nil : Self.terminalWidth(environment.variables)
            out(Self.statusTable(rows, width: width))
            out(Self.quotaText(quota, day: report.day))
            let stale = rows.filter(\.isStale).map(\.pipeline)
            if !stale.isEmpty {
                out(Self.wrapped("stale (newest data older than twice the schedule interval, or never loaded): \(stale.joined(separator: ", "))", width: width))
            }
        }
        return .success
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
            var stale = false
            if let interval = schedule?.typicalInterval(around: now) {
                stale = age.map { $0 > 2 * interval } ?? true
            }
            rows.append(PipelineStatus(pipeline: p.name, schedule: p.schedule, timeZone: p.timeZone, lastRun: summary,
                                       newestDataAt: newest, newestDataAge: age, newestDataKind: kind, isStale: stale,
                                       nextFireAt: schedule?.nextFireTime(after: now), lock: lockByName[p.name], isOrphan: false))
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
    /// first — an empty LOCK column, the UTC echo and zone of NEXT RUN, the run mode, seconds of
    /// LAST RUN, then whole columns (ROWS, LAST RUN, DIAG), and last the kind of NEWEST DATA
    /// (for long pipeline names); nothing is cut mid-cell.
    static func statusTable(_ rows: [PipelineStatus], width: Int? = nil) -> String {
        struct Cells {
            var pipeline, started, startedShort, outcome, outcomeShort, counts, diagnostics, checks, newest, newestShort, next, nextShort, nextShortest, lock: String
        }
        let cells = rows.map { r -> Cells in
            let run = r.lastRun
            let started = run?.startedAt.map(iso8601UTC) ?? "never"
            let startedShort = run?.startedAt.map { String(iso8601UTC($0).dropFirst(5).prefix(11)).replacingOccurrences(of: "T", with: " ") } ?? "never"
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
                nextShortest = nextShort.components(separatedBy: " ").prefix(2).joined(separator: " ")
            } else { next = r.schedule == nil ? "not scheduled" : "never"; nextShort = next; nextShortest = r.schedule == nil ? "-" : "never" }
            let lock = r.lock.map { "pid \($0.pid)@\($0.host) since \(iso8601UTC($0.acquiredAt))" } ?? "-"
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

    static func statusJSON(_ rows: [PipelineStatus], quota: [(QuotaUsage, Int?)], day: LocalDate) -> String {
        let apis: [Any] = quota.map { usage, limit -> Any in
            ["source": usage.source, "api": usage.api, "credential_variable": usage.credentialVariable, "calls": usage.calls,
             "limit": limit as Any, "remaining": limit.map { max($0 - usage.calls, 0) } as Any]
        }
        let document: [String: Any] = ["pipelines": statusObjects(rows), "quota": ["kst_date": day.description, "apis": apis]]
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
                    "stale": r.isStale, "orphan": r.isOrphan, "last_run": lastRun, "lock": lock] as [String: Any]
        }
    }
}
