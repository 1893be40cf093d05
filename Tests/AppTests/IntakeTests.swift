import App
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
        #expect(env.out.text.contains(String(format: "PM10 %.1f µg (%d/24 h)", expected10, hoursWithPM10)), "\(env.out.text)")
        #expect(env.out.text.contains("no data (0/24 h)"), "days without data are not shown as 0")

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
}
