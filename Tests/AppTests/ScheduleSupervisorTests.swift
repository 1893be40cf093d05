@testable import App
import Foundation
import Testing

/// What passes between `feedline schedule`'s supervisor and its scheduling processes.
@Suite("Schedule: supervisor and cycle messages")
struct ScheduleSupervisorTests {
    let cursors = ["sched-seoul": Date(timeIntervalSince1970: 1_764_123_456.789), "a name with spaces": Date(timeIntervalSince1970: 0.5)]

    @Test("a cycle's start state survives the environment variable unchanged")
    func cycleRoundTrip() throws {
        for cycle in [ScheduleCycle(first: true, parent: 42), ScheduleCycle(first: false, parent: 7, cursors: cursors)] {
            #expect(ScheduleCycle(encoded: cycle.encoded) == cycle)
        }
    }

    @Test("a cycle's report survives the pipe unchanged: runs, next fire time or none, stop reason, cursors to the sub-second")
    func reportRoundTrip() throws {
        let reports = [
            CycleOutcome(runs: 0, next: nil, stoppedBy: nil, cursors: [:]),
            CycleOutcome(runs: 3, next: Date(timeIntervalSince1970: 1_798_729_200), stoppedBy: nil, cursors: cursors),
            CycleOutcome(runs: 1, next: nil, stoppedBy: "SIGTERM", cursors: cursors),
        ]
        for report in reports {
            #expect(CycleOutcome(report: report.report) == report)
        }
    }

    @Test("a report cut short or garbled is refused, not read as zero runs")
    func truncatedReportIsRefused() throws {
        let whole = CycleOutcome(runs: 2, next: Date(timeIntervalSince1970: 1_798_729_200), stoppedBy: nil, cursors: cursors).report
        #expect(CycleOutcome(report: whole) != nil)
        #expect(CycleOutcome(report: String(whole.dropLast("end\n".count))) == nil)
        #expect(CycleOutcome(report: "") == nil)
        #expect(CycleOutcome(report: whole.replacingOccurrences(of: "runs 2", with: "runs two")) == nil)
        #expect(CycleOutcome(report: "surprise\n" + whole) == nil)
        #expect(ScheduleCycle(encoded: "first 1") == nil)
        #expect(ScheduleCycle(encoded: "first 1\nparent 9\ncursor soon x") == nil)
    }
}
