import Domain
import Foundation
import GRDB
import Pipeline
@testable import Storage
import Testing
import TestSupport

/// A check's sample keeps at most `SampleCell.maximumBytes` of each cell, marked as cut, so a
/// check returning a huge value stores a few hundred bytes.
@Suite struct CheckSampleBoundTests {
    let clock = Date(timeIntervalSince1970: 1_709_704_800)
    static let schema = FeedSchema(migrations: [SchemaMigration("sample-bound-v1", sqlite: "CREATE TABLE t (a TEXT);")], writers: [])

    @Test("a check returning a 20 MB blob and a long text stores sample cells no longer than the bound, marked as cut")
    func hugeSampleCellsAreCut() throws {
        let dir = try TemporaryDirectory("sample-bound")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("db.sqlite").path, schema: Self.schema)
        let run = try store.beginRun(pipeline: "test", mode: .fixtures, startedAt: clock)
        let sql = "SELECT zeroblob(20000000) AS big, randomblob(1000) AS random, printf('%.*c', 5000, 'x') AS long, '서울' || printf('%.*c', 300, 'y') AS korean, 'short' AS small, 7 AS n"
        _ = try store.load(run: run, finishedAt: { self.clock }) { session in
            let results = try session.evaluate([DataCheck(name: "huge", kind: .sql(sql), table: nil)],
                                               context: CheckContext(run: run, pipeline: "test", mode: .fixtures, asOf: clock, payloadsLoaded: 1))
            let cells = try #require(results.first?.sampleRows.first)
            for cell in cells {
                if case .text(let text) = cell {
                    #expect(text.utf8.count <= SampleCell.maximumBytes + "…(cut, 20000000 bytes)".utf8.count, "\(text.utf8.count) bytes")
                }
            }
            #expect(cells[0] == .text(String(repeating: "\0", count: 256) + "…(cut, 20000000 bytes)"))
            #expect(cells[2] == .text(String(repeating: "x", count: 256) + "…(cut, 5000 bytes)"))
            // Cut at a character boundary: no replacement character from a split Korean letter.
            if case .text(let korean) = cells[3] { #expect(!korean.contains("\u{FFFD}") && korean.hasSuffix("…(cut, 306 bytes)")) }
            #expect(cells[4] == .text("short") && cells[5] == .integer(7))
            try session.record(results)
            return LoadCounts()
        }
        let stored = try store.pool.read { try String.fetchOne($0, sql: "SELECT sample FROM check_result") } ?? ""
        #expect(stored.utf8.count < 8 * 1024, "the stored sample is \(stored.utf8.count) bytes")
    }

    @Test("bounded: short values unchanged, long text cut at a character boundary")
    func boundedValues() {
        #expect(SampleCell.bounded(.integer(1)) == .integer(1))
        #expect(SampleCell.bounded(.text("abc")) == .text("abc"))
        let long = String(repeating: "가", count: 200)  // 600 bytes
        guard case .text(let cut) = SampleCell.bounded(.text(long)) else { Issue.record("not text"); return }
        #expect(cut == String(repeating: "가", count: 85) + "…(cut, 600 bytes)")
    }
}

extension CheckSampleBoundTests {
    @Test("a check computing a value over the bound is an error naming the bound; the load's limit is restored")
    func oversizedValueInACheck() throws {
        let dir = try TemporaryDirectory("check-value-bound")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("db.sqlite").path, schema: Self.schema)
        let run = try store.beginRun(pipeline: "test", mode: .fixtures, startedAt: clock)
        _ = try store.load(run: run, finishedAt: { self.clock }) { session in
            let results = try session.evaluate([DataCheck(name: "huge", kind: .sql("SELECT length(randomblob(100000000))"), table: nil)],
                                               context: CheckContext(run: run, pipeline: "test", mode: .fixtures, asOf: clock, payloadsLoaded: 1))
            #expect(results.first?.status == .error)
            #expect(results.first?.message.contains("larger than 64 MiB") == true, "\(results.first?.message ?? "")")
            return LoadCounts()
        }
    }
}
