import Domain
import Foundation
import GRDB
import Pipeline
@testable import Storage
import Testing
import TestSupport

/// Every kind of check through the store's port, inside a load: what passes, what fails with
/// which rows, what does not apply, and that the checks never write.
@Suite struct CheckEvaluationTests {
    let clock = Date(timeIntervalSince1970: 1_709_704_800)  // 2024-03-06 06:00 UTC

    /// Two tables of a test feed: readings by station and hour, and the stations.
    static let schema = FeedSchema(migrations: [SchemaMigration("check-tests-v1", sqlite: """
        CREATE TABLE place (name TEXT PRIMARY KEY, kind TEXT);
        CREATE TABLE reading (place TEXT NOT NULL, observed_at TEXT NOT NULL, value REAL, grade INTEGER, note TEXT,
                              UNIQUE (place, observed_at));
        CREATE TABLE loose (a TEXT, b TEXT);
        """)], writers: [])

    static let places: [RowValues] = [RowValues([.text("A"), .text("city")]), RowValues([.text("B"), .text("road")])]
    /// A has 3 of the newest 3 hours, B 1 (one with no value), C is not a place; one grade is 9.
    static let readings: [RowValues] = [
        RowValues([.text("A"), .text("2024-03-06T03:00:00Z"), .real(10), .integer(1), .null]),
        RowValues([.text("A"), .text("2024-03-06T04:00:00Z"), .real(12), .integer(1), .text("")]),
        RowValues([.text("A"), .text("2024-03-06T05:00:00Z"), .real(14), .integer(9), .null]),
        RowValues([.text("B"), .text("2024-03-06T05:00:00Z"), .null, .integer(2), .text("flag")]),
        RowValues([.text("C"), .text("2024-03-06T05:00:00Z"), .real(-1), .integer(2), .null]),
    ]

    /// Loads the rows in one run and evaluates `checks` inside the load (mode `mode`).
    func evaluate(_ checks: [DataCheck], mode: RunMode = .live, payloadsLoaded: Int = 1) throws -> [CheckResult] {
        let dir = try TemporaryDirectory("checks")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("db.sqlite").path, schema: Self.schema)
        let run = try store.beginRun(pipeline: "test", mode: mode, startedAt: clock)
        var results: [CheckResult] = []
        _ = try store.load(run: run, finishedAt: { self.clock }) { session in
            for place in Self.places { try session.insert(into: "place", columns: ["name", "kind"], place) }
            for reading in Self.readings { try session.insert(into: "reading", columns: ["place", "observed_at", "value", "grade", "note"], reading) }
            results = try session.evaluate(checks, context: CheckContext(run: run, pipeline: "test", mode: mode, asOf: clock, payloadsLoaded: payloadsLoaded))
            // The checks left the connection writable for the rest of the load.
            try session.insert(into: "loose", columns: ["a", "b"], RowValues([.text("after"), .null]))
            return LoadCounts()
        }
        return results
    }

    func one(_ kind: DataCheck.Kind, table: String? = "reading", filter: String? = nil, mode: RunMode = .live, payloadsLoaded: Int = 1) throws -> CheckResult {
        try #require(try evaluate([DataCheck(name: "c", kind: kind, table: table, filter: filter)], mode: mode, payloadsLoaded: payloadsLoaded).first)
    }

    @Test func rowChecksCountTheRowsThatBreakThemAndKeepASampleWithTheKey() throws {
        let notNull = try one(.notNull(columns: ["value"]))
        #expect(notNull.status == .failed && notNull.failingRows == 1)
        #expect(notNull.sampleColumns == ["place", "observed_at", "value"])
        #expect(notNull.sampleRows == [[.text("B"), .text("2024-03-06T05:00:00Z"), .null]])
        #expect(notNull.message == "1 row of reading has NULL in value")

        #expect(try one(.notNull(columns: ["value"]), filter: "place = 'A'").status == .passed)

        let unique = try one(.unique(columns: ["observed_at"]))
        #expect(unique.status == .failed && unique.failingRows == 1)
        #expect(unique.sampleColumns == ["observed_at", "occurrences"] && unique.sampleRows == [[.text("2024-03-06T05:00:00Z"), .integer(3)]])
        #expect(try one(.unique(columns: ["place", "observed_at"])).status == .passed)
        // NULLs do not collide, as with SQL's UNIQUE.
        #expect(try one(.unique(columns: ["note"])).status == .passed)

        // Numbers compare as numbers: grade 9 is the one outside 1…4.
        let values = try one(.acceptedValues(column: "grade", values: ["1", "2", "3", "4"]))
        #expect(values.failingRows == 1 && values.sampleRows.first?.last == .integer(9))
        // Text stays text, and the empty string is a value of its own; NULL is not judged.
        let notes = try one(.acceptedValues(column: "note", values: ["flag"]))
        #expect(notes.failingRows == 1 && notes.sampleRows.first?.last == .text(""))

        let range = try one(.acceptedRange(column: "value", min: 0, max: 12, minInclusive: true, maxInclusive: false))
        #expect(range.failingRows == 3, "-1 below, 12 at the excluded max, 14 above")
        #expect(range.message == "3 rows of reading hold a value that is not at least 0 and below 12")

        let related = try one(.relationships(column: "place", to: "place", toColumn: "name"))
        #expect(related.status == .failed && related.failingRows == 1 && related.sampleRows.first?.first == .text("C"))
    }

    @Test func aggregateChecksJudgeTheWholeAndSayWhy() throws {
        let count = try one(.rowCount(min: 1, max: 4))
        #expect(count.status == .failed && count.failingRows == nil)
        #expect(count.message == "the run wrote 5 rows to reading; expected between 1 and 4")
        #expect(try one(.rowCount(min: 5, max: nil)).status == .passed)
        #expect(try one(.rowCount(min: 1, max: nil), table: "loose").status == .failed, "nothing was written to it before the checks")
        let nothingNew = try one(.rowCount(min: 1, max: nil), payloadsLoaded: 0)
        #expect(nothingNew.status == .skipped)

        let fresh = try one(.freshness(column: "observed_at", maxAge: 3600))
        #expect(fresh.status == .passed && fresh.message == "the newest reading.observed_at is 2024-03-06T05:00:00Z, 1h00m old (limit 1h00m)")
        let stale = try one(.freshness(column: "observed_at", maxAge: 1800), filter: "place = 'A' AND observed_at < '2024-03-06T05'")
        #expect(stale.status == .failed && stale.message.contains("2024-03-06T04:00:00Z, 2h00m old (limit 30m)"), "\(stale.message)")
        #expect(try one(.freshness(column: "observed_at", maxAge: 60), mode: .fixtures).status == .skipped)
        #expect(try one(.freshness(column: "observed_at", maxAge: 60), filter: "place = 'Z'").status == .failed)

        // Newest 3 hours: A, B and C were seen; A has 3 hours with a value, B none, C 1 → 4 of 9.
        let complete = try one(.completeness(entity: "place", time: "observed_at", column: "value", hours: 3, min: 0.5))
        #expect(complete.status == .failed && complete.failingRows == 5)
        #expect(complete.message.hasPrefix("44.4% of the expected station-hours in the newest 3 hours of reading are present (4 of 9"), "\(complete.message)")
        #expect(complete.sampleRows.first == [.text("B"), .integer(0), .integer(3)])
        #expect(try one(.completeness(entity: "place", time: "observed_at", column: nil, hours: 3, min: 0.5)).status == .passed)
    }

    @Test func customSQLMustReturnNoRowsAndMayOnlyRead() throws {
        let found = try one(.sql("SELECT place, value FROM reading WHERE value < 0 AND :pipeline = 'test' AND :run_id > 0"), table: nil)
        #expect(found.status == .failed && found.failingRows == 1 && found.sampleRows == [[.text("C"), .real(-1)]])
        #expect(try one(.sql("SELECT 1 WHERE 0"), table: nil).status == .passed)

        let writes = try one(.sql("DELETE FROM reading"), table: nil)
        #expect(writes.status == .error && writes.message.contains("a check's SQL is read-only"), "\(writes.message)")
        let parameter = try one(.sql("SELECT * FROM reading WHERE place = :place"), table: nil)
        #expect(parameter.status == .error && parameter.message.contains(":place"))
        // A statement that fails while it runs is an error, and the next check still runs.
        let results = try evaluate([DataCheck(name: "bad", kind: .sql("SELECT json(place) FROM reading"), table: nil),
                                    DataCheck(name: "good", kind: .notNull(columns: ["place"]), table: "reading")])
        #expect(results.map(\.status) == [.error, .passed])
    }

    @Test func resultsAreRecordedAndReadBackInOrder() throws {
        let dir = try TemporaryDirectory("check-results")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("db.sqlite").path, schema: Self.schema)
        let run = try store.beginRun(pipeline: "test", mode: .fixtures, startedAt: clock)
        let checks = [DataCheck(name: "b-second", kind: .notNull(columns: ["value"]), table: "reading", severity: .warn),
                      DataCheck(name: "a-first", kind: .rowCount(min: 1, max: nil), table: "reading", onFailure: .keep)]
        _ = try store.load(run: run, finishedAt: { self.clock }) { session in
            for reading in Self.readings { try session.insert(into: "reading", columns: ["place", "observed_at", "value", "grade", "note"], reading) }
            let results = try session.evaluate(checks, context: CheckContext(run: run, pipeline: "test", mode: .fixtures, asOf: clock, payloadsLoaded: 1))
            try session.record(results)
            session.markFailed("flagged by a test")
            return LoadCounts()
        }
        let read = try store.checkResults(run: run)
        #expect(read.map(\.name) == ["b-second", "a-first"])
        #expect(read.map(\.status) == [.failed, .passed])
        #expect(read[0].severity == .warn && read[0].failingRows == 1 && read[1].onFailure == .keep && read[1].failingRows == nil)
        let (status, error, sample) = try store.pool.read { db in
            (try String.fetchOne(db, sql: "SELECT status FROM run"), try String.fetchOne(db, sql: "SELECT error FROM run"),
             try String.fetchOne(db, sql: "SELECT sample FROM check_result WHERE check_name = 'b-second'"))
        }
        #expect(status == "failed" && error == "flagged by a test")
        #expect(sample == #"[{"place":"B","observed_at":"2024-03-06T05:00:00Z","value":null}]"#)
        // The rows of a run marked failed this way are kept.
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM reading") } == 5)
    }

    @Test func theSchemaProbeKnowsEveryTableAndColumnAndPreparesWhatChecksRun() throws {
        let probe = try StoreSchemaProbe.shared(schema: Self.schema)
        #expect(probe.columns(of: "reading") == ["place", "observed_at", "value", "grade", "note"])
        #expect(probe.columns(of: "run")?.contains("pipeline") == true, "feedline's own tables are declared")
        #expect(probe.columns(of: "nope") == nil)
        #expect(probe.key(of: "reading") == ["place", "observed_at"] && probe.key(of: "place") == ["name"] && probe.key(of: "loose").isEmpty)
        #expect(probe.relations.contains("check_result"))
        #expect(probe.problem(withCheckSQL: "SELECT * FROM reading") == nil)
        #expect(probe.problem(withCheckSQL: "UPDATE reading SET value = 0")?.contains("read-only") == true)
        #expect(probe.problem(withCheckSQL: "SELECT * FROM readings")?.contains("no such table") == true)
        #expect(probe.problem(withFilter: "value > 0", on: "reading") == nil)
        #expect(probe.problem(withFilter: "valeu > 0", on: "reading")?.contains("no such column") == true)
        #expect(probe.problem(withFilter: "1); DELETE FROM reading; --", on: "reading") != nil)
        #expect(probe.problem(with: DataCheck(name: "x", kind: .completeness(entity: "place", time: "observed_at", column: nil, hours: 24, min: 1),
                                              table: "reading")) == nil)
        #expect(try StoreSchemaProbe.shared(schema: Self.schema) === probe, "one probe per schema and process")
    }

    @Test func aWhereIsOneConditionNeverAPieceOfStatement() {
        #expect(StoreSchemaProbe.shapeProblem("sido = '서울' AND (pm10 > 100 OR pm25 > 35)") == nil)
        #expect(StoreSchemaProbe.shapeProblem("note = 'a ) -- ; not code'") == nil)
        #expect(StoreSchemaProbe.shapeProblem("x = 1) OR (1") != nil)
        #expect(StoreSchemaProbe.shapeProblem("x = 1 --") != nil)
        #expect(StoreSchemaProbe.shapeProblem("x = 1 /* c */") != nil)
        #expect(StoreSchemaProbe.shapeProblem("x = 1; DELETE FROM run") != nil)
        #expect(StoreSchemaProbe.shapeProblem("(x = 1") != nil)
        #expect(StoreSchemaProbe.shapeProblem("x = 'open") != nil)
    }
}
