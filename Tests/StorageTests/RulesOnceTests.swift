@testable import AirKorea
import Domain
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// Rules written in SQL (frozen in migrations) agree with the Domain constants they repeat:
/// these fail when one side changes without the other.
@Suite struct RulesOnceTests {
    let dir: TemporaryDirectory
    let store: SQLiteStore

    init() throws {
        dir = try TemporaryDirectory("rules")
        store = try SQLiteStore(path: dir.path("rules.sqlite").path, schema: .feedline)
    }

    @Test("activity_profile holds Domain's inhalation rates, one row per activity level")
    func activityProfilesAreDomainsRates() throws {
        let rows = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, inhalation_m3_per_h FROM activity_profile ORDER BY name")
        }
        let stored = Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as Double) })
        let domain = Dictionary(uniqueKeysWithValues: ActivityLevel.allCases.map {
            ($0.rawValue, InhalationRates.efh2011Adults21To31.rate(for: $0))
        })
        #expect(stored == domain)
    }

    /// One station-day of `hours` hours, every hour at `value` µg/m³ for both fractions.
    func day(_ station: String, hours: Int, value: Double) throws {
        let date = LocalDate(year: 2024, month: 3, day: 6)!
        let run = try store.beginRun(pipeline: "rules", mode: .replay, startedAt: Date(timeIntervalSince1970: 0))
        _ = try store.load(run: run, finishedAt: { Date(timeIntervalSince1970: 0) }) { session in
            var counts = LoadCounts()
            for hour in 0..<hours {
                let slot = HourSlot(date: date, hour: hour)!
                let m = HourlyMeasurement(stationName: station, slot: slot, dataTime: slot.description,
                                          pm: DustPair(pm10: value, pm25: value))
                counts.count(try session.write(FeedRecord(m), payload: nil))
            }
            return counts
        }
    }

    func exceedance(_ station: String) throws -> Row? {
        try store.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM exceedance_daily WHERE station_name = ?", arguments: [station]) }
    }

    @Test("exceedance_daily judges days and hours with Domain's limits and completeness rule", arguments: DustKind.allCases)
    func exceedanceViewMatchesDomain(kind: DustKind) throws {
        let column = kind == .pm10 ? "pm10" : "pm25"
        for (suffix, limit) in [("kr", KoreanAmbientStandard.twentyFourHour(kind)), ("who", WHOGuideline2021.limit(kind, .twentyFourHour, .guideline))] {
            let full = DailyMeanRule.minimumHours, short = DailyMeanRule.minimumHours - 1
            // At the limit: not above it. Just above: above. One hour short: not judged.
            try day("at-\(column)-\(suffix)", hours: full, value: limit)
            try day("over-\(column)-\(suffix)", hours: full, value: limit + 0.5)
            try day("short-\(column)-\(suffix)", hours: short, value: limit + 0.5)

            let at = try #require(try exceedance("at-\(column)-\(suffix)"))
            #expect(at["\(column)_day_over_\(suffix)"] as Int? == 0, "\(column) \(suffix) at \(limit)")
            #expect(at["\(column)_hours_over_\(suffix)"] as Int == 0)
            let over = try #require(try exceedance("over-\(column)-\(suffix)"))
            #expect(over["\(column)_day_over_\(suffix)"] as Int? == 1, "\(column) \(suffix) above \(limit)")
            #expect(over["\(column)_hours_over_\(suffix)"] as Int == full)
            let unjudged = try #require(try exceedance("short-\(column)-\(suffix)"))
            #expect(unjudged["\(column)_day_over_\(suffix)"] as Int? == nil, "\(short) hours must not be judged")
            #expect(unjudged["\(column)_hours_over_\(suffix)"] as Int == short)
        }
    }
}
