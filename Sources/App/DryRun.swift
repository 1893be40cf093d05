import Domain
import FeedCore
import Foundation
import Pipeline
import Storage

extension Console {
    /// `feedline run --dry-run`: prints what a run would do and calls nothing, writes nothing.
    ///
    /// Live: every first-page request with its redacted URL; pages are known only as `1+`,
    /// because paging stops at the first short page; the quota cost (at least one call per
    /// request) against what is left today; and what a day of the pipelines' schedules costs
    /// against each daily quota (`ScheduledQuota`). Fixtures: the files that would load.
    ///
    /// Exit: 0 when the run could start; 75 when its minimum cost exceeds a quota; 78 when a key
    /// a live run needs is not set, a setting is invalid, or a fixture file is missing.
    func dryRun(_ pipelines: [PipelineDefinition], source: RunMode, paths: Paths, json: Bool) -> ExitStatus {
        switch source {
        case .fixtures, .replay: return dryRunFixtures(pipelines, paths: paths, json: json)
        case .live: return dryRunLive(pipelines, paths: paths, json: json)
        }
    }

    private func dryRunFixtures(_ pipelines: [PipelineDefinition], paths: Paths, json: Bool) -> ExitStatus {
        var missing = false
        var entries: [Any] = []
        if !json { environment.output("dry run: nothing is loaded; fixture runs make no API calls.") }
        for p in pipelines {
            let files = p.fixtures.map { (name: $0, exists: FileManager.default.fileExists(atPath: paths.fixtures.appendingPathComponent($0).path)) }
            missing = missing || files.contains { !$0.exists } || files.isEmpty
            if json {
                let list: [Any] = files.map { ["file": $0.name, "exists": $0.exists] }
                entries.append(["pipeline": p.name, "mode": "fixtures", "fixtures": list, "minimum_calls": 0] as [String: Any])
            } else {
                environment.output("\(p.name)  [fixtures]  \(files.count) file\(files.count == 1 ? "" : "s")")
                for f in files { environment.output("  load \(paths.fixtures.appendingPathComponent(f.name).path)\(f.exists ? "" : "   (missing!)")") }
                if files.isEmpty { environment.output("  (no fixtures listed: this pipeline can only run with --live)") }
            }
        }
        if json { environment.output(JSONText.encode(JSONValue(any: entries))) }
        return missing ? .configuration : .success
    }

    private func dryRunLive(_ pipelines: [PipelineDefinition], paths: Paths, json: Bool) -> ExitStatus {
        let control: LiveRunSettings
        do { control = try LiveRunSettings.from(environment) } catch {
            environment.errorOutput("error: \(error)")
            return .configuration
        }
        let reader: (any FeedlineStore)?
        do { reader = try environment.existingStore(paths) } catch { return databaseOpenFailure(error, paths: paths) }
        // The same plans a run would make: placeholders expanded, resumed from the bookmarks.
        let plans = pipelines.map { p in
            environment.plan(p, bookmarks: (try? reader?.bookmarks(pipeline: p.name)) ?? [:], reader: reader)
        }
        var status = ExitStatus.success
        var entries: [Any] = []
        if !json { environment.output("dry run: no request is sent and nothing is written.") }
        for plan in plans {
            let p = plan.pipeline
            let requests: [FeedRequest]
            switch plan.requests {
            case .success(let built): requests = built
            case .failure(let error):
                environment.errorOutput("error: \(p.file): \(error)")
                status = .configuration
                continue
            }
            // A feed that does not page (one answer per request) makes exactly one call a request.
            let paged = environment.feed(named: p.source).map { feed in requests.contains { feed.request($0, page: 2) != nil } } ?? true
            let pages = paged ? "1+" : "1"
            if json {
                let list: [Any] = requests.map { ["url": $0.displayURL, "pages": pages] }
                entries.append(["pipeline": p.name, "mode": "live", "requests": list, "minimum_calls": requests.count,
                                "max_pages_per_request": p.spec.maxPages] as [String: Any])
            } else {
                environment.output("\(p.name)  [live]  \(p.source)/\(requests.first?.operation ?? p.spec.operation), \(p.spec.format.rawValue)"
                    + (paged ? ", \(p.spec.pageSize) rows a page" : ""))
                for r in requests { environment.output("  GET \(r.displayURL)   pages \(pages)") }
                environment.output("  \(requests.count) request\(requests.count == 1 ? "" : "s"), \(paged ? "at least " : "")\(requests.count) call\(requests.count == 1 ? "" : "s")"
                    + (paged ? " (each request's pages are followed until a short page, at most \(p.spec.maxPages))" : ""))
            }
        }

        // Keys: a live run stops at once without them, and usage is counted per key.
        let variables = Set(pipelines.compactMap { p in environment.feeds.first { $0.source == p.source }?.credentialVariable })
        let unset = variables.filter { (environment.variables[$0] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }.sorted()
        for name in unset {
            environment.errorOutput("error: \(name) is not set: a live run would stop at once (exit 78); today's usage of the key cannot be looked up either.")
            status = .configuration
        }

        let rates = rateBudgets(plans)
        var rateEntries: [Any] = []
        for (feed, budget) in rates {
            if json {
                rateEntries.append(["feed": feed, "calls_per_run": budget.callsPerRun, "paced_seconds": budget.pacedDuration, "fits": budget.fits,
                                    "limits": budget.lines.map { ["limit": $0.limit.calls, "per": $0.limit.window.rawValue, "calls": $0.calls, "fits": $0.fits] }]
                                   as [String: Any])
            } else {
                environment.output(Self.rateText(feed: feed, budget))
            }
        }

        var quotaEntries: [Any] = []
        do {
            let checks = try environment.quotaChecks(plans, limits: control.limits) { scopes, day in
                guard let reader, try reader.hasTable("api_call") else { return [:] }
                return try reader.callsMade(scopes, on: day)
            }
            for check in checks {
                if json {
                    quotaEntries.append(["scope": check.scope.description, "day": check.day.description, "minimum_calls": check.minimumCalls,
                                         "used": check.used, "limit": check.limit as Any, "fits": check.fits] as [String: Any])
                } else {
                    environment.output("quota \(check.sentence) — \(check.fits ? "fits" : "WOULD EXCEED: the run would refuse to start (exit 10)")")
                }
                if !check.fits, status == .success { status = .deferred }
            }
        } catch {
            environment.errorOutput("error: cannot read the quota ledger in \(paths.databaseName): \(error)")
            return .failure
        }

        // A day of these pipelines' schedules against each daily quota.
        let daily = environment.scheduledQuota(pipelines, reader: reader, limits: control.limits)
        if !json {
            for use in daily.uses {
                let verdict = switch use.standing {
                case .exceeds: "WOULD EXCEED: calls beyond the quota are refused until midnight KST"
                case .nearLimit: "near the limit (more than \(ScheduledQuota.percent(QuotaPlanner.nearLimitShare)))"
                case .fits: "fits"
                case .unlimited: "no limit set"
                }
                let of = use.limit.map { ", \(use.share.map(ScheduledQuota.percent) ?? "-") of \(TerminalProgress.grouped($0))" } ?? ""
                environment.output("quota a day \(use.scope): these schedules make at least \(TerminalProgress.grouped(use.callsPerDay)) calls on the busiest day (\(use.day) KST)\(of) — \(verdict)")
            }
            daily.notes.forEach { environment.output("note: \($0)") }
        }
        daily.warnings.forEach(environment.errorOutput)
        if json {
            environment.output(JSONText.encode(JSONValue(any: ["dry_run": true, "pipelines": entries, "quota": quotaEntries, "rates": rateEntries,
                                                               "quota_per_day": daily.json] as [String: Any])))
        }
        return status
    }

    /// Per feed with rate limits: the calls one run of the planned pipelines makes, and what
    /// their schedules add up to a day and a month (a pipeline without a schedule counts as one
    /// run a day).
    func rateBudgets(_ plans: [PlannedRun]) -> [(feed: String, budget: RateBudget)] {
        let now = environment.clock()
        var shares: [String: [RateBudget.Share]] = [:]
        for plan in plans {
            guard let feed = environment.feed(named: plan.pipeline.source), !feed.rateLimits.isEmpty,
                  let calls = try? plan.requests.get().count else { continue }
            var perDay = 1, perMonth = 30
            if let text = plan.pipeline.schedule, let schedule = try? CronSchedule(text, timeZone: plan.pipeline.timeZone) {
                perDay = schedule.fireTimes(after: now, through: now.addingTimeInterval(86_400), newest: 100_000).times.count
                perMonth = schedule.fireTimes(after: now, through: now.addingTimeInterval(30 * 86_400), newest: 100_000).times.count
            }
            shares[feed.source, default: []].append(RateBudget.Share(callsPerRun: calls, runsPerDay: perDay, runsPerMonth: perMonth))
        }
        return shares.keys.sorted().compactMap { source in
            guard let feed = environment.feed(named: source) else { return nil }
            // The daily quota the ledger counts is a limit of a day too.
            var limits = feed.rateLimits
            if let daily = feed.dailyCallLimit, !limits.contains(where: { $0.window == .day }) { limits.append(RateLimit(daily, per: .day)) }
            limits.sort { $0.window.seconds < $1.window.seconds }
            return (source, RateBudget(shares: shares[source]!, limits: limits))
        }
    }

    /// `rate openweather: 650 calls a run, paced to 60/minute (about 10 min a run); …`
    static func rateText(feed: String, _ budget: RateBudget) -> String {
        func n(_ value: Int) -> String { TerminalProgress.grouped(value) }
        var parts: [String] = []
        for line in budget.lines {
            let window = line.limit.window.rawValue
            let said = "\(line.limit.isPaced ? "≤ " : "")\(n(line.calls)) a \(window) (\(line.limit.isPaced ? "paced; " : "")limit \(n(line.limit.calls))/\(window))"
            parts.append(said + (line.fits ? "" : " — WOULD EXCEED: lower the schedule or split the locations"))
        }
        var text = "rate \(feed): \(n(budget.callsPerRun)) call\(budget.callsPerRun == 1 ? "" : "s") a run; " + parts.joined(separator: "; ")
        if budget.pacedDuration > 0 { text += "; pacing makes a run take about \(Int((budget.pacedDuration / 60).rounded(.up))) min" }
        return text
    }
}
