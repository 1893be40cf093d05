import Pipeline
import Testing

/// Every check result bounds its sample cells itself, so a store whose evaluator collects whole
/// values (PostgreSQL's) stores the same few hundred bytes as SQLite's.
@Suite struct CheckResultSampleTests {
    @Test func everySampleCellIsBoundedByTheResult() {
        let long = String(repeating: "가", count: 10_000)  // 30,000 bytes of UTF-8
        let result = CheckResult(name: "huge", kind: "sql", table: nil, severity: .error, onFailure: .keep, status: .failed,
                                 failingRows: 1, message: "the query returned rows", sampleColumns: ["value", "n"],
                                 sampleRows: [[.text(long), .integer(7)]])
        guard case .text(let cell) = result.sampleRows[0][0] else { Issue.record("not text: \(result.sampleRows)"); return }
        #expect(cell.hasSuffix("…(cut, 30000 bytes)"))
        #expect(cell.utf8.count <= SampleCell.maximumBytes + "…(cut, 30000 bytes)".utf8.count)
        #expect(cell.hasPrefix("가가가"))
        #expect(result.sampleRows[0][1] == .integer(7))
    }

    @Test func shortCellsStayAsTheyAre() {
        let result = CheckResult(name: "short", kind: "sql", table: nil, severity: .warn, onFailure: .keep, status: .failed,
                                 failingRows: 1, message: "m", sampleColumns: ["a"], sampleRows: [[.text("abc")], [.null], [.real(1.5)]])
        #expect(result.sampleRows == [[.text("abc")], [.null], [.real(1.5)]])
    }
}

extension CheckResultSampleTests {
    @Test func aCellAlreadyCutIsNotCutAgainButALookalikeOverTheBoundIs() {
        let cut = String(repeating: "x", count: 256) + "…(cut, 5000 bytes)"
        #expect(SampleCell.bounded(.text(cut)) == .text(cut))
        let lookalike = String(repeating: "y", count: 400) + "…(cut, 5000 bytes)"
        guard case .text(let bounded) = SampleCell.bounded(.text(lookalike)) else { Issue.record("not text"); return }
        #expect(bounded == String(repeating: "y", count: 256) + "…(cut, \(lookalike.utf8.count) bytes)")
    }
}
