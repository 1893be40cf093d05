@testable import App
import Domain
import Foundation
import GRDB
import Storage
import Testing
import TestSupport

/// `feedline report` defaults: the range follows the subject's own data, a sparse range says so,
/// station and province reports show what fits them (no "Station 1" card, a station ranking),
/// job postings only with `--postings`, and one number format throughout.
@Suite struct ReportDefaultsTests {
    static let generatedAt = Date(timeIntervalSince1970: 1_709_704_800)

    /// A writable connection to a test database (foreign keys off, as the sqlite3 shell has them).
    func writer(_ database: URL) throws -> DatabaseQueue {
        var config = Configuration()
        config.foreignKeysEnabled = false
        config.busyMode = .timeout(10)
        return try DatabaseQueue(path: database.path, configuration: config)
    }

    func date(_ iso: String) -> LocalDate { LocalDate(iso: iso)! }

    func hours(_ station: String, on day: String, _ range: Range<Int>, pm10: Double?, pm25: Double?) -> [StationHour] {
        range.map { StationHour(station: station, slot: HourSlot(date: date(day), hour: $0)!, pm10: pm10, pm25: pm25) }
    }

    func model(_ subject: ReportSubject, rows: [StationHour], first: String, last: String,
               postings: [RegionCount]? = nil) -> ReportModel {
        ReportModel.build(subject: subject, subtitle: "test", first: date(first), last: date(last), rows: rows,
                          profile: .wholeHourModerate, postingsByRegion: postings, generatedAt: Self.generatedAt)
    }

    // MARK: Range

    @Test func theDefaultRangeSpansTheNewestDaysWithDataAndNoPaddingDays() {
        let newestFirst = ["2023-05-21", "2023-05-20", "2023-05-14", "2023-05-13"].map(date)
        let request = ReportRequest(subject: .station("종로구"))
        #expect(request.range(newest: date("2023-05-21"), dataDays: newestFirst) == (date("2023-05-13"), date("2023-05-21")))

        // --days counts days with data, not calendar days.
        var two = request
        two.days = 2
        #expect(two.range(newest: date("2023-05-21"), dataDays: Array(newestFirst.prefix(2))) == (date("2023-05-20"), date("2023-05-21")))

        // --to: the days with data up to it (the caller reads them through --to); the range ends on --to.
        var to = request
        to.to = date("2023-05-16")
        #expect(to.range(newest: date("2023-05-21"), dataDays: ["2023-05-14", "2023-05-13"].map(date)) == (date("2023-05-13"), date("2023-05-16")))

        // --from: the range runs to the newest day with data.
        var from = request
        from.from = date("2023-05-01")
        #expect(from.range(newest: date("2023-05-22"), dataDays: [date("2023-05-21")]) == (date("2023-05-01"), date("2023-05-21")))

        // A data day more than a year before the newest is left out rather than stretching the range.
        let old = [date("2023-05-21"), date("2018-01-04")]
        #expect(request.range(newest: date("2023-05-21"), dataDays: old) == (date("2023-05-21"), date("2023-05-21")))

        // No PM data at all: the calendar days ending on the newest row.
        #expect(request.range(newest: date("2023-05-21"), dataDays: []) == (date("2023-05-15"), date("2023-05-21")))
    }

    @Test func fixtureReportsDefaultToTheirOwnDataDays() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let loaded = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        #expect(loaded == .success || loaded == .partial, "\(env.err.text)")
        // Another province with newer data must not move 서울's or 경기's range.
        try await writer(env.database).write { db in
            try db.execute(sql: """
                INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, sido, pm10, pm25)
                VALUES ('합성역', '2024-03-01T03:00:00Z', '2024-03-01', 12, '2024-03-01 13:00', '합성', 40, 20)
                """)
        }

        // 서울's data days: 2018-01-04 and four days in May 2023; the range is the May days (the
        // 2018 day is over a year older), from the first data day to the last, no padding.
        let seoulStatus = env.feedline.report(ReportRequest(subject: .province("서울"), output: "seoul.html"), paths: env.paths())
        #expect(seoulStatus == .success, "\(env.err.text)")
        #expect(env.out.text.contains("2023-05-13 – 2023-05-21"), "\(env.out.text)")
        let seoul = try String(contentsOf: env.dir.path("seoul.html"), encoding: .utf8)
        #expect(seoul.contains("<section id=\"station-ranking\">"))
        #expect(seoul.contains("id=\"sparse\""))
        #expect(!seoul.contains("id=\"chart-postings-by-region\""))

        // 경기 has one day of data: a one-day report, not six empty days before it.
        #expect(env.feedline.report(ReportRequest(subject: .province("경기"), output: "gg.html"), paths: env.paths()) == .success)
        #expect(env.out.text.contains("gg.html  2023-05-14 – 2023-05-14"), "\(env.out.text)")

        // A station: its own newest days, and the sparse note on standard error too.
        #expect(env.feedline.report(ReportRequest(subject: .station("종로구"), output: "jongno.html"), paths: env.paths()) == .success)
        #expect(env.out.text.contains("jongno.html  2023-05-13 – 2023-05-21  hours with PM10 9/216"), "\(env.out.text)")
        #expect(env.err.text.contains("note: Sparse range: only 9 of 216 hours have PM data (4.2%); 5 of 9 days have none."), "\(env.err.text)")
        let jongno = try String(contentsOf: env.dir.path("jongno.html"), encoding: .utf8)
        #expect(!jongno.contains("station-ranking"))
        #expect(jongno.contains("Days with data"))
    }

    @Test func jobPostingsAppearOnlyWhenAskedFor() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        try await writer(env.database).write { db in
            if try !db.tableExists("job_posting_location") {
                try db.execute(sql: "CREATE TABLE job_posting_location (posting_id TEXT, ordinal INTEGER, code TEXT, name TEXT, province TEXT)")
            }
            try db.execute(sql: "INSERT INTO job_posting_location (posting_id, ordinal, code, name, province) VALUES ('p1', 1, 'x', '해운대', '부산')")
        }
        #expect(env.feedline.report(ReportRequest(subject: .station("종로구"), output: "plain.html"), paths: env.paths()) == .success)
        let plain = try String(contentsOf: env.dir.path("plain.html"), encoding: .utf8)
        #expect(!plain.contains("id=\"careers\""))
        #expect(!plain.contains("Job postings"))

        #expect(env.feedline.report(ReportRequest(subject: .station("종로구"), output: "jobs.html", postings: true), paths: env.paths()) == .success)
        let jobs = try String(contentsOf: env.dir.path("jobs.html"), encoding: .utf8)
        #expect(jobs.contains("id=\"chart-postings-by-region\""))
    }

    @Test func askingForPostingsWithoutCareerDataSaysSo() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths())
        #expect(env.feedline.report(ReportRequest(subject: .station("종로구"), output: "r.html", postings: true), paths: env.paths()) == .success)
        #expect(env.err.text.contains("note: --postings: no job postings are loaded"))
    }

    // MARK: Page

    @Test func aSparseRangeIsNamedAtTheTopAndADenseOneIsNot() {
        let sparse = model(.station("A"), rows: hours("A", on: "2024-03-07", 0..<5, pm10: 30, pm25: 10), first: "2024-03-01", last: "2024-03-07")
        #expect(sparse.isSparse)
        let html = ReportHTML.render(sparse, version: "1")
        #expect(html.contains("<p class=\"sparse\" id=\"sparse\">Sparse range: only 5 of 168 hours have PM data (3.0%); 6 of 7 days have none."))
        #expect(html.range(of: "id=\"sparse\"")!.lowerBound < html.range(of: "id=\"summary\"")!.lowerBound, "the note comes before the cards")

        let dense = model(.station("A"), rows: hours("A", on: "2024-03-07", 0..<18, pm10: 30, pm25: 10), first: "2024-03-07", last: "2024-03-07")
        #expect(!dense.isSparse)
        #expect(!ReportHTML.render(dense, version: "1").contains("id=\"sparse\""))
    }

    @Test func aStationReportHasNoStationCountCardAndAProvinceRanksItsStations() {
        let station = ReportHTML.render(model(.station("A"), rows: hours("A", on: "2024-03-07", 0..<24, pm10: 30, pm25: 10),
                                              first: "2024-03-07", last: "2024-03-07"), version: "1")
        #expect(!station.contains("<div class=\"k\">Station</div>"))
        #expect(station.contains("<div class=\"k\">Days with data</div><div class=\"v\">1 / 1</div>"))
        #expect(!station.contains("station-ranking"))

        let rows = hours("B", on: "2024-03-07", 0..<10, pm10: 80, pm25: 30)
            + hours("A", on: "2024-03-07", 0..<24, pm10: 20.25, pm25: 5)
            + hours("C", on: "2024-03-07", 0..<3, pm10: nil, pm25: 50)
            + hours("D", on: "2024-03-07", 0..<3, pm10: 80, pm25: 40)
        let province = model(.province("서울"), rows: rows, first: "2024-03-07", last: "2024-03-07")
        #expect(province.stations.map(\.station) == ["D", "B", "A", "C"], "PM10 high to low, then PM2.5; no PM10 last")
        #expect(province.stations[2].hoursWithData == DustPair(pm10: 24, pm25: 24))
        let html = ReportHTML.render(province, version: "1")
        #expect(html.contains("<div class=\"k\">Stations</div><div class=\"v\">4</div>"))
        #expect(html.contains("<tr><td>1</td><td class=\"station\">D</td><td>80.0</td><td>40.0</td><td>3</td><td>3</td></tr>"))
        #expect(html.contains("<tr><td>3</td><td class=\"station\">A</td><td>20.3</td><td>5.0</td><td>24</td><td>24</td></tr>"))
        #expect(html.contains("<tr><td>4</td><td class=\"station\">C</td><td>–</td><td>50.0</td><td>0</td><td>3</td></tr>"))
    }

    // MARK: Numbers

    @Test func numbersHaveGroupedThousandsAndFixedDecimalsPerUnit() {
        #expect(ReportFormat.count(46080) == "46,080")
        #expect(ReportFormat.count(999) == "999")
        #expect(ReportFormat.count(-1_234_567) == "-1,234,567")
        #expect(ReportFormat.quantity(46080.4, .micrograms) == "46,080 µg")
        #expect(ReportFormat.quantity(35, .concentration) == "35.0 µg/m³")
        #expect(ReportFormat.quantity(1234.56, .concentration) == "1,234.6 µg/m³")
        #expect(ReportFormat.quantity(1.56, .cubicMetresPerHour) == "1.56 m³/h")
        #expect(ReportFormat.quantity(5000, .metres) == "5,000 m")
        #expect(ReportFormat.quantity(5, .kilometresPerHour) == "5.0 km/h")
        #expect(ReportFormat.percent(0.714) == "71.4%")
        #expect(ReportFormat.percent(9, of: 216) == "4.2%")
        #expect(ReportFormat.percent(1, of: 0) == "–")
        #expect(ReportFormat.number(-0.04, decimals: 1) == "0.0")
        #expect(ReportFormat.number(.nan, decimals: 1) == "–")
        #expect(ReportFormat.number(.infinity, decimals: 0) == "–")
        #expect(ReportFormat.tick(2.5, step: 2.5) == "2.5" && ReportFormat.tick(10000, step: 2000) == "10,000")
    }

    @Test func theReportPrintsIntakeWithGroupedThousandsAndConcentrationsWithOneDecimal() {
        // 7 days × 24 h at PM10 300 µg/m³, 1.56 m³/h: 11,232 µg a day, 78,624 µg a week.
        let rows = (1...7).flatMap { hours("A", on: "2024-03-0\($0)", 0..<24, pm10: 300, pm25: 40) }
        let html = ReportHTML.render(model(.station("A"), rows: rows, first: "2024-03-01", last: "2024-03-07"), version: "1")
        #expect(html.contains("<td>2024-03-07</td><td>11,232</td><td>1,498</td><td>24 / 24 of 24</td><td>78,624</td><td>10,483</td>"))
        #expect(html.contains("<div class=\"v\">300.0 µg/m³</div>"))
        #expect(html.contains("PM10 2024-03-07: 11,232 µg"))
        #expect(html.contains("1.56 m³/h") && html.contains("5,000 m in every hour of the day at 5.0 km/h"))
        #expect(!html.contains("11232"), "no ungrouped thousands")
    }
}
