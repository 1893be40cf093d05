import Domain
import Foundation
import Pipeline
import Storage

/// One line of `feedline status`: what the ledger, the schedule and the lock table say about a
/// pipeline.
public struct PipelineStatus: Sendable {
    public var pipeline: String
    public var schedule: String?
    public var timeZone: String?
    public var lastRun: PipelineRunSummary?
    /// Newest data loaded: the newest observation for measurement pipelines, else the end of
    /// the last successful run.
    public var newestDataAt: Date?
    public var newestDataAge: TimeInterval?
    /// Newest data older than twice the schedule's interval (or no successful run at all).
    public var isStale: Bool
    public var nextFireAt: Date?
    public var lock: RunLockHolder?
    /// In the ledger but no longer in Pipelines/.
    public var isOrphan: Bool
}

extension Feedline {
    /// `feedline status`: per pipeline, the last run (outcome, rows, diagnostics), age of the
    /// newest data (stale sources marked), next fire time and lock holder.
    ///
    /// A reader, like `query`: a missing database is exit 78 (nothing is created), the file is
    /// never written (a read-only file works), and a database a newer feedline migrated is read
    /// as it is. Tables an older database does not have yet count as empty.
    public func status(paths: Paths, json: Bool) -> ExitStatus {
        let (pipelines, problems) = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory).loadAll()
        for problem in problems { environment.errorOutput("warning: \(problem)") }
        let store: SQLiteStore
        do { store = try openStore(paths, forWriting: false) } catch { return databaseOpenFailure(error, paths: paths) }
        let summaries: [PipelineRunSummary], locks: [RunLockHolder], usage: [QuotaUsage]
        let today = HourSlot(containing: environment.clock()).date
        do {
            summaries = try store.hasTable("run") && store.hasTable("bookmark") ? store.pipelineRunSummaries() : []
            locks = try store.hasTable("run_lock") ? store.runLocks() : []
            usage = try store.hasTable("api_call") ? store.quotaUsage(on: today) : []
        } catch {
            environment.errorOutput("error: cannot read the database \(paths.database.path): \(error)")
            return .failure
        }
        let rows = Self.statuses(pipelines: pipelines, summaries: summaries, locks: locks, now: environment.clock())
        let limits = (try? QuotaLimits.fromEnvironment(environment.variables, feeds: environment.feeds)) ?? QuotaLimits(feeds: environment.feeds)
        let quota = usage.map { ($0, limits.limit(for: $0.source)) }
        if json {
            environment.output(Self.statusJSON(rows, quota: quota, day: today))
        } else {
            environment.output(Self.statusTable(rows))
            environment.output(Self.quotaText(quota, day: today))
            let stale = rows.filter(\.isStale).map(\.pipeline)
            if !stale.isEmpty { environment.output("stale: \(stale.joined(separator: ", ")) (newest data older than twice the schedule interval, or never loaded)") }
        }
        return .success
    }

    /// Pure: joins pipeline definitions, ledger summaries and locks at `now`.
    static func statuses(pipelines: [PipelineDefinition], summaries: [PipelineRunSummary], locks: [RunLockHolder],
                         now: Date) -> [PipelineStatus] {
        let byName = Dictionary(summaries.map { ($0.pipeline, $0) }, uniquingKeysWith: { a, _ in a })
        let lockByName = Dictionary(locks.map { ($0.pipeline, $0) }, uniquingKeysWith: { a, _ in a })
        var rows: [PipelineStatus] = []
        for p in pipelines {
            let schedule = p.schedule.flatMap { try? CronSchedule($0, timeZone: p.timeZone) }
            let summary = byName[p.name]
            let newest = summary.flatMap { $0.newestObservedAt ?? $0.lastSuccessAt }
            let age = newest.map { now.timeIntervalSince($0) }
            var stale = false
            if let interval = schedule?.typicalInterval(around: now) {
                stale = age.map { $0 > 2 * interval } ?? true
            }
            rows.append(PipelineStatus(pipeline: p.name, schedule: p.schedule, timeZone: p.timeZone, lastRun: summary,
                                       newestDataAt: newest, newestDataAge: age, isStale: stale,
                                       nextFireAt: schedule?.nextFireTime(after: now), lock: lockByName[p.name], isOrphan: false))
        }
        for s in summaries where !pipelines.contains(where: { $0.name == s.pipeline }) {
            let newest = s.newestObservedAt ?? s.lastSuccessAt
            rows.append(PipelineStatus(pipeline: s.pipeline, schedule: nil, timeZone: nil, lastRun: s, newestDataAt: newest,
                                       newestDataAge: newest.map { now.timeIntervalSince($0) }, isStale: false, nextFireAt: nil,
                                       lock: lockByName[s.pipeline], isOrphan: true))
        }
        return rows
    }

    static func statusTable(_ rows: [PipelineStatus]) -> String {
        var table: [[String]] = [["PIPELINE", "LAST RUN", "OUTCOME", "ROWS new/upd/same", "DIAG", "NEWEST DATA", "NEXT RUN", "LOCK"]]
        for r in rows {
            let run = r.lastRun
            let started = run?.startedAt.map(iso8601UTC) ?? "never"
            var outcome = run?.status ?? "-"
            if let mode = run?.mode, run != nil { outcome += " (\(mode.rawValue))" }
            let counts = run.map { "\($0.rowsInserted)/\($0.rowsUpdated)/\($0.rowsUnchanged)" } ?? "-"
            var newest = r.newestDataAge.map { "\(Self.ageText($0)) ago" } ?? "none"
            if r.isStale { newest += " STALE" }
            let next: String
            if r.isOrphan { next = "(no pipeline file)" } else if let at = r.nextFireAt, let zone = r.timeZone.flatMap(TimeZone.init(identifier:)) {
                next = "\(Self.localTime(at, zone: zone))"
            } else { next = r.schedule == nil ? "not scheduled" : "never" }
            let lock = r.lock.map { "pid \($0.pid)@\($0.host) since \(iso8601UTC($0.acquiredAt))" } ?? "-"
            table.append([r.pipeline, started, outcome, counts, run.map { String($0.diagnostics) } ?? "-", newest, next, lock])
        }
        let widths = (0..<table[0].count).map { c in table.map { $0[c].count }.max() ?? 0 }
        var lines = table.map { row in
            row.enumerated().map { c, cell in c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        for r in rows {
            if let error = r.lastRun?.error, ["failed", "abandoned"].contains(r.lastRun?.status) {
                lines.append("\(r.pipeline): last error: \(error.split(separator: "\n").first ?? "")")
            }
        }
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
        let quotaItems = quota.map { usage, limit in
            "{\"source\":\(jsonText(usage.source)),\"api\":\(jsonText(usage.api)),\"credential_variable\":\(jsonText(usage.credentialVariable)),"
                + "\"calls\":\(usage.calls),\"limit\":\(limit.map(String.init) ?? "null"),\"remaining\":\(limit.map { String(max($0 - usage.calls, 0)) } ?? "null")}"
        }
        return "{\"pipelines\":\(statusJSON(rows)),\"quota\":{\"kst_date\":\"\(day)\",\"apis\":[\(quotaItems.joined(separator: ","))]}}"
    }

    static func statusJSON(_ rows: [PipelineStatus]) -> String {
        func date(_ d: Date?) -> String { d.map { "\"\(iso8601UTC($0))\"" } ?? "null" }
        func text(_ s: String?) -> String { s.map(jsonText) ?? "null" }
        let items = rows.map { r -> String in
            var fields = [
                "\"pipeline\":\(jsonText(r.pipeline))", "\"schedule\":\(text(r.schedule))", "\"timezone\":\(text(r.timeZone))",
                "\"next_fire_at\":\(date(r.nextFireAt))",
                "\"newest_data_at\":\(date(r.newestDataAt))",
                "\"newest_data_age_seconds\":\(r.newestDataAge.map { String(Int($0)) } ?? "null")",
                "\"stale\":\(r.isStale)", "\"orphan\":\(r.isOrphan)",
            ]
            if let run = r.lastRun {
                fields.append("\"last_run\":{\"id\":\(run.run.rawValue),\"mode\":\(text(run.mode?.rawValue)),\"status\":\(jsonText(run.status)),"
                    + "\"started_at\":\(date(run.startedAt)),\"finished_at\":\(date(run.finishedAt)),"
                    + "\"rows_inserted\":\(run.rowsInserted),\"rows_updated\":\(run.rowsUpdated),\"rows_unchanged\":\(run.rowsUnchanged),"
                    + "\"diagnostics\":\(run.diagnostics),\"error\":\(text(run.error))}")
            } else {
                fields.append("\"last_run\":null")
            }
            if let lock = r.lock {
                fields.append("\"lock\":{\"pid\":\(lock.pid),\"host\":\(jsonText(lock.host)),\"acquired_at\":\(date(lock.acquiredAt)),\"heartbeat_at\":\(date(lock.heartbeatAt))}")
            } else {
                fields.append("\"lock\":null")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}
