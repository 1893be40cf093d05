import Domain
import FeedCore
import Foundation
import GRDB
import Pipeline
import Saramin
import Storage
import Testing
import TestSupport

/// The Saramin fixtures loaded through the runner into a temporary SQLite database, then
/// queried with SQL: postings by region and experience level, child tables, status history,
/// the incremental bookmark; re-loading the same payloads changes nothing.
@Suite("Saramin into SQLite")
struct SaraminStoreTests {
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let runner: PipelineRunner

    init() throws {
        directory = try TemporaryDirectory("saramin-store")
        store = try SQLiteStore(path: directory.path("feedline.sqlite").path, schema: .feedline)
        runner = PipelineRunner(feeds: [SaraminFeed()], store: store, clock: { Date(timeIntervalSince1970: 1_700_000_000) })
    }

    /// Fixture files staged as the App stages a pipeline's fixtures (no request; recognised).
    func staged(_ files: [String]) throws -> [StagedPayload] {
        try files.map { file in
            let url = SaraminFixtures.url(file)
            let payload = try PayloadArchive.payload(forFile: url, request: nil, source: "saramin", operation: "job-search",
                                                     format: nil, fetchedAt: Date(timeIntervalSince1970: 1_700_000_000))
            return StagedPayload(payload: payload, feed: SaraminFeed(), context: DecodeContext(request: nil), archivePath: "fixtures/saramin/" + file)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T { try store.pool.read(body) }

    @Test("postings by region and experience level")
    func postingsByRegionAndExperience() async throws {
        let report = await runner.runStaged("saramin-postings", mode: .fixtures, payloads: try staged(["job-search-sample.json"]))
        #expect(report.succeeded)
        #expect(report.counts.inserted == 5 && report.counts.diagnostics == 1)
        let rows = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT l.province AS region,
                       CASE p.experience_code WHEN 0 THEN '경력무관' WHEN 1 THEN '신입' WHEN 2 THEN '경력'
                                              WHEN 3 THEN '신입/경력' ELSE '미상' END AS experience,
                       count(DISTINCT p.posting_id) AS postings
                FROM job_posting p JOIN job_posting_location l USING (posting_id)
                WHERE p.active = 1
                GROUP BY region, experience
                ORDER BY region, experience
                """)
        }
        let table = rows.map { "\($0["region"] as String)|\($0["experience"] as String)|\($0["postings"] as Int)" }
        #expect(table == ["경기|경력|1", "경기|경력무관|2", "서울|경력|1", "서울|경력무관|1"])
    }

    @Test("timestamps are UTC, sentinel deadlines NULL, multi-valued fields child rows never zipped")
    func columns() async throws {
        let report = await runner.runStaged("saramin-postings", mode: .fixtures, payloads: try staged(["job-search-sample.xml", "quirks.json"]))
        #expect(report.succeeded)
        let first = try #require(try read { db in try Row.fetchOne(db, sql: "SELECT * FROM job_posting WHERE posting_id = '41232704'") })
        #expect(first["posted_at"] as String? == "2021-09-27T09:17:21Z")
        #expect(first["expires_at"] as String? == "2021-10-27T14:59:59Z")
        #expect(first["open_ended"] as Int == 0 && first["experience_code"] as Int? == 2)
        let open = try #require(try read { db in try Row.fetchOne(db, sql: "SELECT * FROM job_posting WHERE posting_id = '41232511'") })
        #expect(open["expires_at"] as String? == nil && open["open_ended"] as Int == 1 && open["close_type_name"] as String? == "상시채용")
        let jobCodes = try read { db in
            try Row.fetchAll(db, sql: "SELECT code, name FROM job_posting_job_code WHERE posting_id = '41232649' ORDER BY ordinal")
        }
        #expect(jobCodes.count == 7)
        #expect(jobCodes.allSatisfy { ($0["code"] as String?) == nil || ($0["name"] as String?) == nil })
        let locations = try read { db in
            try String.fetchAll(db, sql: "SELECT province || ':' || name FROM job_posting_location WHERE posting_id = '90000001' ORDER BY ordinal")
        }
        #expect(locations == ["서울:서울 > 강남구", "서울:서울 > 서초구", "경기:경기 > 경기전체"])
        let salary = try read { db in try Row.fetchOne(db, sql: "SELECT salary_code, salary_name FROM job_posting WHERE posting_id = '41232649'") }
        #expect(salary?["salary_code"] as String? == "101" && salary?["salary_name"] as String? == nil)
        let diagnostics = try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM diagnostic") }
        #expect(diagnostics == report.counts.diagnostics && diagnostics == 9)
    }

    @Test("a second load of the same payloads changes 0 rows; a changed posting is updated, not duplicated, and its status history grows")
    func reloadUpdateAndHistory() async throws {
        let first = await runner.runStaged("saramin-postings", mode: .fixtures, payloads: try staged(["job-search-sample.json", "quirks.xml"]))
        #expect(first.counts.inserted == 12)
        let bookmark = { try self.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM bookmark WHERE pipeline = 'saramin-postings' AND name = ?",
                                arguments: [SaraminFeed.modificationBookmark])
        } }
        #expect(try bookmark() == "1632736070")

        // The same bytes again, forced past the payload index, in the other format: nothing changes.
        let again = await runner.replay("saramin-postings", payloads: try staged(["job-search-sample.xml", "quirks.json"]), unreadable: [], force: true)
        #expect(again.error == nil)
        #expect(again.counts.inserted == 0 && again.counts.updated == 0 && again.counts.unchanged == 12)
        let historyBefore = try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM job_posting_status_history") }
        #expect(historyBefore == 12)

        let updated = await runner.runStaged("saramin-postings", mode: .fixtures, payloads: try staged(["job-search-updated.json"]))
        #expect(updated.counts.updated == 2 && updated.counts.inserted == 0)
        let (postings, changed, history) = try read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM job_posting") ?? -1,
             try Row.fetchOne(db, sql: "SELECT expires_at, open_ended, close_type_code, revision FROM job_posting WHERE posting_id = '41232704'"),
             try Row.fetchAll(db, sql: """
                SELECT close_type_code, expires_at, active FROM job_posting_status_history WHERE posting_id = '41232704' ORDER BY id
                """))
        }
        #expect(postings == 12)
        #expect(changed?["expires_at"] as String? == nil && changed?["open_ended"] as Int? == 1)
        #expect(changed?["close_type_code"] as String? == "2" && changed?["revision"] as Int? == 1)
        #expect(history.map { "\($0["close_type_code"] as String? ?? "-")/\($0["expires_at"] as String? ?? "none")" }
                == ["1/2021-10-27T14:59:59Z", "2/none"])
        let closed = try read { db in
            try Int.fetchAll(db, sql: "SELECT active FROM job_posting_status_history WHERE posting_id = '41232680' ORDER BY id")
        }
        #expect(closed == [1, 0])
        #expect(try bookmark() == "1632830000")
    }

    @Test("an older payload never moves the bookmark back")
    func bookmarkOnlyMovesForward() async throws {
        _ = await runner.runStaged("saramin-postings", mode: .fixtures, payloads: try staged(["job-search-updated.json"]))
        _ = await runner.runStaged("saramin-postings", mode: .fixtures, payloads: try staged(["quirks.json"]))
        let value = try read { db in try String.fetchOne(db, sql: "SELECT value FROM bookmark WHERE name = 'newest_modification_timestamp'") }
        #expect(value == "1632830000")
    }
}
