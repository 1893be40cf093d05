import Domain
import Foundation
import Pipeline

/// What the pipelines' schedules spend of each daily quota (a key on an API): the calls one run
/// makes at least (`QuotaPlanner.minimumCalls` over the requests a run would make now, as the
/// dry run counts them) times the runs each schedule fires in a quota day (KST), summed per
/// scope on the busiest day of the coming year. Shown by `feedline pipelines` and
/// `feedline run --dry-run --live`.
struct ScheduledQuota: Sendable {
    /// Per scope, sorted by scope.
    var uses: [DailyQuotaUse]
    /// Pipelines whose calls a run are an estimate, with why.
    var notes: [String]

    /// A pipeline without a schedule is counted as run once a day (by hand or from another scheduler).
    static let unscheduledRunsPerDay = 1
    /// What stands in for a coordinate placeholder the database cannot fill yet: one location.
    static let standInPoint = "37.5720,127.0050"

    // MARK: Output

    /// `SCOPE  BUSIEST DAY (KST)  CALLS A DAY  LIMIT  USE  PIPELINES`, one row per scope, and a
    /// line saying what the numbers are; nothing when no pipeline calls a keyed API.
    var textLines: [String] {
        guard !uses.isEmpty else { return [] }
        var table = TextTable(["QUOTA (KEY ON API)", "BUSIEST DAY (KST)", "CALLS A DAY", "LIMIT", "USE", "PIPELINES (CALLS A RUN × RUNS A DAY)"])
        for use in uses {
            table.append([use.scope.description, use.day.description, TerminalProgress.grouped(use.callsPerDay),
                          use.limit.map(TerminalProgress.grouped) ?? "none", use.share.map(Self.percent) ?? "-",
                          use.pipelines.map { "\($0.pipeline) \($0.callsPerRun)×\($0.runsPerDay)" }.joined(separator: ", ")])
        }
        return table.lines + ["Calls a day under the schedules, at least one a request (more pages cost more); a pipeline without a schedule counts once a day."]
            + notes.map { "note: \($0)" }
    }

    /// One `warning:` line per scope whose schedules exceed its daily quota or use more than
    /// `QuotaPlanner.nearLimitShare` of it.
    var warnings: [String] {
        uses.compactMap { use in
            guard let limit = use.limit, let share = use.share else { return nil }
            let calls = "the schedules make at least \(TerminalProgress.grouped(use.callsPerDay)) calls on \(use.day) (KST) with \(use.scope)"
            let remedy = "schedule fewer runs or fewer requests (one request that answers for all, such as sidoName 전국, instead of one each)"
                + ", or set \(QuotaLimits.variableName(for: use.scope.source)) if the key allows more"
            switch use.standing {
            case .exceeds:
                return "warning: \(calls), more than its daily quota of \(TerminalProgress.grouped(limit)): the calls beyond it are refused (exit 75) until midnight KST; \(remedy)."
            case .nearLimit:
                return "warning: \(calls), \(Self.percent(share)) of its daily quota of \(TerminalProgress.grouped(limit)) (more than \(Self.percent(QuotaPlanner.nearLimitShare))): little room is left for retries, backfills and runs by hand; \(remedy)."
            case .fits, .unlimited:
                return nil
            }
        }
    }

    /// The same as JSON values: one object per scope.
    var json: [Any] {
        uses.map { use in
            [
                "scope": use.scope.description, "source": use.scope.source, "api": use.scope.api,
                "credential_variable": use.scope.credentialVariable, "busiest_day": use.day.description,
                "calls_per_day": use.callsPerDay, "limit": use.limit as Any, "share": use.share.map { ($0 * 1000).rounded() / 1000 } as Any,
                "standing": use.standing.rawValue,
                "pipelines": use.pipelines.map { ["pipeline": $0.pipeline, "calls_per_run": $0.callsPerRun, "runs_per_day": $0.runsPerDay] },
            ] as [String: Any]
        }
    }

    /// `15%`; `<1%` for a share that rounds to 0 but is not; `∞` over a limit of 0.
    static func percent(_ share: Double) -> String {
        guard share.isFinite else { return "∞" }
        let whole = Int((share * 100).rounded())
        return whole == 0 && share > 0 ? "<1%" : "\(whole)%"
    }
}

extension AppEnvironment {
    /// The daily quota use of `pipelines`' schedules from today (KST) on, with the plans a run
    /// would make now (`{stations}` and `{places}` from `reader` when it has them, else one
    /// stand-in location, noted). Limits: `limits`, or the feeds' own when nil.
    func scheduledQuota(_ pipelines: [PipelineDefinition], reader: (any LedgerReading)?, limits: QuotaLimits? = nil) -> ScheduledQuota {
        let firstDay = quotaDay(clock())
        let days = QuotaPlanner.scheduleDays
        var entries: [(name: String, callsPerRun: [QuotaScope: Int], runsPerDay: [Int])] = []
        var notes: [String] = []
        for pipeline in pipelines {
            var requests = try? plan(pipeline, bookmarks: [:], reader: reader).requests.get()
            if requests == nil {
                // A placeholder the database cannot fill yet: one location stands in.
                var standIn = pipeline
                let placeholders = CoordinatePlaceholder.all.filter { p in pipeline.spec.parameters.contains { $0.values.contains(p.token) } }
                standIn.spec.parameters = pipeline.spec.parameters.map { p in
                    (p.name, p.values.map { value in placeholders.contains { $0.token == value } ? ScheduledQuota.standInPoint : value })
                }
                requests = try? plan(standIn, bookmarks: [:], reader: reader).requests.get()
                if requests != nil, !placeholders.isEmpty {
                    notes.append("\(pipeline.name): \(placeholders.map(\.token).joined(separator: ", ")) stands for \(placeholders.map(\.meaning).joined(separator: " and ")), which the database does not hold yet; counted as one location (\(placeholders[0].remedy) for the real count).")
                }
            }
            guard let requests else {
                notes.append("\(pipeline.name): its requests cannot be planned (see `feedline run \(pipeline.name) --live --dry-run`); not counted.")
                continue
            }
            let callsPerRun = QuotaPlanner.minimumCalls(requests) { QuotaScope(request: $0, keyFingerprint: "") }
            guard !callsPerRun.isEmpty else { continue }
            var runs = [Int](repeating: ScheduledQuota.unscheduledRunsPerDay, count: days)
            if let text = pipeline.schedule, let schedule = try? CronSchedule(text, timeZone: pipeline.timeZone) {
                runs = QuotaPlanner.runsPerQuotaDay(schedule, from: firstDay, days: days)
            }
            entries.append((pipeline.name, callsPerRun, runs))
        }
        return ScheduledQuota(uses: QuotaPlanner.dailyUse(entries, firstDay: firstDay, limits: limits ?? QuotaLimits(feeds: feeds)),
                              notes: notes)
    }
}
