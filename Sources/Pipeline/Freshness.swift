import Domain
import Foundation

// How a pipeline stands for someone who is not watching: the freshness of its data, by its own
// contract or by the default rule, and the verdict `feedline status --check` and `feedline
// metrics` give. Pure: the ledger's figures and "now" come in, decisions go out.

// MARK: - Contract

/// A pipeline's freshness contract (`freshness: { warn_after: 3h, error_after: 12h }`): how old
/// the newest data may grow before it is a warning, and before it is an error. The age is that of
/// the time `feedline status` knows for the pipeline (measured, issued, modified or loaded).
/// Either bound may be left out; when both are given, `warnAfter` ≤ `errorAfter`.
public struct FreshnessContract: Sendable, Hashable {
    /// Seconds after which the data is a warning; nil: no warning bound.
    public var warnAfter: TimeInterval?
    /// Seconds after which the data is an error; nil: no error bound.
    public var errorAfter: TimeInterval?

    public init(warnAfter: TimeInterval?, errorAfter: TimeInterval?) {
        self.warnAfter = warnAfter; self.errorAfter = errorAfter
    }

    /// `90s`, `30m`, `3h`, `1h30m`, `2d`, `1d12h`: a duration in the units a contract is written
    /// in, zero parts left out.
    public static func text(_ seconds: TimeInterval) -> String {
        var s = Int(seconds.rounded())
        guard s > 0 else { return "0s" }
        var out = ""
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)] where s >= size {
            out += "\(s / size)\(unit)"
            s %= size
        }
        return out
    }
}

// MARK: - Verdicts

/// A verdict in the monitoring plug-in convention (Nagios, Icinga, Sensu): the exit code of
/// `feedline status --check` is its raw value.
public enum HealthLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case ok = 0
    case warning = 1
    case error = 2

    public static func < (a: HealthLevel, b: HealthLevel) -> Bool { a.rawValue < b.rawValue }

    /// `ok`, `warning`, `error`: the word in lines and JSON.
    public var description: String {
        switch self {
        case .ok: "ok"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// One thing wrong, as `feedline status --check` prints it: `error: airkorea-seoul: …`.
public struct HealthProblem: Sendable, Hashable, CustomStringConvertible {
    public var level: HealthLevel
    /// What it is about: a pipeline name, `quota`, or a pipeline file.
    public var subject: String
    /// What is wrong, one sentence without a final period.
    public var message: String

    public init(_ level: HealthLevel, _ subject: String, _ message: String) {
        self.level = level; self.subject = subject; self.message = message
    }

    /// `error: airkorea-seoul: last run 12 failed: …` (control characters escaped: one line).
    public var description: String {
        let text = "\(level): \(subject): \(message)"
        return String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    }
}

/// Which rule judged a pipeline's freshness.
public enum FreshnessRule: Sendable, Hashable {
    /// The pipeline's own `freshness:` contract.
    case contract(FreshnessContract)
    /// No contract: data older than twice the schedule's interval (`interval` seconds) is a
    /// warning, as `feedline status` has always marked it STALE.
    case schedule(interval: TimeInterval)
    /// Neither a contract nor a schedule: freshness is not judged.
    case none

    /// The bound after which the data is a warning, in seconds.
    public var warnAfter: TimeInterval? {
        switch self {
        case .contract(let c): c.warnAfter
        case .schedule(let interval): 2 * interval
        case .none: nil
        }
    }

    /// The bound after which the data is an error, in seconds.
    public var errorAfter: TimeInterval? {
        if case .contract(let c) = self { return c.errorAfter }
        return nil
    }

    /// `contract`, `schedule`, `none`: the word in JSON.
    public var name: String {
        switch self {
        case .contract: "contract"
        case .schedule: "schedule"
        case .none: "none"
        }
    }
}

/// How fresh a pipeline's newest data is under its rule.
public struct FreshnessVerdict: Sendable, Hashable {
    public var rule: FreshnessRule
    public var level: HealthLevel
    /// Why it is not ok (nil when ok).
    public var problem: HealthProblem?

    public init(rule: FreshnessRule, level: HealthLevel, problem: HealthProblem?) {
        self.rule = rule; self.level = level; self.problem = problem
    }

    /// Judges data `age` seconds old (nil: never loaded) of `pipeline`, whose time is of `kind`.
    public static func judge(pipeline: String, age: TimeInterval?, kind: DataTimeKind?, rule: FreshnessRule) -> FreshnessVerdict {
        let what = "newest data" + (kind.map { " (\($0.rawValue))" } ?? "")
        switch rule {
        case .none:
            return FreshnessVerdict(rule: rule, level: .ok, problem: nil)
        case .schedule(let interval):
            guard let age else {
                return FreshnessVerdict(rule: rule, level: .warning, problem: HealthProblem(.warning, pipeline, "no data loaded yet"))
            }
            guard age > 2 * interval else { return FreshnessVerdict(rule: rule, level: .ok, problem: nil) }
            return FreshnessVerdict(rule: rule, level: .warning, problem: HealthProblem(
                .warning, pipeline, "\(what) is \(DataCheck.duration(age)) old, older than twice the schedule's interval (\(FreshnessContract.text(2 * interval)))"))
        case .contract(let contract):
            guard let age else {
                let level: HealthLevel = contract.errorAfter != nil ? .error : .warning
                return FreshnessVerdict(rule: rule, level: level, problem: HealthProblem(level, pipeline, "no data loaded yet"))
            }
            if let bound = contract.errorAfter, age > bound {
                return FreshnessVerdict(rule: rule, level: .error, problem: HealthProblem(
                    .error, pipeline, "\(what) is \(DataCheck.duration(age)) old, older than error_after \(FreshnessContract.text(bound))"))
            }
            if let bound = contract.warnAfter, age > bound {
                return FreshnessVerdict(rule: rule, level: .warning, problem: HealthProblem(
                    .warning, pipeline, "\(what) is \(DataCheck.duration(age)) old, older than warn_after \(FreshnessContract.text(bound))"))
            }
            return FreshnessVerdict(rule: rule, level: .ok, problem: nil)
        }
    }
}

/// A pipeline's verdict: its freshness, its last run and that run's checks together.
public struct PipelineVerdict: Sendable, Hashable {
    public var freshness: FreshnessVerdict
    /// Every problem, errors first.
    public var problems: [HealthProblem]
    /// The worst of the problems (ok when there are none).
    public var level: HealthLevel { problems.map(\.level).max() ?? .ok }

    public init(freshness: FreshnessVerdict, problems: [HealthProblem]) {
        self.freshness = freshness; self.problems = problems
    }

    /// Judges `pipeline`: a last run that failed or was abandoned, or a failing `error` check,
    /// is an error; a failing `warn` check a warning; freshness as its rule says. A run still
    /// running is judged by the run before it only through the data's age.
    /// Fields that drifted in the last run (`drift`, the pipeline's `field_drift` rows seen by
    /// it) are a warning.
    public static func judge(pipeline: String, lastRun: PipelineRunSummary?, checks: [CheckResult], freshness: FreshnessVerdict,
                             drift: [FieldDriftRow] = []) -> PipelineVerdict {
        var problems: [HealthProblem] = []
        if let run = lastRun {
            let started = run.startedAt.map { " (started \(iso8601UTC($0)))" } ?? ""
            switch run.status {
            case "failed":
                let reason = run.error.flatMap { $0.split(separator: "\n").first }.map { ": \($0)" } ?? ""
                problems.append(HealthProblem(.error, pipeline, "last run \(run.run) failed\(started)\(reason)"))
            case "abandoned":
                problems.append(HealthProblem(.error, pipeline, "last run \(run.run) was abandoned: its process ended before it finished\(started)"))
            default:
                break
            }
        }
        for check in checks where check.isFailing {
            let level: HealthLevel = check.severity == .error ? .error : .warning
            let word = check.status == .error ? "could not be evaluated" : "failed"
            problems.append(HealthProblem(level, pipeline, "check '\(check.name)' \(word) in the last run: \(check.message)"))
        }
        if let problem = freshness.problem { problems.append(problem) }
        if !drift.isEmpty {
            let shown = drift.prefix(3).map { "\($0.fieldPath) \($0.change)" }.joined(separator: ", ")
            let more = drift.count > 3 ? " and \(drift.count - 3) more" : ""
            let operations = Set(drift.map { "\($0.source) \($0.operation)" }).sorted().joined(separator: ", ")
            problems.append(HealthProblem(.warning, pipeline,
                                          "schema drift in the last run: \(drift.count) field\(drift.count == 1 ? "" : "s") differ\(drift.count == 1 ? "s" : "") from what \(operations) declares (\(shown)\(more)); see feedline drift \(pipeline)"))
        }
        return PipelineVerdict(freshness: freshness, problems: problems.sorted { $0.level > $1.level })
    }
}
