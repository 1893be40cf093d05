import CareerNet
import Domain
import FeedCore
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// The CareerNet fixtures loaded into a temporary SQLite database through `SQLiteStore`, then
/// queried with SQL: universities per region, departments, the job dictionary; re-loading the
/// same records changes nothing.
@Suite("CareerNet into SQLite")
struct CareerNetStoreTests {
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }

    init() throws {
        directory = try TemporaryDirectory("careernet-store")
        store = try SQLiteStore(path: directory.path("feedline.sqlite").path, schema: .feedline)
    }

    /// Decodes fixtures and writes their records in one load (as the runner does).
    func load(_ files: [String]) throws -> LoadCounts {
        var records: [FeedRecord] = []
        for file in files {
            let result = try CareerNetFixtures.decode(file)
            if let error = result.error { throw error }
            records += result.sink.records
        }
        let run = try store.beginRun(pipeline: "careernet-test", mode: .fixtures, startedAt: clock())
        return try store.load(run: run, finishedAt: clock) { session in
            var counts = LoadCounts()
            for record in records { counts.count(try session.write(record, payload: nil)) }
            return counts
        }
    }

    static let schoolFiles = ["school-univ_list.json", "school-high_list.xml", "school-elem_list.json", "school-midd_list.xml",
                              "school-seet_list.json", "school-alte_list.xml"]

    @Test("universities per region, counting universities and campuses apart")
    func universitiesPerRegion() throws {
        let counts = try load(Self.schoolFiles)
        #expect(counts.inserted == 8 + 2 + 2 + 2 + 2 + 2)
        let rows = try store.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT region, count(DISTINCT name) AS universities, count(*) AS campuses
                FROM school WHERE list = 'univ_list'
                GROUP BY region ORDER BY campuses DESC, region
                """)
        }
        let table = rows.map { "\($0["region"] as String? ?? "?"):\($0["universities"] as Int)/\($0["campuses"] as Int)" }
        #expect(table == ["경기도:3/3", "서울특별시:2/2", "대전광역시:1/1", "부산광역시:1/1", "인천광역시:1/1"])
        let lists = try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT list || '=' || count(*) FROM school GROUP BY list ORDER BY list")
        }
        #expect(lists == ["alte_list=2", "elem_list=2", "high_list=2", "midd_list=2", "seet_list=2", "univ_list=8"])
    }

    @Test("a second load of the same records changes 0 rows; a changed campus is updated, not duplicated")
    func reloadIsIdempotent() throws {
        _ = try load(Self.schoolFiles + ["major-univ_list.xml", "job-job_dic_list.json"])
        let again = try load(Self.schoolFiles.map { $0.hasSuffix(".json") ? $0.replacingOccurrences(of: ".json", with: ".xml") : $0.replacingOccurrences(of: ".xml", with: ".json") }
                             + ["major-univ_list.json", "job-job_dic_list.xml"])
        #expect(again.inserted == 0 && again.updated == 0)
        #expect(again.unchanged == 18 + 3 + 2)

        var school = School(key: "302.0", list: nil, name: "부산보건대학교", campus: "본교", category: "전문대학", kind: "전문대학",
                            establishment: "사립", region: "부산광역시", homepage: "https://www.bhu.ac.kr")
        let run = try store.beginRun(pipeline: "careernet-test", mode: .replay, startedAt: clock())
        let changed = try store.load(run: run, finishedAt: clock) { session in
            var counts = LoadCounts()
            counts.count(try session.write(FeedRecord(school), payload: nil))
            school.homepage = "https://www.bhu.ac.kr"
            counts.count(try session.write(FeedRecord(school), payload: nil))
            return counts
        }
        #expect(changed.updated == 1 && changed.unchanged == 1)
        let row = try #require(try store.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT list, homepage, revision, (SELECT count(*) FROM school WHERE school_key = '302.0') AS n FROM school WHERE school_key = '302.0'")
        })
        #expect(row["list"] as String? == "univ_list")  // a later unknown list never erases a known one
        #expect(row["homepage"] as String? == "https://www.bhu.ac.kr")
        #expect(row["revision"] as Int == 1 && row["n"] as Int == 1)
    }

    @Test("majors keep their departments in a child table; job salary lands in a properly named column")
    func majorsAndJobs() throws {
        _ = try load(["major-univ_list.json", "job-job_dic_list.xml"])
        let departments = try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM major_department WHERE major_seq = '10002' ORDER BY ordinal")
        }
        #expect(departments == ["국어국문학과", "한국어문학과(국어학,문학)"])
        let computing = try store.pool.read { db in
            try String.fetchAll(db, sql: """
                SELECT m.name FROM major m JOIN major_department d USING (major_seq) WHERE d.name = '소프트웨어학과'
                """)
        }
        #expect(computing == ["컴퓨터공학"])
        let salaries = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT job_seq, salary FROM job_info ORDER BY job_seq").map { "\($0["job_seq"] as String)=\($0["salary"] as String? ?? "NULL")" }
        }
        #expect(salaries == ["212=NULL", "375=4000 만원 이상"])

        // Departments that change are replaced, and the major counts as updated.
        let run = try store.beginRun(pipeline: "careernet-test", mode: .replay, startedAt: clock())
        let counts = try store.load(run: run, finishedAt: clock) { session in
            var counts = LoadCounts()
            counts.count(try session.write(FeedRecord((Major(seq: "10002", field: "인문계열", name: "국어국문학",
                                                                 departments: ["국어국문학과"]))), payload: nil))
            return counts
        }
        #expect(counts.updated == 1)
        let after = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM major_department WHERE major_seq = '10002'") }
        #expect(after == 1)
    }
}
