import AirKorea
import Domain
import FeedCore
import Foundation
import Pipeline
import Storage

extension Console {
    /// The AirKorea operation backfill can use: realtime by station, whose `dataTerm` reaches back.
    static var backfillOperation: String { AirKoreaFeed.historyOperation }

    /// Backfill page size when none is given: one page holds a station's month (≤ 744 rows).
    public static let defaultBackfillPageSize = 1000

    /// `feedline backfill PIPELINE --from D --to D`: fetches only the station-hours that are
    /// missing, through the same runner, transaction and ledger as `feedline run --live`.
    ///
    /// Reads which hours each of the pipeline's stations has (`measurement_completeness`),
    /// plans per station the smallest `dataTerm` reaching its oldest missing hour, keeps to what
    /// is left of today's quota, runs one load per `dataTerm` (ledger name `PIPELINE:backfill`),
    /// then says what was missing, what was filled and what is still missing.
    ///
    /// Exit: 0 when every planned request loaded (hours the API does not have may remain);
    /// 3 when some stations were left for lack of quota or some loads failed while others
    /// loaded; 75 when nothing could be fetched for quota or a transient error; 1 for a terminal
    /// failure; 78 for a missing key, an invalid setting or a pipeline backfill cannot serve.
    ///
    /// `json`: instead of the lines, one JSON object at the end (`BackfillJSON`).
    public func backfill(pipeline name: String, from: LocalDate, through: LocalDate, paths: Paths,
                         pageSize: Int? = nil, dryRun: Bool = false, json: Bool = false) async -> ExitStatus {
        let err = environment.errorOutput
        let silent: @Sendable (String) -> Void = { _ in }
        let out = json ? silent : environment.output
        // The range is bounded before anything is read or planned.
        if let problem = BackfillPlanner.rangeProblem(from: from, through: through) {
            err("error: \(problem)")
            return .usage
        }
        let catalog = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory)
        let (all, problems) = catalog.loadAll()
        guard let pipeline = all.first(where: { $0.name == name }) else {
            let found = problems.filter { $0.pipelineName == name }
            if !found.isEmpty {
                for problem in found { err("error: \(problem)") }
            } else {
                err("error: no pipeline named '\(name)'. Known: \(all.map(\.name).joined(separator: ", ")). See `feedline pipelines`.")
            }
            return .configuration
        }
        guard let feed = environment.feeds.first(where: { $0.source == pipeline.source }),
              let probe = try? environment.plan(pipeline, bookmarks: [:]).requests.get().first, probe.operation == Self.backfillOperation else {
            err("error: \(pipeline.file): backfill needs a realtime-by-station pipeline (operation realtime-by-station, whose dataTerm=MONTH/3MONTH reach back up to three months); "
                + "'\(name)' uses \(pipeline.source)/\(pipeline.spec.operation), which has no history to fetch.")
            return .configuration
        }
        let stations = pipeline.spec.parameters.first { $0.name == "stationName" }?.values ?? []
        guard !stations.isEmpty else {
            err("error: \(pipeline.file): field 'parameters.stationName' names no station to backfill.")
            return .configuration
        }
        let control: LiveRunSettings
        do { control = try LiveRunSettings.from(environment) } catch {
            err("error: \(error)")
            return .configuration
        }
        let keySet = !(environment.variables[feed.credentialVariable] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        if !keySet && !dryRun {
            err("error: backfill fetches live: set \(feed.credentialVariable) in the environment.")
            return .configuration
        }

        // What is there, and what is left of today's quota.
        let store: (any FeedlineStore)?
        let present: [String: [LocalDate: UInt32]]
        var remaining: Int?
        let scope = QuotaCountingFetcher.scope(of: probe, environment: environment.variables)
        let limit = control.limits.limit(for: pipeline.source)
        let day = quotaDay(environment.clock())
        do {
            if dryRun {
                store = nil
                let reader = try environment.existingStore(paths)
                present = try reader.map { try AirKoreaQueries.hoursPresent($0.reading(), stations: stations, from: from, through: through) } ?? [:]
                let used = try scope.map { scope in
                    try reader.map { try $0.hasTable("api_call") ? $0.callsMade([scope], on: day)[scope] ?? 0 : 0 } ?? 0
                } ?? 0
                remaining = limit.map { max(0, $0 - used) }
            } else {
                let opened = try environment.openStore(paths)
                store = opened
                present = try AirKoreaQueries.hoursPresent(opened.reading(), stations: stations, from: from, through: through)
                let used = try scope.map { try opened.callsMade($0, on: day) } ?? 0
                remaining = limit.map { max(0, $0 - used) }
            }
        } catch let error as DatabaseAccessError {
            return databaseOpenFailure(error, paths: paths)
        } catch {
            err("error: cannot read the database \(paths.databaseName): \(error)")
            return .failure
        }

        let size = pageSize ?? max(pipeline.spec.pageSize, Self.defaultBackfillPageSize)
        let plan = BackfillPlanner.plan(stations: stations, from: from, through: through, now: environment.clock(),
                                        present: present, pageSize: size, remainingCalls: remaining)
        if !json {
            report(plan: plan, pipeline: name, from: from, through: through, stations: stations, remaining: remaining, limit: limit, scope: scope)
        }
        var document = BackfillJSON(pipeline: name, from: from, through: through, stations: stations, plan: plan,
                                    remaining: remaining, limit: limit, scope: scope, dryRun: dryRun)
        func finish(_ status: ExitStatus) -> ExitStatus {
            if json { environment.output(document.text(status: status)) }
            return status
        }

        if plan.gaps.isEmpty { out("Nothing to backfill."); return finish(.success) }
        if plan.fetches.isEmpty {
            if !plan.skippedForQuota.isEmpty {
                err("error: not starting: today's quota is too small for any planned request (\(remaining ?? 0) call(s) left). Try after midnight KST.")
                return finish(.deferred)
            }
            out("Nothing can be fetched: every missing hour is older than the API keeps.")
            return finish(.success)
        }
        if dryRun {
            out("dry run: no request is sent and nothing is written.")
            return finish(plan.skippedForQuota.isEmpty ? .success : .partial)
        }
        guard let store else { return .failure }

        // Carry the plan out: one live run per dataTerm, through the same runner and ledger.
        let fetcher = control.fetcher(environment.makeLiveFetcher(paths: paths), ledger: store, environment: environment)
        let runner = environment.makeRunner(store: store)
        let runName = "\(name):backfill"
        let lock: HeldRunLock
        switch environment.acquireRunLock(runName, store: store) {
        case .success(let held): lock = held
        case .failure(let refusal): err("error: \(refusal.message)"); return finish(refusal.heldElsewhere ? .deferred : .temporaryFailure)
        }
        defer { lock.release() }
        var reports: [RunReport] = []
        for group in plan.groups {
            var definition = pipeline
            definition.name = runName
            definition.spec.pageSize = size
            definition.spec.parameters = definition.spec.parameters.filter { $0.name != "stationName" && $0.name != "dataTerm" }
                + [("stationName", group.stations), ("dataTerm", [group.dataTerm.rawValue])]
            out("fetching dataTerm=\(group.dataTerm.rawValue) for \(group.stations.joined(separator: ", "))")
            // No bookmarks: the plan says what to fetch. A group interrupted part-way resumes from its archived pages.
            let report = await environment.resumableLive(environment.plan(definition, bookmarks: [:]), runner: runner, fetcher: fetcher,
                                                         paths: paths, fresh: false)
            reports.append(report)
            out(Self.summaryLine(report))
        }

        // What is still missing.
        let after: [String: [LocalDate: UInt32]]
        do { after = try AirKoreaQueries.hoursPresent(store.reading(), stations: stations, from: from, through: through) } catch {
            err("error: cannot read the database \(paths.databaseName): \(error)")
            return finish(.failure)
        }
        var stillMissingTotal = 0
        document.runs = reports
        for gap in plan.gaps {
            let now = BackfillPlanner.missing(plan.expected, present: after[gap.station] ?? [:])
            let filled = gap.missing.count - now.count
            stillMissingTotal += now.count
            var line = "\(gap.station): filled \(filled) of \(gap.missing.count) missing hour\(gap.missing.count == 1 ? "" : "s")"
            var why: String?
            if now.isEmpty {
                line += "; nothing is missing any more"
            } else {
                line += "; still missing \(now.count): \(BackfillPlanner.describe(now))"
                if plan.skippedForQuota.contains(where: { $0.station == gap.station }) {
                    why = "not fetched: quota"
                } else if let beyond = plan.unreachable[gap.station], Set(beyond).isSuperset(of: now) {
                    why = "older than the API keeps"
                } else if reports.contains(where: { !$0.succeeded }) {
                    why = "a load failed"
                } else {
                    why = "not returned by the API"
                }
                line += " (\(why == "a load failed" ? "a load failed; see above" : why!))"
            }
            document.stillMissing[gap.station] = (now, why)
            out(line)
        }
        out("backfill \(name): \(plan.gaps.reduce(0) { $0 + $1.missing.count }) hour(s) were missing, \(stillMissingTotal) still missing.")

        let failed = reports.filter { !$0.succeeded }
        if failed.isEmpty { return finish(plan.skippedForQuota.isEmpty ? .success : .partial) }
        if failed.count < reports.count { return finish(.partial) }
        return finish(Self.status(reports))
    }

    /// Prints what is missing and what the plan will fetch.
    private func report(plan: BackfillPlan, pipeline: String, from: LocalDate, through: LocalDate, stations: [String],
                        remaining: Int?, limit: Int?, scope: QuotaScope?) {
        let out = environment.output
        let hours = plan.expected.count
        out("backfill \(pipeline): \(from) … \(through) (KST), \(stations.count) station\(stations.count == 1 ? "" : "s"), "
            + "\(hours) hour\(hours == 1 ? "" : "s") expected each (up to \(plan.newest), the newest complete hour)")
        let gapStations = Set(plan.gaps.map(\.station))
        for station in stations where !gapStations.contains(station) { out("\(station): complete (\(hours) of \(hours) hours)") }
        for gap in plan.gaps {
            out("\(gap.station): missing \(gap.missing.count) of \(hours) hours: \(BackfillPlanner.describe(gap.missing))")
        }
        for fetch in plan.fetches {
            out("plan: \(fetch.station): dataTerm=\(fetch.dataTerm.rawValue) (reaches \(BackfillPlanner.describe([fetch.missing[0]]))), about \(fetch.estimatedCalls) call\(fetch.estimatedCalls == 1 ? "" : "s")")
        }
        for fetch in plan.skippedForQuota {
            out("plan: \(fetch.station): NOT fetched — needs about \(fetch.estimatedCalls) call(s), more than is left of today's quota")
        }
        for (station, slots) in plan.unreachable.sorted(by: { $0.key < $1.key }) {
            out("plan: \(station): \(slots.count) hour(s) older than the API keeps (3MONTH) cannot be fetched: \(BackfillPlanner.describe(slots))")
        }
        var quota = "quota: about \(plan.estimatedCalls) call\(plan.estimatedCalls == 1 ? "" : "s") planned"
        if let scope { quota += " on \(scope)" }
        if let limit, let remaining { quota += "; \(remaining) of \(limit) left today (KST)" } else if limit == nil { quota += "; no limit set" }
        out(quota)
    }
}
