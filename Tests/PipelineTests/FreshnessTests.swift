import Domain
import Foundation
import Pipeline
import Testing

/// The verdicts of `status --check` from their inputs alone: the freshness rule at its bounds,
/// and a pipeline's last run and checks.
@Suite struct FreshnessTests {
    let contract = FreshnessRule.contract(FreshnessContract(warnAfter: 3 * 3600, errorAfter: 12 * 3600))

    @Test func aContractJudgesTheAgeAgainstItsBoundsExclusively() {
        func level(_ age: TimeInterval?, _ rule: FreshnessRule) -> HealthLevel {
            FreshnessVerdict.judge(pipeline: "p", age: age, kind: .measured, rule: rule).level
        }
        #expect(level(3 * 3600, contract) == .ok)
        #expect(level(3 * 3600 + 1, contract) == .warning)
        #expect(level(12 * 3600, contract) == .warning)
        #expect(level(12 * 3600 + 1, contract) == .error)
        #expect(level(nil, contract) == .error, "never loaded, with an error bound")
        let warnOnly = FreshnessRule.contract(FreshnessContract(warnAfter: 60, errorAfter: nil))
        #expect(level(1e9, warnOnly) == .warning && level(nil, warnOnly) == .warning)
        let errorOnly = FreshnessRule.contract(FreshnessContract(warnAfter: nil, errorAfter: 60))
        #expect(level(59, errorOnly) == .ok && level(61, errorOnly) == .error)
        // Without a contract: twice the schedule's interval is a warning, never an error.
        #expect(level(7200, .schedule(interval: 3600)) == .ok && level(7201, .schedule(interval: 3600)) == .warning)
        #expect(level(1e9, .schedule(interval: 3600)) == .warning && level(nil, .schedule(interval: 3600)) == .warning)
        #expect(level(nil, .none) == .ok && level(1e9, .none) == .ok)
    }

    @Test func theProblemLineNamesTheAgeAndTheBound() {
        let verdict = FreshnessVerdict.judge(pipeline: "seoul", age: 13 * 3600 + 5 * 60, kind: .issued, rule: contract)
        #expect(verdict.problem?.description == "error: seoul: newest data (issued) is 13h05m old, older than error_after 12h")
        #expect(FreshnessContract.text(5400) == "1h30m" && FreshnessContract.text(129_600) == "1d12h" && FreshnessContract.text(90) == "1m30s")
    }

    @Test func aFailedOrAbandonedRunAndFailingErrorChecksAreErrorsAndWarnChecksWarnings() {
        func run(_ status: String, error: String? = nil) -> PipelineRunSummary {
            PipelineRunSummary(pipeline: "p", run: RunID(7), mode: .live, startedAt: Date(timeIntervalSince1970: 1_709_704_800), finishedAt: nil,
                               status: status, rowsInserted: 0, rowsUpdated: 0, rowsUnchanged: 0, diagnostics: 0, error: error,
                               lastSuccessAt: nil, newestObservedAt: nil)
        }
        let fresh = FreshnessVerdict(rule: .none, level: .ok, problem: nil)
        func check(_ status: CheckResult.Status, _ severity: CheckSeverity) -> CheckResult {
            CheckResult(name: "c", kind: "sql", table: nil, severity: severity, onFailure: .rollback, status: status, failingRows: 1, message: "m")
        }
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: run("succeeded"), checks: [], freshness: fresh).level == .ok)
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: run("running"), checks: [], freshness: fresh).level == .ok)
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: nil, checks: [], freshness: fresh).level == .ok)
        let failed = PipelineVerdict.judge(pipeline: "p", lastRun: run("failed", error: "HTTP 500\nbody"), checks: [], freshness: fresh)
        #expect(failed.problems.map(\.description) == ["error: p: last run 7 failed (started 2024-03-06T06:00:00Z): HTTP 500"])
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: run("abandoned"), checks: [], freshness: fresh).level == .error)
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: run("succeeded"), checks: [check(.failed, .warn), check(.passed, .error)], freshness: fresh).level == .warning)
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: run("succeeded"), checks: [check(.error, .error)], freshness: fresh).level == .error)
        #expect(PipelineVerdict.judge(pipeline: "p", lastRun: run("succeeded"), checks: [check(.skipped, .error)], freshness: fresh).level == .ok)
        // Errors come first, and a control character in a stored error never breaks the line.
        let both = PipelineVerdict.judge(pipeline: "p", lastRun: run("failed", error: "bad\u{1B}[2Jthing"), checks: [check(.failed, .warn)], freshness: fresh)
        #expect(both.problems.map(\.level) == [.error, .warning])
        #expect(!both.problems[0].description.contains("\u{1B}"))
    }
}
