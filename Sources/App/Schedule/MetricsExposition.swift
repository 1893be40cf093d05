import Domain
import Foundation
import Pipeline

/// Metrics in the Prometheus text exposition format (version 0.0.4: what Prometheus scrapes and
/// node_exporter's textfile collector reads): per family a `# HELP` and a `# TYPE` line, then its
/// samples, `name{label="value",…} number`.
///
/// Names carry their unit (`_seconds`, `_timestamp_seconds`) and counters end in `_total`.
/// Label values are escaped here, the one place samples are written (`\` → `\\`, `"` → `\"`, a
/// line feed → `\n`), so any pipeline name or diagnostic code stays one well-formed sample.
struct MetricsExposition {
    enum Kind: String { case gauge, counter }

    /// One sample: its labels in order, and its value.
    struct Sample {
        var labels: [(String, String)]
        var value: Double
        init(_ labels: [(String, String)] = [], _ value: Double) { self.labels = labels; self.value = value }
        init(_ labels: [(String, String)] = [], _ value: Int) { self.init(labels, Double(value)) }
    }

    struct Family {
        var name: String
        var help: String
        var kind: Kind
        var samples: [Sample]
    }

    private(set) var families: [Family] = []

    /// Adds a gauge (a value that goes up and down). A family with no samples is still declared
    /// (its HELP and TYPE), so a scraper sees what feedline can report.
    mutating func gauge(_ name: String, _ help: String, _ samples: [Sample]) {
        families.append(Family(name: name, help: help, kind: .gauge, samples: samples))
    }

    /// Adds a counter (a count that only grows); its name ends in `_total`.
    mutating func counter(_ name: String, _ help: String, _ samples: [Sample]) {
        precondition(name.hasSuffix("_total"), "a counter's name ends in _total")
        families.append(Family(name: name, help: help, kind: .counter, samples: samples))
    }

    /// The exposition text, ending in a line feed.
    var text: String {
        var lines: [String] = []
        for family in families {
            lines.append("# HELP \(family.name) \(Self.escapedHelp(family.help))")
            lines.append("# TYPE \(family.name) \(family.kind.rawValue)")
            for sample in family.samples {
                let labels = sample.labels.isEmpty ? ""
                    : "{" + sample.labels.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",") + "}"
                lines.append("\(family.name)\(labels) \(Self.number(sample.value))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value as the format writes it: `\`, `"` and line feeds escaped.
    static func escapedLabel(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// HELP text as the format writes it: `\` and line feeds escaped.
    static func escapedHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// `42`, `1709704800`, `0.25`, `NaN`, `+Inf`: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.3f", value)
    }
}

extension Console {
    /// The metrics of a `StatusReport` read with its ledger figures, at `now`: per pipeline the
    /// last run's outcome, start and end, rows, payloads, diagnostics by code and check results,
    /// the newest data time and age, the freshness verdict and the pipeline's verdict; per quota
    /// scope today's calls, the limit and what is left; runs in the ledger by outcome.
    ///
    /// Labels hold only pipeline names, ledger words (statuses, kinds), diagnostic codes, feed and
    /// API names and the *names* of key variables: never a key, its fingerprint, a URL or an
    /// error text.
    static func metricsText(_ report: StatusReport, now: Date) -> String {
        typealias Sample = MetricsExposition.Sample
        var m = MetricsExposition()
        let rows = report.rows.sorted { $0.pipeline < $1.pipeline }
        let judged = rows.filter { $0.verdict != nil }
        let ran = rows.compactMap { row in row.lastRun.map { (row.pipeline, $0) } }
        let figures = report.ledger ?? StatusReport.LedgerFigures()
        func p(_ name: String) -> [(String, String)] { [("pipeline", name)] }
        func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

        m.gauge("feedline_metrics_generated_timestamp_seconds", "When feedline wrote these metrics (Unix time).",
                [Sample([], seconds(now).rounded(.down))])
        m.gauge("feedline_check_status", "Verdict of `feedline status --check` (its exit code): 0 ok, 1 warning, 2 error.",
                [Sample([], report.level.rawValue)])
        m.gauge("feedline_check_problems", "Problems `feedline status --check` reports, by level.",
                [HealthLevel.warning, .error].map { level in Sample([("level", level.description)], report.problems.filter { $0.level == level }.count) })
        m.gauge("feedline_pipeline_status", "A pipeline's verdict (freshness, last run, its checks): 0 ok, 1 warning, 2 error.",
                judged.map { Sample(p($0.pipeline), $0.verdict!.level.rawValue) })

        // The last run.
        let statuses = ["running", "succeeded", "failed", "abandoned"]
        m.gauge("feedline_last_run_status", "The outcome of a pipeline's newest run: 1 for its status, 0 for the others.",
                ran.flatMap { name, run in statuses.map { Sample(p(name) + [("status", $0)], run.status == $0 ? 1 : 0) } })
        m.gauge("feedline_last_run_start_timestamp_seconds", "When a pipeline's newest run started (Unix time).",
                ran.compactMap { name, run in run.startedAt.map { Sample(p(name), seconds($0)) } })
        m.gauge("feedline_last_run_end_timestamp_seconds", "When a pipeline's newest run finished (Unix time); absent while it runs, or when abandoned.",
                ran.compactMap { name, run in run.finishedAt.map { Sample(p(name), seconds($0)) } })
        m.gauge("feedline_last_run_duration_seconds", "How long a pipeline's newest run took.",
                ran.compactMap { name, run in
                    guard let start = run.startedAt, let end = run.finishedAt else { return nil }
                    return Sample(p(name), max(0, end.timeIntervalSince(start)))
                })
        m.gauge("feedline_last_run_rows", "Rows a pipeline's newest run loaded, by change: inserted, updated or unchanged.",
                ran.flatMap { name, run in
                    [("inserted", run.rowsInserted), ("updated", run.rowsUpdated), ("unchanged", run.rowsUnchanged)]
                        .map { Sample(p(name) + [("change", $0.0)], $0.1) }
                })
        m.gauge("feedline_last_run_payloads", "Payloads a pipeline's newest run loaded, or skipped because the same bytes were loaded before.",
                ran.flatMap { name, run -> [Sample] in
                    guard let counts = figures.payloads[run.run] else { return [] }
                    return [Sample(p(name) + [("disposition", "loaded")], counts.loaded), Sample(p(name) + [("disposition", "skipped")], counts.skipped)]
                })
        m.gauge("feedline_last_run_diagnostics", "Diagnostics a pipeline's newest run recorded, by code.",
                ran.flatMap { name, run in
                    (figures.diagnostics[run.run] ?? [:]).sorted { $0.key < $1.key }.map { Sample(p(name) + [("code", $0.key)], $0.value) }
                })
        m.gauge("feedline_last_run_checks", "Declared checks of a pipeline's newest run, by result (passed, failed, skipped, error) and severity (warn, error).",
                rows.flatMap { row -> [Sample] in
                    guard !row.checks.isEmpty else { return [] }
                    return ["passed", "failed", "skipped", "error"].flatMap { status in
                        CheckSeverity.allCases.map { severity in
                            Sample(p(row.pipeline) + [("status", status), ("severity", severity.rawValue)],
                                   row.checks.filter { $0.status.rawValue == status && $0.severity == severity }.count)
                        }
                    }
                })

        // The data.
        m.gauge("feedline_newest_data_timestamp_seconds",
                "The newest time a pipeline's data carries (Unix time); kind says which: measured, issued, modified or loaded. Alert on time() minus this.",
                rows.compactMap { row in
                    row.newestDataAt.map { Sample(p(row.pipeline) + [("kind", row.newestDataKind?.rawValue ?? "loaded")], seconds($0)) }
                })
        m.gauge("feedline_newest_data_age_seconds", "Age of a pipeline's newest data when these metrics were written.",
                rows.compactMap { row in row.newestDataAge.map { Sample(p(row.pipeline), max(0, $0)) } })
        m.gauge("feedline_freshness_status", "A pipeline's freshness verdict: 0 ok, 1 warning, 2 error.",
                judged.map { Sample(p($0.pipeline), $0.freshness.level.rawValue) })
        m.gauge("feedline_freshness_warn_after_seconds", "Age after which a pipeline's data is a warning: its warn_after, else twice its schedule's interval.",
                judged.compactMap { row in row.freshness.rule.warnAfter.map { Sample(p(row.pipeline), $0) } })
        m.gauge("feedline_freshness_error_after_seconds", "Age after which a pipeline's data is an error (its error_after).",
                judged.compactMap { row in row.freshness.rule.errorAfter.map { Sample(p(row.pipeline), $0) } })

        // Schema drift.
        m.gauge("feedline_field_drift", "Payloads that showed a field drifting from what its operation declares (field_drift), by pipeline, source, operation, field and change (added, removed, number-to-text …).",
                report.drift.sorted { ($0.pipeline, $0.source, $0.operation, $0.fieldPath, $0.change) < ($1.pipeline, $1.source, $1.operation, $1.fieldPath, $1.change) }
                    .map { Sample([("pipeline", $0.pipeline), ("source", $0.source), ("operation", $0.operation), ("field", $0.fieldPath), ("change", $0.change)],
                                  $0.payloadCount) })

        // The ledger.
        m.counter("feedline_runs_total", "Runs in the ledger, by pipeline (its ledger name) and status.",
                  figures.runs.sorted { $0.key < $1.key }.flatMap { name, counts in
                      counts.sorted { $0.key < $1.key }.map { Sample(p(name) + [("status", $0.key)], $0.value) }
                  })

        // Quota, per feed API and key variable, today in Asia/Seoul.
        func scope(_ usage: QuotaUsage) -> [(String, String)] {
            [("source", usage.source), ("api", usage.api), ("credential_variable", usage.credentialVariable)]
        }
        m.gauge("feedline_quota_used_calls", "API calls counted today (KST day) per feed API and key variable.",
                report.quota.map { Sample(scope($0.usage), $0.usage.calls) })
        m.gauge("feedline_quota_limit_calls", "Daily call limit per feed API and key (absent: no limit).",
                report.quota.compactMap { q in q.limit.map { Sample(scope(q.usage), $0) } })
        m.gauge("feedline_quota_remaining_calls", "API calls left today (KST day) per feed API and key variable (absent: no limit).",
                report.quota.compactMap { q in q.limit.map { Sample(scope(q.usage), max($0 - q.usage.calls, 0)) } })
        m.gauge("feedline_quota_exhausted", "1 when today's daily limit is used up (the API refuses calls until midnight KST), else 0.",
                report.quota.map { q in Sample(scope(q.usage), q.limit.map { StatusReport.isExhausted(q.usage, limit: $0) ? 1 : 0 } ?? 0) })
        return m.text
    }
}
