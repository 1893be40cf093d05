@testable import App
import Domain
import Foundation
import Pipeline
import Testing
import TestSupport

/// Running feedline unattended: `status --check` as a monitoring plug-in (exit 0/1/2, one line
/// per problem, the same verdicts in `--json`), freshness contracts in pipeline files, and
/// `feedline metrics` / `--metrics-file` read back by the `prometheus-client` parser — on every
/// store this build tests.
@Suite(.serialized) struct MonitoringTests {
    /// The Seoul realtime pipeline (its newest measured hour ends 2023-05-14 01:00 KST, about
    /// 297 days before the test clock's 2024-03-06 06:00 UTC) with `freshness` as given.
    static func seoul(freshness: String?) -> String {
        """
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
          ver: "1.3"
        target: measurement
        fixtures:
          - airkorea/realtime-province-seoul.xml
        \(freshness.map { "freshness: \($0)" } ?? "")
        """
    }

    /// The station list with a `warn` check that fails (far more than one station).
    static let stationsWithWarnCheck = """
        source: airkorea
        operation: stations
        target: station
        fixtures:
          - airkorea/station-list.xml
        checks:
          - check: row_count
            name: at-most-one-station
            table: station
            max: 1
            severity: warn
        """

    /// A pipeline whose fixture is a malformed document: its run fails.
    static let broken = """
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
        fixtures:
          - airkorea/malformed-xml.xml
        """

    /// `status --check` on `env`'s pipelines in `directory`: its exit status and its lines.
    func check(_ env: TestEnvironment, _ directory: URL) -> (App.ExitStatus, [String]) {
        env.out.clear()
        let status = env.feedline.status(paths: env.paths(pipelines: directory), json: false, check: true)
        return (status, env.out.text.split(separator: "\n").map(String.init))
    }

    @Test("status --check exits 0, 1 or 2 by the worst problem, one line each, and --json carries the same verdicts", arguments: TestStore.all)
    func statusCheckExitCodes(store: TestStore) async throws {
        var env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        env.variables["FEEDLINE_QUOTA_AIRKOREA"] = "2"
        let directory = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 400d, error_after: 500d }"))
        #expect(await env.feedline.run(names: ["seoul"], source: .fixtures, paths: env.paths(pipelines: directory)) == .success, "\(env.err.text)")

        // Fresh by its contract, last run succeeded: 0.
        var (status, lines) = check(env, directory)
        #expect(status == .success && status.rawValue == 0)
        #expect(lines == ["ok: 1 pipeline fresh, every last run succeeded, no quota used up"], "\(lines)")

        // Past warn_after: 1.
        _ = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 100d, error_after: 400d }"))
        (status, lines) = check(env, directory)
        #expect(status.rawValue == 1)
        #expect(lines.count == 1 && lines[0].hasPrefix("warning: seoul: newest data (measured) is 297d")
                && lines[0].hasSuffix("old, older than warn_after 100d"), "\(lines)")

        // A warn check that failed in the last run is a warning too.
        _ = try env.writePipeline("stations", Self.stationsWithWarnCheck)
        #expect(await env.feedline.run(names: ["stations"], source: .fixtures, paths: env.paths(pipelines: directory)) == .success, "\(env.err.text)")
        (status, lines) = check(env, directory)
        #expect(status.rawValue == 1)
        #expect(lines.count == 2 && lines.contains { $0.hasPrefix("warning: stations: check 'at-most-one-station' failed in the last run: ") }, "\(lines)")

        // Past error_after: 2, errors first.
        _ = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 1d, error_after: 2d }"))
        (status, lines) = check(env, directory)
        #expect(status == .checkError && status.rawValue == 2)
        #expect(lines.count == 2 && lines[0].hasPrefix("error: seoul: newest data (measured) is 297d")
                && lines[0].hasSuffix("older than error_after 2d") && lines[1].hasPrefix("warning: stations: "), "\(lines)")

        // A failed last run, and a daily quota used up, are errors.
        _ = try env.writePipeline("broken", Self.broken)
        #expect(await env.feedline.run(names: ["broken"], source: .fixtures, paths: env.paths(pipelines: directory)) != .success)
        let store = try env.environment.openStore(env.paths(pipelines: directory))
        let scope = QuotaScope(source: "airkorea", api: "ArpltnInforInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "0123456789ab")
        let day = quotaDay(env.environment.clock())
        #expect(try store.reserveCall(scope, on: day, limit: 2) && store.reserveCall(scope, on: day, limit: 2))
        (status, lines) = check(env, directory)
        #expect(status.rawValue == 2)
        let run = try #require(try env.db.value("SELECT max(id) FROM run WHERE pipeline = 'broken'"))
        #expect(lines.contains { $0.hasPrefix("error: broken: last run \(run) failed (started 2024-03-06T06:00:00Z): ") }, "\(lines)")
        #expect(lines.contains("error: quota: airkorea/ArpltnInforInqireSvc (AIRKOREA_SERVICE_KEY): 2 of 2 calls used on 2024-03-06 (KST); the API refuses calls until midnight KST"), "\(lines)")
        #expect(lines.count == 4 && lines.prefix(3).allSatisfy { $0.hasPrefix("error: ") } && lines[3].hasPrefix("warning: "), "\(lines)")
        #expect(!lines.joined().contains("0123456789ab"), "a key fingerprint was printed")

        // --json: the same verdicts, and with --check the same exit status.
        env.out.clear()
        #expect(env.feedline.status(paths: env.paths(pipelines: directory), json: true, check: true).rawValue == 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.utf8)) as? [String: Any])
        let verdict = try #require(json["verdict"] as? [String: Any])
        #expect(verdict["status"] as? String == "error" && verdict["exit_code"] as? Int == 2)
        #expect(verdict["problems"] as? [String] == lines)
        let pipelines = try #require(json["pipelines"] as? [[String: Any]])
        func pipeline(_ name: String) -> [String: Any] { pipelines.first { $0["pipeline"] as? String == name } ?? [:] }
        let freshness = try #require(pipeline("seoul")["freshness"] as? [String: Any])
        #expect(freshness["rule"] as? String == "contract" && freshness["status"] as? String == "error")
        #expect(freshness["warn_after_seconds"] as? Int == 86_400 && freshness["error_after_seconds"] as? Int == 172_800)
        #expect((pipeline("seoul")["verdict"] as? [String: Any])?["status"] as? String == "error")
        #expect((pipeline("stations")["verdict"] as? [String: Any])?["status"] as? String == "warning")
        #expect((pipeline("stations")["freshness"] as? [String: Any])?["rule"] as? String == "none")
        #expect(((pipeline("broken")["verdict"] as? [String: Any])?["problems"] as? [String])?.first?.hasPrefix("error: broken: last run") == true)
        let apis = try #require((json["quota"] as? [String: Any])?["apis"] as? [[String: Any]])
        #expect(apis.count == 1 && apis[0]["exhausted"] as? Bool == true && apis[0]["remaining"] as? Int == 0)

        // Without --check, status still exits 0 (its verdicts are in --json).
        env.out.clear()
        #expect(env.feedline.status(paths: env.paths(pipelines: directory), json: true) == .success)
    }

    @Test("without a contract, data older than twice the schedule's interval is a warning, as STALE always was")
    func scheduleRuleIsTheDefault() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try env.writePipeline("seoul", Self.seoul(freshness: nil) + "\nschedule: \"20 * * * *\"\n")
        #expect(await env.feedline.run(names: ["seoul"], source: .fixtures, paths: env.paths(pipelines: directory)) == .success, "\(env.err.text)")
        // A scheduled pipeline that never ran has no data at all.
        _ = try env.writePipeline("unrun", Self.seoul(freshness: nil) + "\nschedule: \"0 3 * * *\"\n")
        let (status, lines) = check(env, directory)
        #expect(status.rawValue == 1)
        #expect(lines.count == 2 && lines[0].hasPrefix("warning: seoul: newest data (measured) is 297d")
                && lines[0].hasSuffix("older than twice the schedule's interval (2h)"), "\(lines)")
        #expect(lines.last == "warning: unrun: no data loaded yet", "\(lines)")
    }

    @Test("a freshness contract is read from the pipeline file, and a malformed one is one error naming the file and the field")
    func freshnessContractParsing() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 3h, error_after: 1d12h }"))
        let catalog = PipelineCatalog(directory: directory, feeds: env.environment.feeds, workingDirectory: env.dir.url)
        let loaded = try catalog.load(directory.appendingPathComponent("seoul.yaml"))
        #expect(loaded.freshness == FreshnessContract(warnAfter: 10_800, errorAfter: 129_600))
        _ = try env.writePipeline("seoul", Self.seoul(freshness: "\n  error_after: 90m"))
        #expect(try catalog.load(directory.appendingPathComponent("seoul.yaml")).freshness == FreshnessContract(warnAfter: nil, errorAfter: 5_400))

        let cases: [(freshness: String, field: String, message: String)] = [
            ("{ warn_after: 3 hours }", "freshness.warn_after", "must be a duration such as 90m, 3h, 2d or 1h30m, not '3 hours'."),
            ("{ warn_after: 12h, error_after: 3h }", "freshness.warn_after", "is 12h, longer than error_after (3h); warn_after must not be longer than error_after."),
            ("{ warn_after: 3h, critical_after: 12h }", "freshness.critical_after", "is not a known field; known fields: error_after, warn_after."),
            ("{ error_after: [3h, 4h] }", "freshness.error_after", "must be a single duration such as 90m, 3h, 2d or 1h30m."),
            ("3h", "freshness", "must be a mapping such as { warn_after: 3h, error_after: 12h }."),
            ("{}", "freshness", "must be a mapping such as { warn_after: 3h, error_after: 12h }, with at least one of them."),
            ("{ warn_after: 0m }", "freshness.warn_after", "must be a duration such as 90m, 3h, 2d or 1h30m, not '0m'."),
        ]
        for c in cases {
            _ = try env.writePipeline("seoul", Self.seoul(freshness: c.freshness))
            let (_, problems) = catalog.loadAll()
            #expect(problems.map(\.description) == ["Pipelines/seoul.yaml: field '\(c.field)': \(c.message)"], "\(c.freshness)")
            // `feedline pipelines` refuses the file (78) naming it and the field.
            env.out.clear(); env.err.clear()
            #expect(env.feedline.listPipelines(paths: env.paths(pipelines: directory)) == .configuration)
            #expect(env.out.text.contains(c.field) && env.err.text.contains("Pipelines/seoul.yaml"), "\(env.out.text)")
        }

        // status --check says it as an error: the pipeline is not running.
        _ = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 400d }"))
        #expect(await env.feedline.run(names: ["seoul"], source: .fixtures, paths: env.paths(pipelines: directory)) == .success, "\(env.err.text)")
        #expect(check(env, directory).0 == .success)
        _ = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 3 hours }"))
        let (status, lines) = check(env, directory)
        #expect(status.rawValue == 2)
        #expect(lines.contains("error: Pipelines/seoul.yaml: field 'freshness.warn_after': must be a duration such as 90m, 3h, 2d or 1h30m, not '3 hours'."), "\(lines)")
    }

    // MARK: - Metrics

    static let families: [(name: String, type: String)] = [
        ("feedline_metrics_generated_timestamp_seconds", "gauge"), ("feedline_check_status", "gauge"), ("feedline_check_problems", "gauge"),
        ("feedline_pipeline_status", "gauge"), ("feedline_last_run_status", "gauge"), ("feedline_last_run_start_timestamp_seconds", "gauge"),
        ("feedline_last_run_end_timestamp_seconds", "gauge"), ("feedline_last_run_duration_seconds", "gauge"), ("feedline_last_run_rows", "gauge"),
        ("feedline_last_run_payloads", "gauge"), ("feedline_last_run_diagnostics", "gauge"), ("feedline_last_run_checks", "gauge"),
        ("feedline_newest_data_timestamp_seconds", "gauge"), ("feedline_newest_data_age_seconds", "gauge"), ("feedline_freshness_status", "gauge"),
        ("feedline_freshness_warn_after_seconds", "gauge"), ("feedline_freshness_error_after_seconds", "gauge"),
        ("feedline_runs", "counter"),  // feedline_runs_total: the parser names a counter's family without _total
        ("feedline_quota_used_calls", "gauge"), ("feedline_quota_limit_calls", "gauge"), ("feedline_quota_remaining_calls", "gauge"),
        ("feedline_quota_exhausted", "gauge"), ("feedline_field_drift", "gauge"),
    ]

    /// Every expected family is there with its type and a HELP text, and there is no other
    /// (a sample whose name matches no declared family would be read as an untyped one).
    func expectFamilies(_ parsed: [PrometheusParser.Family], sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, type) in Self.families {
            let family = parsed.family(name)
            #expect(family?.type == type && family?.help.isEmpty == false, "family \(name) (\(type)) missing or untyped", sourceLocation: sourceLocation)
        }
        let extra = Set(parsed.map(\.name)).subtracting(Self.families.map(\.name))
        #expect(extra.isEmpty, "families not expected: \(extra.sorted())", sourceLocation: sourceLocation)
    }

    @Test("metrics parse with prometheus-client and hold the ledger's figures; labels are escaped and carry no secret", arguments: TestStore.all)
    func metricsParseAndHoldTheLedger(store: TestStore) async throws {
        var env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = "metrics-test-secret-key"
        let directory = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 100d, error_after: 400d }"))
        _ = try env.writePipeline("stations", Self.stationsWithWarnCheck)
        let paths = env.paths(pipelines: directory)
        #expect(await env.feedline.run(names: ["seoul", "stations"], source: .fixtures, paths: paths) == .success, "\(env.err.text)")
        // A ledger name no pipeline file could have, and a quota scope with calls today.
        let store = try env.environment.openStore(paths)
        let hostile = "odd \"name\" \\ with\nline"
        let odd = try store.beginRun(pipeline: hostile, mode: .replay, startedAt: env.environment.clock())
        try store.failRun(odd, error: "boom", finishedAt: env.environment.clock())
        let scope = QuotaScope(source: "airkorea", api: "ArpltnInforInqireSvc", credentialVariable: "AIRKOREA_SERVICE_KEY", keyFingerprint: "fedcba987654")
        #expect(try store.reserveCall(scope, on: quotaDay(env.environment.clock()), limit: nil))

        env.out.clear()
        #expect(env.feedline.metrics(paths: paths) == .success, "\(env.err.text)")
        let text = env.out.text
        #expect(!text.contains("metrics-test-secret-key") && !text.contains("fedcba987654"), "a secret reached the metrics")
        let parsed = try PrometheusParser.parse(text)
        expectFamilies(parsed)

        let seoulRun = try #require(try env.db.rows("SELECT id, rows_inserted, rows_updated, rows_unchanged, payloads, payloads_skipped FROM run WHERE pipeline = 'seoul'").first)
        let seoul = ["pipeline": "seoul"]
        #expect(parsed.value("feedline_last_run_status", seoul.merging(["status": "succeeded"]) { a, _ in a }) == 1)
        #expect(parsed.value("feedline_last_run_status", seoul.merging(["status": "failed"]) { a, _ in a }) == 0)
        for (index, change) in ["inserted", "updated", "unchanged"].enumerated() {
            #expect(parsed.value("feedline_last_run_rows", ["pipeline": "seoul", "change": change]) == Double(seoulRun[index + 1]), "\(change)")
        }
        #expect(parsed.value("feedline_last_run_payloads", ["pipeline": "seoul", "disposition": "loaded"]) == Double(seoulRun[4]))
        #expect(parsed.value("feedline_last_run_payloads", ["pipeline": "seoul", "disposition": "skipped"]) == Double(seoulRun[5]))
        #expect(parsed.value("feedline_last_run_start_timestamp_seconds", seoul) == 1_709_704_800)
        #expect(parsed.value("feedline_last_run_end_timestamp_seconds", seoul) == 1_709_704_800)
        // Diagnostics by code, as the ledger holds them.
        let codes = try env.db.rows("SELECT code, count(*) FROM diagnostic WHERE run_id = \(seoulRun[0]) GROUP BY code")
        #expect(!codes.isEmpty)
        for row in codes { #expect(parsed.value("feedline_last_run_diagnostics", ["pipeline": "seoul", "code": row[0]]) == Double(row[1]), "\(row)") }
        #expect(parsed.family("feedline_last_run_diagnostics")?.samples.filter { $0.labels["pipeline"] == "seoul" }.count == codes.count)
        // Check results by status and severity.
        #expect(parsed.value("feedline_last_run_checks", ["pipeline": "stations", "status": "failed", "severity": "warn"]) == 1)
        #expect(parsed.value("feedline_last_run_checks", ["pipeline": "stations", "status": "passed", "severity": "error"]) == 0)
        // The data and its freshness: the newest measured hour ends 2023-05-14 01:00 KST.
        #expect(parsed.value("feedline_newest_data_timestamp_seconds", ["pipeline": "seoul", "kind": "measured"]) == 1_683_993_600)
        #expect(parsed.value("feedline_newest_data_age_seconds", seoul) == Double(1_709_704_800 - 1_683_993_600))
        #expect(parsed.value("feedline_freshness_status", seoul) == 1)
        #expect(parsed.value("feedline_freshness_warn_after_seconds", seoul) == 8_640_000)
        #expect(parsed.value("feedline_freshness_error_after_seconds", seoul) == 34_560_000)
        #expect(parsed.value("feedline_pipeline_status", seoul) == 1 && parsed.value("feedline_pipeline_status", ["pipeline": "stations"]) == 1)
        #expect(parsed.value("feedline_check_status") == 1)
        #expect(parsed.value("feedline_check_problems", ["level": "warning"]) == 2)
        // The ledger name comes back exactly as stored, through the escaping.
        #expect(parsed.value("feedline_last_run_status", ["pipeline": hostile, "status": "failed"]) == 1)
        #expect(parsed.value("feedline_runs_total", ["pipeline": hostile, "status": "failed"]) == 1)
        #expect(parsed.value("feedline_runs_total", ["pipeline": "seoul", "status": "succeeded"]) == 1)
        #expect(parsed.value("feedline_pipeline_status", ["pipeline": hostile]) == nil, "a ledger-only name is not judged")
        // Today's quota.
        let api = ["source": "airkorea", "api": "ArpltnInforInqireSvc", "credential_variable": "AIRKOREA_SERVICE_KEY"]
        #expect(parsed.value("feedline_quota_used_calls", api) == 1)
        #expect(parsed.value("feedline_quota_limit_calls", api) == 500)
        #expect(parsed.value("feedline_quota_remaining_calls", api) == 499)
        #expect(parsed.value("feedline_quota_exhausted", api) == 0)
        #expect(parsed.value("feedline_metrics_generated_timestamp_seconds") == 1_709_704_800)
    }

    @Test("replay with --metrics-file rewrites the file after every run, atomically and only over a metrics file", arguments: TestStore.all)
    func metricsFileAfterReplay(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        let directory = try env.writePipeline("seoul", Self.seoul(freshness: "{ warn_after: 400d, error_after: 500d }"))
        let file = env.dir.path("textfile/feedline.prom")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        var paths = env.paths(pipelines: directory)
        paths.metricsFile = file
        let input = FixturePaths.fixtures.appendingPathComponent("airkorea/realtime-province-seoul.xml").path

        #expect(await env.feedline.replay(inputs: [input], sourceHint: nil, parameters: [:], paths: paths, force: false) == .success, "\(env.err.text)")
        let first = try PrometheusParser.parse(String(contentsOf: file, encoding: .utf8))
        expectFamilies(first)
        let replayName = try #require(try env.db.value("SELECT pipeline FROM run ORDER BY id DESC LIMIT 1"))
        #expect(first.value("feedline_runs_total", ["pipeline": replayName, "status": "succeeded"]) == 1)
        #expect(first.value("feedline_last_run_payloads", ["pipeline": replayName, "disposition": "loaded"]) == 1)

        // The second replay skips the same bytes, and the file says so.
        #expect(await env.feedline.replay(inputs: [input], sourceHint: nil, parameters: [:], paths: paths, force: false) == .success, "\(env.err.text)")
        let second = try PrometheusParser.parse(String(contentsOf: file, encoding: .utf8))
        #expect(second.value("feedline_runs_total", ["pipeline": replayName, "status": "succeeded"]) == 2)
        #expect(second.value("feedline_last_run_payloads", ["pipeline": replayName, "disposition": "skipped"]) == 1)
        // Nothing but the file is left in its directory (the temporary file was renamed).
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["feedline.prom"])

        // A file feedline did not write is refused before anything runs (64), and kept.
        let other = env.dir.path("textfile/notes.prom")
        try "my own notes\n".write(to: other, atomically: true, encoding: .utf8)
        paths.metricsFile = other
        let runs = try env.db.integer("SELECT count(*) FROM run")
        env.err.clear()
        #expect(await env.feedline.replay(inputs: [input], sourceHint: nil, parameters: [:], paths: paths, force: true) == .usage)
        #expect(env.err.text.contains("refusing to write the metrics to \(other.path): it exists and is not a metrics file feedline wrote; remove it, or choose another --metrics-file path"), "\(env.err.text)")
        #expect(try String(contentsOf: other, encoding: .utf8) == "my own notes\n")
        #expect(try env.db.integer("SELECT count(*) FROM run") == runs)
        // Nor the database itself.
        if store == .sqlite {
            paths.metricsFile = env.database
            #expect(await env.feedline.replay(inputs: [input], sourceHint: nil, parameters: [:], paths: paths, force: true) == .usage)
        }
    }

    @Test("the metrics file comes from --metrics-file, FEEDLINE_METRICS_FILE or metrics_file: in feedline.yaml")
    func metricsFileSetting() throws {
        let dir = try TemporaryDirectory("metrics-home")
        defer { dir.remove() }
        try "database: db.sqlite\nmetrics_file: monitoring/feedline.prom\n".write(to: dir.path("feedline.yaml"), atomically: true, encoding: .utf8)
        let test = try TestEnvironment()
        defer { test.dir.remove() }
        var env = test.environment
        env.workingDirectory = dir.path("elsewhere")
        env.home = try FeedlineHome(at: dir.url)
        #expect(Paths(environment: env).metricsFile?.path == dir.path("monitoring/feedline.prom").path)
        #expect(Paths(environment: env, metricsFile: "x.prom").metricsFile?.path == dir.path("elsewhere/x.prom").path)
        env.variables["FEEDLINE_METRICS_FILE"] = "/tmp/y.prom"
        #expect(Paths(environment: env).metricsFile?.path == "/tmp/y.prom")
        env.home = nil
        env.variables["FEEDLINE_METRICS_FILE"] = nil
        #expect(Paths(environment: env).metricsFile == nil)
    }

    @Test("label values and HELP text are escaped so the parser reads back any pipeline name or diagnostic code")
    func escaping() throws {
        var m = MetricsExposition()
        let names = ["plain", "quote\"d", "back\\slash", "new\nline", "all \\\" \n \\n", "서울 😀", "{}=,"]
        m.gauge("feedline_test_value", "Help with a \\ backslash\nand a line feed.", names.enumerated().map { MetricsExposition.Sample([("pipeline", $1), ("code", $1)], $0) })
        m.counter("feedline_test_total", "A counter.", [MetricsExposition.Sample([], 3)])
        let parsed = try PrometheusParser.parse(m.text)
        #expect(parsed.family("feedline_test_value")?.help == "Help with a \\ backslash\nand a line feed.")
        for (index, name) in names.enumerated() {
            #expect(parsed.value("feedline_test_value", ["pipeline": name, "code": name]) == Double(index), "\(name)")
        }
        #expect(parsed.family("feedline_test")?.type == "counter" && parsed.value("feedline_test_total") == 3)
        #expect(MetricsExposition.number(1_709_704_800) == "1709704800" && MetricsExposition.number(0.25) == "0.250")
    }

    @Test("the parser check fails on text it rejects, so a broken exposition cannot pass")
    func parserRejectsBrokenText() {
        #expect(throws: PrometheusParser.Failure.self) { try PrometheusParser.parse("# TYPE feedline_x gauge\nfeedline_x{pipeline=\"unterminated} 1\n") }
    }
}
