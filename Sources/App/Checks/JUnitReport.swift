import Foundation
import Pipeline

/// `feedline check --junit FILE`: the results as JUnit XML, the format GitHub Actions, GitLab
/// and Jenkins display. One `testsuite` per pipeline; one `testcase` per check
/// (`classname` PIPELINE.checks) and per snapshot (PIPELINE.snapshots). A failing `error` check
/// or a differing or missing snapshot is a `failure`; a check that could not be evaluated, or
/// anything not judged because the fixtures did not load, is an `error`; a skipped check is
/// `skipped`; a failing `warn` check passes with its message in `system-out`. No times or dates,
/// so the same results give the same bytes.
enum JUnitReport {
    struct Case {
        enum Outcome { case passed, failure, error, skipped }
        var classname: String
        var name: String
        var outcome: Outcome
        var message: String
        var details: [String] = []
        var output: String?
    }

    static func cases(_ result: PipelineChecks.PipelineResult) -> [Case] {
        let name = result.pipeline.name
        var cases: [Case] = []
        let ran = Set(result.report.checks.map(\.name))
        for check in result.report.checks {
            var c = Case(classname: "\(name).checks", name: check.name, outcome: .passed, message: check.message)
            switch check.status {
            case .passed: break
            case .skipped: c.outcome = .skipped
            case .failed, .error:
                if check.severity == .warn {
                    c.output = "warning: \(check.message)"
                } else {
                    c.outcome = check.status == .error ? .error : .failure
                }
            }
            c.details = sampleLines(check)
            cases.append(c)
        }
        // Checks the load never reached: the fixtures did not load.
        for check in result.pipeline.checks where !ran.contains(check.name) {
            cases.append(Case(classname: "\(name).checks", name: check.name, outcome: .error,
                              message: "not evaluated: the fixtures did not load (\(result.loadError ?? "unknown error"))"))
        }
        for snapshot in result.snapshots {
            var c = Case(classname: "\(name).snapshots", name: "\(snapshot.spec.table) (\(snapshot.spec.file))", outcome: .passed,
                         message: snapshot.summary)
            switch snapshot.status {
            case .matched: break
            case .differs, .missing: c.outcome = .failure
            case .error: c.outcome = .error
            }
            c.details = snapshot.notes + snapshot.differenceLines
            cases.append(c)
        }
        return cases
    }

    static func sampleLines(_ check: CheckResult) -> [String] {
        guard check.isFailing, !check.sampleRows.isEmpty else { return [] }
        return ["sample rows (\(check.sampleColumns.joined(separator: ", "))):"]
            + check.sampleRows.map { row in "  " + row.map(CheckText.cell).joined(separator: " | ") }
    }

    static func render(_ outcome: PipelineChecks.CheckOutcome) -> String {
        var suites: [(name: String, cases: [Case])] = outcome.results.map { ($0.pipeline.name, cases($0)) }
        for problem in outcome.skipped {
            suites.append((problem.pipelineName, [Case(classname: "\(problem.pipelineName).file", name: problem.file, outcome: .error,
                                                       message: problem.description)]))
        }
        func count(_ cases: [Case], _ outcome: Case.Outcome) -> Int { cases.filter { $0.outcome == outcome }.count }
        let all = suites.flatMap(\.cases)
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                   "<testsuites name=\"feedline check\" tests=\"\(all.count)\" failures=\"\(count(all, .failure))\" errors=\"\(count(all, .error))\" skipped=\"\(count(all, .skipped))\">"]
        for suite in suites {
            xml.append("  <testsuite name=\"\(escape(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(count(suite.cases, .failure))\" errors=\"\(count(suite.cases, .error))\" skipped=\"\(count(suite.cases, .skipped))\">")
            for c in suite.cases {
                let open = "    <testcase classname=\"\(escape(c.classname))\" name=\"\(escape(c.name))\""
                var body: [String] = []
                let text = ([c.message] + c.details).joined(separator: "\n")
                switch c.outcome {
                case .passed: break
                case .failure: body.append("      <failure message=\"\(escape(c.message))\" type=\"\(c.classname.hasSuffix(".snapshots") ? "snapshot" : "check")\">\(escape(text, content: true))</failure>")
                case .error: body.append("      <error message=\"\(escape(c.message))\">\(escape(text, content: true))</error>")
                case .skipped: body.append("      <skipped message=\"\(escape(c.message))\"/>")
                }
                if let output = c.output { body.append("      <system-out>\(escape(([output] + c.details).joined(separator: "\n"), content: true))</system-out>") }
                xml += body.isEmpty ? [open + "/>"] : [open + ">"] + body + ["    </testcase>"]
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }

    /// Text for XML attributes (line breaks as `&#10;`) and content (line breaks kept);
    /// characters XML 1.0 cannot hold become U+FFFD.
    static func escape(_ text: String, content: Bool = false) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += content ? "\n" : "&#10;"
            case "\t", "\r": out += "&#\(scalar.value);"
            default:
                let v = scalar.value
                out.unicodeScalars.append(v < 0x20 || v == 0xFFFE || v == 0xFFFF ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }
}
