@testable import App
import Domain
import Foundation
import GRDB
import Testing
import TestSupport

/// Derived indices and intake: the SQL views and the `intake` command agree with the Domain
/// model on the fixture data.
@Suite struct IntakeTests {
    @Test func exposureViewsAndTheIntakeCommandAgreeWithTheDomainModel() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths()) == .success)

        let queue = try openForAssertions(env.database.path)
        let row = try queue.read { db in
            try Row.fetchOne(db, sql: """
                SELECT pm10_ug, pm10_hours, pm25_ug, pm25_hours FROM exposure_daily
                WHERE station_name = '종로구' AND kst_date = '2023-05-13' AND activity = 'moderate'
                """)
        }
        let pm = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT kst_hour, pm10, pm25 FROM measurement WHERE station_name = '종로구' AND kst_date = '2023-05-13'")
        }
        // The Domain model for a whole hour of moderate activity (5 km at 5 km/h).
        let model = InhalationIntakeModel(walkingActivity: .moderate)
        let expected10 = pm.compactMap { ($0["pm10"] as Double?).flatMap { model.intakeMicrograms(concentration: $0, distanceMetres: 5000) } }.reduce(0, +)
        let expected25 = pm.compactMap { ($0["pm25"] as Double?).flatMap { model.intakeMicrograms(concentration: $0, distanceMetres: 5000) } }.reduce(0, +)
        let pm10ug: Double = try #require(row?["pm10_ug"])
        let pm25ug: Double = try #require(row?["pm25_ug"])
        #expect(abs(pm10ug - expected10) < 1e-9)
        #expect(abs(pm25ug - expected25) < 1e-9)
        #expect(row?["pm10_hours"] as Int? == pm.filter { ($0["pm10"] as Double?) != nil }.count)
        #expect(row?["pm25_hours"] as Int? == pm.filter { ($0["pm25"] as Double?) != nil }.count)

        let request = IntakeRequest(station: "종로구", date: LocalDate(iso: "2023-05-13")!, activity: .moderate,
                                    metresPerHour: 5000, speed: 5, hours: Array(0...23), legacy: false)
        #expect(env.feedline.intake(request, paths: env.paths()) == .success)
        let hoursWithPM10 = row?["pm10_hours"] as Int? ?? -1
        #expect(env.out.text.contains(String(format: "PM10 %.1f µg (%d/24 walking hours)", expected10, hoursWithPM10)), "\(env.out.text)")
        #expect(env.out.text.contains("- (0/24 walking hours)"), "days without data are not shown as 0")

        var legacy = request
        legacy.legacy = true
        legacy.metresPerHour = 1000
        #expect(env.feedline.intake(legacy, paths: env.paths()) == .success)
        #expect(env.out.text.contains("LEGACY"))

        var unknown = request
        unknown.station = "없는역"
        #expect(env.feedline.intake(unknown, paths: env.paths()) == .failure)
        #expect(env.err.text.contains("없는역"))
    }

    @Test func transformStoresOurGradesAndTheAgreementViewComparesThem() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: [], source: .fixtures, paths: env.paths()) == .success)
        let queue = try openForAssertions(env.database.path)
        try await queue.read { db in
            // Our 1-hour grade follows the table in force: for 2023 data PM2.5 36 µg/m³ is 나쁨 (3).
            let mismatchedWithoutDiagnostic = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM measurement m WHERE pm10_grade_1h <> our_pm10_grade_1h
                AND NOT EXISTS (SELECT 1 FROM diagnostic d WHERE d.code = 'grade-mismatch'
                                AND d.location = m.station_name || ' ' || m.data_time AND d.message LIKE '%pm10Grade1h%')
                """)
            #expect(mismatchedWithoutDiagnostic == 0, "every disagreement is recorded as a diagnostic")
            let fields = try String.fetchAll(db, sql: "SELECT field FROM grade_agreement")
            #expect(fields == ["pm10Grade", "pm25Grade", "pm10Grade1h", "pm25Grade1h", "khaiGrade"])
            let checked = try Int.fetchOne(db, sql: "SELECT sum(checked) FROM grade_agreement") ?? 0
            #expect(checked > 0)
            let ourGrades = try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement WHERE pm10 IS NOT NULL AND our_pm10_grade_1h IS NULL")
            #expect(ourGrades == 0)
        }
    }

    // MARK: - Totals cover the walking hours

    /// The Jongno fixtures replayed into a temporary database: 2023-05-20 has values for the
    /// hours starting 21, 22 and 23 KST (PM10 29, 31, 27; PM2.5 13, 12, 11 µg/m³) and none before;
    /// 2023-05-15 has none at all.
    func jongno() async throws -> TestEnvironment {
        let env = try TestEnvironment()
        #expect(await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        env.out.clear()
        return env
    }

    /// `feedline intake ARGS…` as the command line parses it, through the console.
    func intake(_ env: TestEnvironment, _ arguments: [String], json: Bool = false) throws -> (App.ExitStatus, String) {
        let command = try #require(try FeedlineCommand.parseAsRoot(["intake"] + arguments) as? IntakeCommand)
        env.out.clear()
        let status = env.feedline.intake(command.request, paths: env.paths(), json: json || command.json)
        return (status, env.out.text)
    }

    @Test func intakeCountsOnlyWalkingHoursAndPrintsADashForNoData() async throws {
        let env = try await jongno()
        defer { env.dir.remove() }
        let (status, text) = try intake(env, ["--station", "종로구", "--date", "2023-05-20", "--hours", "20-23"])
        #expect(status == .success)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Only the walking hours are listed; hour 20 has no measurement.
        let hourRows = lines.filter { $0.hasPrefix("            ") }
        #expect(hourRows.map { $0.split(separator: " ").first.map(String.init) } == ["20", "21", "22", "23"], "\(text)")
        #expect(hourRows[0].split(separator: " ") == ["20", "-", "-", "-", "-"])
        #expect(hourRows[1].split(separator: " ") == ["21", "29", "13", "45.2", "20.3"])
        // 1.56 m³/h × 1 h × (29 + 31 + 27) = 135.72 µg; PM2.5 × (13 + 12 + 11) = 56.16 µg.
        #expect(lines.contains("day total   PM10 135.7 µg (3/4 walking hours)   PM2.5 56.2 µg (3/4 walking hours)"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("2023-05-15   - (0/4 walking hours)") && $0.hasSuffix("   - (0/4 walking hours)") }, "\(text)")
        #expect(lines.contains("week total  PM10 135.7 µg (3/28 walking hours)   PM2.5 56.2 µg (3/28 walking hours)"), "\(text)")
        #expect(lines.contains("daily average (week ÷ days with data)  PM10 135.7 µg (1/7 days)   PM2.5 56.2 µg (1/7 days)"), "\(text)")
        #expect(!text.contains("0.0 µg"), "no hour or day is shown as 0 µg: \(text)")

        // A day none of whose walking hours has a measurement.
        let (_, empty) = try intake(env, ["--station", "종로구", "--date", "2023-05-15", "--hours", "20-23"])
        #expect(empty.contains("day total   PM10 - (0/4 walking hours)   PM2.5 - (0/4 walking hours)"), "\(empty)")
        #expect(empty.contains("week total  PM10 - (0/28 walking hours)"), "\(empty)")
        #expect(empty.contains("today ÷ week  PM10 -   PM2.5 -") && empty.contains("PM10 - (0/7 days)"), "\(empty)")
    }

    @Test func intakeJSONCountsWalkingHoursAndIsNullForNoData() async throws {
        let env = try await jongno()
        defer { env.dir.remove() }
        func object(_ date: String) throws -> [String: Any] {
            let (status, text) = try intake(env, ["--station", "종로구", "--date", date, "--hours", "20-23", "--json"])
            #expect(status == .success)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        func total(_ value: Any?) throws -> (ug: Any?, withData: Int?, expected: Int?) {
            let t = try #require(value as? [String: Any])
            return (t["ug"], t["hours_with_data"] as? Int, t["hours_expected"] as? Int)
        }
        let partial = try object("2023-05-20")
        let hours = try #require(partial["hours"] as? [[String: Any]])
        #expect(hours.map { $0["hour"] as? Int } == [20, 21, 22, 23])
        #expect(hours[0]["pm10_ug"] is NSNull && hours[0]["pm10_ug_m3"] is NSNull)
        let day = try total((partial["day"] as? [String: Any])?["pm10"])
        #expect(day.ug as? Double == 135.72 && day.withData == 3 && day.expected == 4)
        let days = try #require(partial["days"] as? [[String: Any]])
        #expect(days.map { $0["date"] as? String } == (14...20).map { "2023-05-\($0)" })
        let may15 = try total(days[1]["pm10"])
        #expect(may15.ug is NSNull && may15.withData == 0 && may15.expected == 4)
        let week = try #require(partial["week"] as? [String: Any])
        #expect(try total(week["pm10"]).withData == 3 && (try total(week["pm10"]).expected) == 28)
        #expect((week["days_with_data"] as? [String: Any])?["pm10"] as? Int == 1)
        #expect((week["daily_average_ug"] as? [String: Any])?["pm10"] as? Double == 135.72)

        let none = try object("2023-05-15")
        let noneDay = try total((none["day"] as? [String: Any])?["pm25"])
        #expect(noneDay.ug is NSNull && noneDay.withData == 0 && noneDay.expected == 4)
        let noneWeek = try #require(none["week"] as? [String: Any])
        #expect(try total(noneWeek["pm10"]).ug is NSNull)
        #expect((noneWeek["today_share"] as? [String: Any])?["pm10"] is NSNull)
        #expect((noneWeek["daily_average_ug"] as? [String: Any])?["pm10"] is NSNull)
    }

    @Test func theReportShowsTheSameWalkingHourTotals() async throws {
        let env = try await jongno()
        defer { env.dir.remove() }
        let profile = WalkingProfile(activity: .moderate, metresPerHour: 5000, speed: 5, hours: [20, 21, 22, 23])
        let file = env.dir.path("report.html")
        let request = ReportRequest(subject: .station("종로구"), from: LocalDate(iso: "2023-05-14"), to: LocalDate(iso: "2023-05-20"),
                                    output: file.path, profile: profile)
        #expect(env.feedline.report(request, paths: env.paths()) == .success, "\(env.err.text)")
        let html = try String(contentsOf: file, encoding: .utf8)
        #expect(html.contains("<tr><td>2023-05-20</td><td>136</td><td>56</td><td>3 / 3 of 4</td><td>136</td><td>56</td></tr>"), "\(html)")
        #expect(html.contains("<tr><td>2023-05-15</td><td>–</td><td>–</td><td>0 / 0 of 4</td><td>–</td><td>–</td></tr>"))
    }

    @Test func theExposureViewsAgreeWithIntakeOnAWeekWithMissingDays() async throws {
        let env = try await jongno()
        defer { env.dir.remove() }
        // The views assume the whole-hour profile: every hour walked, 5 km at 5 km/h.
        let (status, text) = try intake(env, ["--station", "종로구", "--date", "2023-05-21", "--json"])
        #expect(status == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let week = try #require(object["week"] as? [String: Any])
        let row = try #require(try openForAssertions(env.database.path).read { db in
            try Row.fetchOne(db, sql: """
                SELECT week_pm10_ug, week_pm10_hours, week_pm10_days, avg_pm10_ug, today_pm10_ratio FROM exposure_weekly
                WHERE station_name = '종로구' AND week_ending = '2023-05-21' AND activity = 'moderate'
                """)
        })
        func rounded(_ v: Double?) -> Double? { v.map { ($0 * 1000).rounded() / 1000 } }
        // 2023-05-20 (3 hours) and 2023-05-21 (2 hours) have data; the 5 other days are left out, not taken as 0.
        #expect(row["week_pm10_days"] as Int? == 2 && (week["days_with_data"] as? [String: Any])?["pm10"] as? Int == 2)
        #expect(row["week_pm10_hours"] as Int? == 5)
        #expect(rounded(row["week_pm10_ug"]) == (week["pm10"] as? [String: Any])?["ug"] as? Double)
        #expect(rounded(row["avg_pm10_ug"]) == (week["daily_average_ug"] as? [String: Any])?["pm10"] as? Double)
        #expect(rounded(row["today_pm10_ratio"]) == (week["today_share"] as? [String: Any])?["pm10"] as? Double)
        #expect(abs((row["avg_pm10_ug"] as Double? ?? 0) - (29 + 31 + 27 + 22 + 24) * 1.56 / 2) < 1e-9)
    }
}
