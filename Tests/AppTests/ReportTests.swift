@testable import App
import Domain
import Foundation
import GRDB
import Storage
import Testing
import TestSupport

/// `feedline report`: the model's numbers, the SVG/HTML structure and escaping, and end to end
/// from the fixture feeds.
@Suite struct ReportTests {
    static let generatedAt = Date(timeIntervalSince1970: 1_709_704_800)
    let day = LocalDate(iso: "2024-03-06")!

    func rows(_ station: String, on date: LocalDate, _ values: [Int: (Double?, Double?)]) -> [StationHour] {
        values.sorted { $0.key < $1.key }.map { StationHour(station: station, slot: HourSlot(date: date, hour: $0.key)!, pm10: $0.value.0, pm25: $0.value.1) }
    }

    func model(_ subject: ReportSubject = .station("종로구"), rows: [StationHour], first: LocalDate? = nil, last: LocalDate? = nil,
               profile: WalkingProfile = .wholeHourModerate, postings: [RegionCount]? = nil) -> ReportModel {
        ReportModel.build(subject: subject, subtitle: "서울 · 도시대기", first: first ?? day, last: last ?? day, rows: rows,
                          profile: profile, postingsByRegion: postings, generatedAt: Self.generatedAt)
    }

    // MARK: Model

    @Test func completenessExceedancesAndGradesComeFromTheHoursWithData() {
        // 20 hours: PM10 120 (나쁨, above KR 100 and WHO 45), PM2.5 40 (나쁨, above KR 35 and WHO 15); 4 hours missing.
        var values: [Int: (Double?, Double?)] = [:]
        for h in 0..<20 { values[h] = (120, 40) }
        let m = model(rows: rows("종로구", on: day, values))
        #expect(m.hoursInRange == 24)
        #expect(m.hoursWithData.pm10 == 20 && m.hoursWithData.pm25 == 20)
        #expect(m.days.count == 1 && m.days[0].hoursWithData.pm10 == 20)
        let kr = m.exceedances.first { $0.kind == .pm10 && $0.limit == 100 }!
        #expect(kr.hoursOver == 20 && kr.hoursWithData == 20 && kr.daysOver == 1 && kr.daysJudged == 1)
        let who25 = m.exceedances.first { $0.kind == .pm25 && $0.limit == 15 }!
        #expect(who25.hoursOver == 20 && who25.daysOver == 1)
        #expect(m.gradeHours.pm10[.bad] == 20)
        #expect(m.gradeHours.pm25[.bad] == 20)
    }

    @Test func aDayWithFewerThan18HoursIsNotJudged() {
        var values: [Int: (Double?, Double?)] = [:]
        for h in 0..<17 { values[h] = (300, 100) }
        let m = model(rows: rows("종로구", on: day, values))
        #expect(m.exceedances.allSatisfy { $0.daysJudged == 0 && $0.daysOver == 0 })
        #expect(m.exceedances.allSatisfy { $0.hoursOver == 17 })
    }

    @Test func intakeIsTheDomainCalculatorsAndMissingHoursAreNotZeroed() throws {
        // Default profile: a whole hour at 1.56 m³/h per hour: 40 µg/m³ → 62.4 µg.
        let m = model(rows: rows("종로구", on: day, [8: (40, 20), 9: (nil, 10)]))
        let intake = m.days[0].intake
        #expect(abs(try #require(intake.pm10.micrograms) - 40 * 1.56) < 1e-9)
        #expect(abs(try #require(intake.pm25.micrograms) - 30 * 1.56) < 1e-9)
        #expect(intake.pm10.walkingHoursWithData == 1 && intake.pm10.walkingHours == 24)
        #expect(intake.pm25.walkingHoursWithData == 2)
        // The same numbers straight from Domain.
        let expected = IntakeCalculator(model: InhalationIntakeModel()).daily(
            on: day, concentrations: HourlySeries([HourSlot(date: day, hour: 8)!: 40.0]),
            distances: HourlySeries(Dictionary(uniqueKeysWithValues: day.hourSlots.map { ($0, 5000.0) })))
        #expect(expected.total == intake.pm10)
        // The 7-day total covers D-6…D.
        #expect(m.days[0].intakeWeek.pm10.walkingHours == 7 * 24)

        // A commute profile only counts its hours.
        let commute = model(rows: rows("종로구", on: day, [8: (40, 20), 12: (100, 50)]),
                            profile: WalkingProfile(activity: .moderate, metresPerHour: 2500, speed: 5, hours: [8, 18]))
        // 2500 m at 5 km/h is half an hour; 12:00 is not a walking hour (not counted, whatever
        // its air); 18:00 has no data.
        #expect(abs(try #require(commute.days[0].intake.pm10.micrograms) - 40 * 1.56 * 0.5) < 1e-9)
        #expect(commute.days[0].intake.pm10.walkingHours == 2)
        #expect(commute.days[0].intake.pm10.walkingHoursWithData == 1)
        #expect(commute.days[0].intakeWeek.pm10.walkingHours == 7 * 2)
        // Walking hours none of which has a measurement: no total (a gap in the chart, – in the table), never 0 µg.
        let evening = model(rows: rows("종로구", on: day, [8: (40, 20), 12: (100, 50)]),
                            profile: WalkingProfile(activity: .moderate, metresPerHour: 5000, speed: 5, hours: [20, 21, 22, 23]))
        #expect(evening.days[0].intake.pm10.micrograms == nil && evening.days[0].intake.pm10.walkingHours == 4)
        #expect(evening.days[0].intakeWeek.pm10.micrograms == nil)
        let html = ReportHTML.render(evening, version: "9.9")
        #expect(html.contains("<tr><td>2024-03-06</td><td>–</td><td>–</td><td>0 / 0 of 4</td><td>–</td><td>–</td></tr>"), "\(html)")
    }

    @Test func provinceHoursAreStationMeansAndTheCoarseShareUsesPairedHours() {
        let a = rows("A", on: day, [0: (40, 10), 1: (60, 30)])
        let b = rows("B", on: day, [0: (20, nil), 1: (20, 10)])
        let m = model(.province("서울"), rows: a + b)
        #expect(m.hours[0].pm.pm10 == 30 && m.hours[0].pm.pm25 == 10)
        #expect(m.hours[0].stations.pm10 == 2 && m.hours[0].stations.pm25 == 1)
        #expect(m.stationCount == 2)
        // Paired station-hours: (40,10), (60,30), (20,10) → PM2.5 mean 50/3, coarse mean (30+30+10)/3.
        #expect(abs(m.days[0].pairedPM25! - 50.0 / 3) < 1e-9)
        #expect(abs(m.days[0].pairedCoarse! - 70.0 / 3) < 1e-9)
        #expect(abs(m.days[0].fineShare! - 50.0 / 120) < 1e-9)
        // Station-hours with PM10: 4 of 2 stations × 24 hours.
        #expect(m.stationHourCompleteness.pm10 == 4.0 / 48)
    }

    // MARK: SVG and HTML

    @Test func theHTMLIsSelfContainedWithEveryChartGroupAndKoreanReady() {
        var values: [Int: (Double?, Double?)] = [:]
        for h in 0..<24 { values[h] = (Double(20 + h * 5), Double(5 + h * 2)) }
        let html = ReportHTML.render(model(rows: rows("종로구", on: day, values), postings: [RegionCount(region: "서울", count: 7)]), version: "9.9")
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<meta charset=\"utf-8\">"))
        #expect(html.contains("\"Noto Sans CJK KR\""))
        #expect(html.contains("sans-serif"))
        #expect(!html.contains("http"), "no network references, not even an xmlns URL")
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("<img"))
        for id in ["hourly-pm10", "hourly-pm25", "intake-daily", "intake-weekly", "share", "completeness", "postings-by-region"] {
            #expect(html.contains("<svg class=\"chart\" id=\"chart-\(id)\""), "\(id)")
        }
        for group in ["grade-bands", "axis-x", "axis-y", "limits", "series pm10", "series pm25", "bars", "completeness"] {
            #expect(html.contains("<g class=\"\(group)\">"), "\(group)")
        }
        // Opening and closing tags balance.
        #expect(html.components(separatedBy: "<svg").count == html.components(separatedBy: "</svg>").count)
        #expect(html.components(separatedBy: "<g ").count == html.components(separatedBy: "</g>").count)
        #expect(html.contains("종로구"))
        #expect(html.contains("매우나쁨"))
    }

    @Test func namesAreEscapedInTextAndTitles() {
        let name = "<b>A&B \"역\"</b>"
        let html = ReportHTML.render(model(.station(name), rows: rows(name, on: day, [3: (10, 5)]),
                                           postings: [RegionCount(region: "<i>부산</i>", count: 1)]), version: "1")
        #expect(!html.contains(name))
        #expect(!html.contains("<i>"))
        #expect(html.contains("&lt;b&gt;A&amp;B &quot;역&quot;&lt;/b&gt;"))
        #expect(html.contains("&lt;i&gt;부산&lt;/i&gt;"))
        #expect(escapeHTML("<&>\"'") == "&lt;&amp;&gt;&quot;&#39;")
    }

    @Test func gradeBandsFollowTheTableInForceEachDay() {
        // PM2.5 bands changed on 2018-03-27: a range across it draws two sets of bands.
        let first = LocalDate(iso: "2018-03-26")!, last = LocalDate(iso: "2018-03-27")!
        let m = model(rows: rows("A", on: first, [0: (90, 60)]) + rows("A", on: last, [0: (90, 60)]), first: first, last: last)
        let pm25 = SVGChart.hourly(.pm25, hours: m.hours, id: "x")
        #expect(pm25.components(separatedBy: "class=\"band grade-1\"").count - 1 == 2)
        #expect(pm25.contains("16–35"))          // the current 보통 band labelled on the right
        let pm10 = SVGChart.hourly(.pm10, hours: m.hours, id: "y")
        #expect(pm10.components(separatedBy: "class=\"band grade-1\"").count - 1 == 1)   // PM10 bands did not change
        #expect(pm10.contains("KR 24-h standard 100"))
        #expect(pm10.contains("WHO 24-h 45"))
    }

    @Test func noDataStillRendersAndSaysSo() {
        let html = ReportHTML.render(model(rows: []), version: "1")
        #expect(html.contains("No PM10 data in this range"))
        #expect(html.contains("PM10 has data in 0 of 24 hours"))
        #expect(html.range(of: "\\b(nan|inf|infinity)\\b", options: [.regularExpression, .caseInsensitive]) == nil)
    }

    // MARK: End to end

    func addPosting(_ database: URL) throws {
        var config = Configuration()
        config.foreignKeysEnabled = false
        config.busyMode = .timeout(10)
        try DatabaseQueue(path: database.path, configuration: config).write { db in
            if try !db.tableExists("job_posting_location") {
                try db.execute(sql: "CREATE TABLE job_posting_location (posting_id TEXT, ordinal INTEGER, code TEXT, name TEXT, province TEXT)")
            }
            try db.execute(sql: "INSERT INTO job_posting_location (posting_id, ordinal, code, name, province) VALUES ('t1', 1, 'x', '<부산> & 해운대', '<부산>&')")
        }
    }

    func count(_ database: URL, _ sql: String) throws -> Int {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        return try DatabaseQueue(path: database.path, configuration: config).read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    @Test func fixturesToAReportFile() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let loaded = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        #expect(loaded == .success || loaded == .partial, "\(env.err.text)")

        // Career rows so the postings chart has something to draw (table from the schema, or made here).
        try addPosting(env.database)

        let status = env.feedline.report(ReportRequest(subject: .station("종로구"), from: LocalDate(iso: "2023-05-13"), to: LocalDate(iso: "2023-05-21"),
                                                       output: "out/jongno.html", makeDirectories: true, postings: true), paths: env.paths())
        #expect(status == .success, "\(env.err.text)")
        let file = env.dir.path("out/jongno.html")
        let html = try String(contentsOf: file, encoding: .utf8)
        for id in ["hourly-pm10", "hourly-pm25", "intake-daily", "intake-weekly", "share", "completeness", "postings-by-region"] {
            #expect(html.contains("id=\"chart-\(id)\""), "\(id)")
        }
        #expect(html.contains("<g class=\"grade-bands\">"))
        #expect(html.contains("<g class=\"series pm10\">\n<path"))   // the fixture hours draw a line
        #expect(html.contains("&lt;부산&gt;&amp;"))
        #expect(!html.contains("http"))
        #expect(env.out.text.contains("wrote \(file.path)"))
        // The hours shown match the database.
        let hours = try count(env.database, "SELECT count(pm10) FROM measurement WHERE station_name = '종로구' AND kst_date BETWEEN '2023-05-13' AND '2023-05-21'")
        #expect(env.out.text.contains("hours with PM10 \(hours)/216"))

        // A province, with the default range (its 7 newest days with data).
        #expect(env.feedline.report(ReportRequest(subject: .province("서울"), output: "seoul.html"), paths: env.paths()) == .success)
        let seoul = try String(contentsOf: env.dir.path("seoul.html"), encoding: .utf8)
        #expect(seoul.contains("Province"))
        #expect(seoul.contains("id=\"chart-share\""))
    }

    @Test func unknownStationIsAnErrorNamingKnownOnesAndNothingIsWritten() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths())
        let status = env.feedline.report(ReportRequest(subject: .station("없는역"), output: "x.html"), paths: env.paths())
        #expect(status == .failure)
        #expect(env.err.text.contains("no measurements for station '없는역'"))
        #expect(env.err.text.contains("종로구"))
        #expect(!FileManager.default.fileExists(atPath: env.dir.path("x.html").path))

        let noDatabase = try TestEnvironment()
        defer { noDatabase.dir.remove() }
        #expect(noDatabase.feedline.report(ReportRequest(subject: .station("종로구")), paths: noDatabase.paths()) == .configuration)
    }
}
