import Domain
import FeedCore
import Foundation
import Pipeline
import Storage

extension Console {
    /// `feedline run --dry-run`: prints what a run would do and calls nothing, writes nothing.
    ///
    /// Live: every first-page request with its redacted URL; pages are known only as `1+`,
    /// because paging stops at the first short page; and the quota cost (at least one call per
    /// request) against what is left today. Fixtures: the files that would load.
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
        let plans = pipelines.map { p in environment.plan(p, bookmarks: (try? reader?.bookmarks(pipeline: p.name)) ?? [:]) }
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
            if json {
                let list: [Any] = requests.map { ["url": $0.displayURL, "pages": "1+"] }
                entries.append(["pipeline": p.name, "mode": "live", "requests": list, "minimum_calls": requests.count,
                                "max_pages_per_request": p.spec.maxPages] as [String: Any])
            } else {
                environment.output("\(p.name)  [live]  \(p.source)/\(requests.first?.operation ?? p.spec.operation), \(p.spec.format.rawValue), \(p.spec.pageSize) rows a page")
                for r in requests { environment.output("  GET \(r.displayURL)   pages 1+") }
                environment.output("  \(requests.count) request\(requests.count == 1 ? "" : "s"), at least \(requests.count) call\(requests.count == 1 ? "" : "s")"
                    + " (each request's pages are followed until a short page, at most \(p.spec.maxPages))")
            }
        }

        // Keys: a live run stops at once without them, and usage is counted per key.
        let variables = Set(pipelines.compactMap { p in environment.feeds.first { $0.source == p.source }?.credentialVariable })
        let unset = variables.filter { (environment.variables[$0] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }.sorted()
        for name in unset {
            environment.errorOutput("error: \(name) is not set: a live run would stop at once (exit 78); today's usage of the key cannot be looked up either.")
            status = .configuration
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
                    environment.output("quota \(check.sentence) — \(check.fits ? "fits" : "WOULD EXCEED: the run would refuse to start (exit 75)")")
                }
                if !check.fits, status == .success { status = .temporaryFailure }
            }
        } catch {
            environment.errorOutput("error: cannot read the quota ledger in \(paths.database.path): \(error)")
            return .failure
        }
        if json {
            environment.output(JSONText.encode(JSONValue(any: ["dry_run": true, "pipelines": entries, "quota": quotaEntries] as [String: Any])))
        }
        return status
    }
}
