import Foundation
import Pipeline

/// How check results read in text and JSON, wherever they are shown (`check`, `run`, `status`).
enum CheckText {
    /// A sample cell: NULL, or the value as text.
    static func cell(_ value: StoreValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): v.isEmpty ? "\"\"" : v
        }
    }

    /// `ok`, `warn`, `FAIL`, `ERROR`, `skip`: a result's word in tables.
    static func word(_ result: CheckResult) -> String {
        switch result.status {
        case .passed: "ok"
        case .skipped: "skip"
        case .failed: result.severity == .warn ? "warn" : "FAIL"
        case .error: result.severity == .warn ? "warn" : "ERROR"
        }
    }

    /// `7 ok`, `1 FAIL, 6 ok`, `1 warn, 5 ok, 1 skip`: a run's results in one cell.
    static func cell(_ results: [CheckResult]) -> String {
        guard !results.isEmpty else { return "-" }
        let failed = results.filter(\.failsRun).count, warned = results.filter(\.isWarning).count
        let passed = results.filter { $0.status == .passed }.count, skipped = results.filter { $0.status == .skipped }.count
        var parts: [String] = []
        if failed > 0 { parts.append("\(failed) FAIL") }
        if warned > 0 { parts.append("\(warned) warn") }
        if passed > 0 { parts.append("\(passed) ok") }
        if skipped > 0 { parts.append("\(skipped) skip") }
        return parts.joined(separator: ", ")
    }

    /// A result as JSON: name, kind, table, severity, on_failure, status, failing_rows, message,
    /// and — with `sample`, for results of the run at hand — sample (a list of {column: value}
    /// objects). Results read back from the ledger (`status`) carry no sample: it stays in
    /// `check_result.sample`, for `feedline query`.
    static func json(_ result: CheckResult) -> JSONValue { json(result, sample: true) }

    static func json(_ result: CheckResult, sample withSample: Bool) -> JSONValue {
        func value(_ v: StoreValue) -> JSONValue {
            switch v {
            case .null: .null
            case .integer(let i): .integer(Int(i))
            case .real(let d): d.isFinite ? .number(d) : .null
            case .text(let s): .string(s)
            }
        }
        let sample: [JSONValue] = result.sampleRows.map { row in
            .object(Dictionary(zip(result.sampleColumns, row.map(value)), uniquingKeysWith: { a, _ in a }))
        }
        var object: [String: JSONValue] = [
            "name": .string(result.name), "kind": .string(result.kind), "table": result.table.map(JSONValue.string) ?? .null,
            "severity": .string(result.severity.rawValue), "on_failure": .string(result.onFailure.rawValue),
            "status": .string(result.status.rawValue), "failing_rows": result.failingRows.map(JSONValue.integer) ?? .null,
            "message": .string(result.message),
        ]
        if withSample { object["sample"] = .array(sample) }
        return .object(object)
    }
}

extension Console {
    // MARK: - check

    /// `feedline check`: replays the pipelines' fixtures into temporary databases, runs their
    /// checks and compares their snapshots; prints each result (or `--json`), writes JUnit XML
    /// when asked (through `OutputFile`, checked before anything is replayed). Exit: 0 all
    /// passed; 1 anything failed; 64 a refused `--junit` path; 78 only invalid pipeline files.
    public func check(names: [String], paths: Paths, json: Bool = false, junit: String? = nil,
                      force: Bool = false, makeDirectories: Bool = false) async -> ExitStatus {
        var junitFile: OutputFile?
        if let junit {
            do throws(OutputFile.Problem) {
                junitFile = try OutputFile.prepare(environment.resolve(junit), kind: .junit, database: OutputFile.Database(paths.database),
                                                   force: force, makeDirectories: makeDirectories)
            } catch {
                err("error: \(error)")
                return error.refused ? .usage : .failure
            }
        }
        let outcome: PipelineChecks.CheckOutcome
        do throws(CommandRefusal) {
            outcome = try await PipelineChecks(environment: environment).check(names: names, paths: paths)
        } catch {
            return refused(error)
        }
        for problem in outcome.skipped { err("error: \(problem) (not checked)") }
        if !outcome.unchecked.isEmpty {
            err("note: no checks or snapshots declared (not checked): \(outcome.unchecked.joined(separator: ", ")).")
        }
        for file in outcome.undeclaredSnapshots {
            err("warning: \(file) is no pipeline's snapshot, so it is not compared; remove it, or declare it under snapshots: (file: …).")
        }
        var status = outcome.exitStatus
        if let junitFile {
            do throws(OutputFile.Problem) { try junitFile.write(Data(JUnitReport.render(outcome).utf8)) } catch {
                err("error: \(error)")
                if error.refused { status = .usage } else if status == .success { status = .failure }
            }
        }
        if json {
            out(Self.checkJSON(outcome))
        } else {
            for (index, result) in outcome.results.enumerated() {
                if index > 0 { out("") }
                Self.checkLines(result).forEach(out)
            }
            if !outcome.results.isEmpty { out("") }
            out(Self.checkTotals(outcome))
            if let junit { out("JUnit report: \(junit)") }
        }
        return status
    }

    static func checkLines(_ result: PipelineChecks.PipelineResult) -> [String] {
        let r = result.report
        var lines = ["\(result.pipeline.name) (\(result.pipeline.file)): fixtures replayed into a temporary database"
            + (r.run.map { ", run #\($0.rawValue)" } ?? "") + ", \(TerminalProgress.grouped(r.counts.rows)) rows"]
        if let loadError = result.loadError { lines.append("  error: the fixtures did not load: \(loadError)") }
        let labels = r.checks.map(\.name) + result.snapshots.map { "snapshot \($0.spec.table)" }
        let width = labels.map(DisplayWidth.columns).max() ?? 0
        for check in r.checks {
            lines.append("  " + DisplayWidth.pad(CheckText.word(check), toColumns: 5) + " " + DisplayWidth.pad(check.name, toColumns: width) + "  " + check.message)
            if check.isFailing { lines += JUnitReport.sampleLines(check).map { "          " + $0 } }
        }
        if result.loadError != nil {
            for check in result.pipeline.checks where !r.checks.contains(where: { $0.name == check.name }) {
                lines.append("  " + DisplayWidth.pad("ERROR", toColumns: 5) + " " + DisplayWidth.pad(check.name, toColumns: width) + "  not evaluated")
            }
        }
        for snapshot in result.snapshots {
            let word = snapshot.status == .matched ? "ok" : snapshot.status == .error ? "ERROR" : "FAIL"
            lines.append("  " + DisplayWidth.pad(word, toColumns: 5) + " " + DisplayWidth.pad("snapshot \(snapshot.spec.table)", toColumns: width)
                         + "  \(snapshot.path): \(snapshot.summary)")
            let differences = snapshot.differenceLines
            lines += differences.prefix(50).map { "          " + $0 }
            if differences.count > 50 { lines.append("          … and \(differences.count - 50) more (--json lists them all)") }
        }
        return lines
    }

    static func checkTotals(_ outcome: PipelineChecks.CheckOutcome) -> String {
        let checks = outcome.results.flatMap(\.report.checks)
        let snapshots = outcome.results.flatMap(\.snapshots)
        let matched = snapshots.filter(\.passed).count
        let failedLoads = outcome.results.filter { $0.loadError != nil }.count
        var line = "check: \(outcome.results.count) pipeline\(outcome.results.count == 1 ? "" : "s") · checks: \(checks.tally)"
            + " · snapshots: \(matched) matched" + (snapshots.count > matched ? ", \(snapshots.count - matched) failed" : "")
        if failedLoads > 0 { line += " · \(failedLoads) did not load" }
        return line + (outcome.passed ? " — passed" : " — FAILED")
    }

    /// `check --json`: `{"passed", "pipelines": [{"pipeline", "file", "run", "error", "checks": […],
    /// "snapshots": [{"table", "file", "status", "rows", "added", "removed", "changed_cells",
    /// "notes", "message", "differences": [{"kind", "key", "column", "expected", "actual"}]}]}],
    /// "invalid_files": […], "unchecked": […], "undeclared_snapshots": […]}`.
    static func checkJSON(_ outcome: PipelineChecks.CheckOutcome) -> String {
        func cell(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let pipelines: [JSONValue] = outcome.results.map { result in
            let snapshots: [JSONValue] = result.snapshots.map { s in
                .object([
                    "table": .string(s.spec.table), "file": .string(s.path), "status": .string(s.status.rawValue), "rows": .integer(s.rows),
                    "added": .integer(s.added), "removed": .integer(s.removed), "changed_cells": .integer(s.changedCells),
                    "notes": .array(s.notes.map(JSONValue.string)), "message": s.message.map(JSONValue.string) ?? .null,
                    "differences": .array(s.differences.map { d in
                        .object(["kind": .string(d.kind.rawValue),
                                 "key": .object(Dictionary(d.key.map { ($0.column, cell($0.value)) }, uniquingKeysWith: { a, _ in a })),
                                 "column": cell(d.column), "expected": cell(d.expected), "actual": cell(d.actual)])
                    }),
                ])
            }
            return .object([
                "pipeline": .string(result.pipeline.name), "file": .string(result.pipeline.file), "passed": .bool(result.passed),
                "run": result.report.run.map { .integer(Int($0.rawValue)) } ?? .null, "error": result.loadError.map(JSONValue.string) ?? .null,
                "checks": .array(result.report.checks.map(CheckText.json)), "snapshots": .array(snapshots),
            ])
        }
        let document: JSONValue = .object([
            "passed": .bool(outcome.passed), "pipelines": .array(pipelines),
            "invalid_files": .array(outcome.skipped.map { .object(["file": .string($0.file), "field": cell($0.field), "message": .string($0.message)]) }),
            "unchecked": .array(outcome.unchecked.map(JSONValue.string)),
            "undeclared_snapshots": .array(outcome.undeclaredSnapshots.map(JSONValue.string)),
        ])
        return JSONText.encode(document)
    }

    // MARK: - snapshot

    /// `feedline snapshot`: replays the pipelines' fixtures and writes their snapshot files,
    /// saying of each whether it is new, updated (with the differences) or unchanged.
    public func snapshot(names: [String], paths: Paths, json: Bool = false, force: Bool = false) async -> ExitStatus {
        let outcome: PipelineChecks.SnapshotOutcome
        do throws(CommandRefusal) {
            outcome = try await PipelineChecks(environment: environment).snapshot(names: names, paths: paths, force: force)
        } catch {
            return refused(error)
        }
        for problem in outcome.skipped { err("error: \(problem) (skipped)") }
        for failure in outcome.failures { err("error: \(failure.pipeline): \(failure.error)") }
        if json {
            let written: [JSONValue] = outcome.written.map { w in
                .object(["pipeline": .string(w.pipeline), "table": .string(w.spec.table), "file": .string(w.path), "rows": .integer(w.rows),
                         "change": .string(w.change.rawValue),
                         "differences": .array((w.comparison?.differenceLines ?? []).map(JSONValue.string))])
            }
            out(JSONText.encode(JSONValue.object(["snapshots": .array(written),
                                                  "failures": .array(outcome.failures.map { .object(["pipeline": .string($0.pipeline), "error": .string($0.error)]) })])))
        } else {
            for w in outcome.written {
                var line = "\(w.change.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(w.path) (\(w.pipeline): \(w.spec.table), \(TerminalProgress.grouped(w.rows)) rows)"
                if let comparison = w.comparison { line += ": \(comparison.summary)" }
                out(line)
                for difference in (w.comparison?.differenceLines ?? []).prefix(20) { out("          " + difference) }
            }
            let changed = outcome.written.filter { $0.change != .unchanged }.count
            out("snapshot: \(outcome.written.count) file\(outcome.written.count == 1 ? "" : "s") (\(changed) written, \(outcome.written.count - changed) unchanged)"
                + (changed > 0 ? "; review them (git diff) and commit them with the fixtures" : ""))
        }
        return outcome.exitStatus
    }
}
