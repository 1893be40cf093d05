import App
import Foundation
import GRDB
import Testing
import TestSupport

/// `air_quality_hourly`: PM from AirKorea, OpenWeather and OpenAQ in one view, after the bundled
/// pipelines run from their fixtures.
@Suite struct CrossSourceViewTests {
    @Test func everyAirQualitySourceShowsUpWithItsPMValues() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let names = ["airkorea-seoul", "airkorea-stations", "openweather-air-pollution", "openaq-locations", "openaq-hours"]
        #expect(await env.feedline.run(names: names, source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        let queue = try openForAssertions(env.database.path)
        defer { try? queue.close() }
        let counts = try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT source, count(*) AS n FROM air_quality_hourly GROUP BY source ORDER BY source")
                .map { ($0["source"] as String, $0["n"] as Int) }
        }
        #expect(counts.map(\.0) == ["airkorea", "openaq", "openweather"])
        #expect(counts.allSatisfy { $0.1 > 0 })
        try await queue.read { db in
            // Each source's rows carry the values of its own table, not copies or zeros.
            let airkorea = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM air_quality_hourly v JOIN measurement m ON m.station_name = v.place AND m.observed_at = v.observed_at
                WHERE v.source = 'airkorea' AND v.pm10 IS m.pm10 AND v.pm25 IS m.pm25
                """)
            #expect(airkorea == counts.first { $0.0 == "airkorea" }?.1)
            let openaq = try Double.fetchOne(db, sql: """
                SELECT v.pm25 - h.value FROM air_quality_hourly v
                JOIN openaq_hourly h ON h.datetime_to_utc = v.observed_at AND h.parameter_name = 'pm25'
                JOIN openaq_sensor s ON s.sensor_id = h.sensor_id JOIN openaq_location l ON l.location_id = s.location_id AND l.name = v.place
                WHERE v.source = 'openaq' LIMIT 1
                """)
            #expect(openaq == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM air_quality_hourly WHERE pm10 = 0 AND pm25 = 0") == 0)
        }
    }

    // MARK: - The hour each row stands for

    /// The bundled air-quality pipelines replayed into `store`.
    static func loaded(_ store: TestStore) async throws -> TestEnvironment {
        let env = try TestEnvironment(store: store)
        let names = ["airkorea-stations", "airkorea-jongno", "airkorea-seoul", "openweather-air-pollution", "openweather-stations",
                     "openaq-locations", "openaq-hours"]
        #expect(await env.feedline.run(names: names, source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        return env
    }

    static func instant(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text), "not an ISO-8601 instant: \(text)")
    }

    /// The end of AirKorea's hour from its label, as its documentation defines it: `YYYY-MM-DD HH:00`
    /// in KST with hours 01…24, the end of the hour (`24:00` is the next day's 00:00).
    static func airKoreaEnd(_ label: String) throws -> Date {
        let parts = label.split(separator: " ")
        let day = try #require(ISO8601DateFormatter().date(from: "\(parts[0])T00:00:00+09:00"))
        let hour = try #require(Int(parts[1].prefix(2)))
        return day.addingTimeInterval(Double(hour) * 3600)
    }

    @Test("every row of air_quality_hourly carries the UTC hour it stands for, mapped per source", arguments: TestStore.all)
    func everyRowCarriesItsHour(_ store: TestStore) async throws {
        let env = try await Self.loaded(store)
        defer { env.dir.remove() }
        // Every row: one whole UTC hour.
        let all = try env.db.rows("SELECT source, hour_start_utc, hour_end_utc FROM air_quality_hourly")
        #expect(Set(all.map { $0[0] }) == ["airkorea", "openweather", "openaq"])
        for row in all {
            let start = try Self.instant(row[1]), end = try Self.instant(row[2])
            #expect(end.timeIntervalSince(start) == 3600 && Int(start.timeIntervalSince1970) % 3600 == 0, "\(row)")
        }
        func count(_ source: String) throws -> Int { try env.db.integer("SELECT count(*) FROM air_quality_hourly WHERE source = '\(source)'") }

        // AirKorea: the label is the hour's end in KST; kst_date/kst_hour its start.
        let airkorea = try env.db.rows("""
            SELECT v.hour_start_utc, v.hour_end_utc, m.data_time, m.kst_date, m.kst_hour FROM air_quality_hourly v
            JOIN measurement m ON m.station_name = v.station_name AND m.observed_at = v.observed_at WHERE v.source = 'airkorea'
            """)
        #expect(airkorea.count == (try count("airkorea")) && !airkorea.isEmpty)
        var kst = Calendar(identifier: .gregorian)
        kst.timeZone = TimeZone(identifier: "Asia/Seoul")!
        for row in airkorea {
            let end = try Self.airKoreaEnd(row[2])
            #expect(try Self.instant(row[1]) == end, "\(row)")
            let start = try Self.instant(row[0])
            #expect(start == end.addingTimeInterval(-3600), "\(row)")
            let local = kst.dateComponents([.year, .month, .day, .hour], from: start)
            #expect(String(format: "%04d-%02d-%02d", local.year!, local.month!, local.day!) == row[3] && "\(local.hour!)" == row[4], "\(row)")
        }
        // A known hour: 종로구's `2023-05-21 02:00` is 01:00–02:00 KST, 16:00–17:00 UTC.
        #expect(try env.db.rows("""
            SELECT v.hour_start_utc, v.hour_end_utc FROM air_quality_hourly v JOIN measurement m
              ON m.station_name = v.station_name AND m.observed_at = v.observed_at
            WHERE v.source = 'airkorea' AND m.station_name = '종로구' AND m.data_time = '2023-05-21 02:00'
            """) == [["2023-05-20T16:00:00Z", "2023-05-20T17:00:00Z"]])

        // OpenAQ: its own period.
        let openaq = try env.db.integer("""
            SELECT count(*) FROM air_quality_hourly v WHERE v.source = 'openaq' AND EXISTS (
              SELECT 1 FROM openaq_hourly h WHERE h.datetime_from_utc = v.hour_start_utc AND h.datetime_to_utc = v.hour_end_utc
                AND h.datetime_to_utc = v.observed_at)
            """)
        #expect(openaq == (try count("openaq")) && openaq > 0)
        // Gases reach the view too, in the column of their unit (the quirks sensor reports ppm).
        #expect(try env.db.integer("SELECT count(*) FROM air_quality_hourly WHERE source = 'openaq' AND (o3_ppm IS NOT NULL OR no2_ppm IS NOT NULL OR co_ppm IS NOT NULL OR so2_ppm IS NOT NULL)") > 0)

        // OpenWeather: the hour that begins at dt.
        let openweather = try env.db.integer("""
            SELECT count(*) FROM air_quality_hourly v WHERE v.source = 'openweather' AND v.hour_start_utc = v.observed_at AND EXISTS (
              SELECT 1 FROM openweather_air_pollution_hourly o WHERE o.observed_at = v.hour_start_utc
                AND o.latitude = v.latitude AND o.longitude = v.longitude)
            """)
        #expect(openweather == (try count("openweather")) && openweather > 0)
        #expect(try env.db.integer("SELECT count(*) FROM air_quality_hourly WHERE source = 'openweather' AND (o3_ugm3 IS NULL OR o3_ppm IS NOT NULL)") == 0)
        #expect(try env.db.integer("SELECT count(*) FROM air_quality_hourly WHERE source = 'airkorea' AND o3_ugm3 IS NOT NULL") == 0)
    }

    /// The README's comparison of a model with its monitor, run as written on the fixtures.
    static func readmeJoin() throws -> String {
        let command = try #require(try ReadmeCommandsTests.readmeCommands().first { $0.text.contains("JOIN air_quality_hourly o") })
        let text = command.text
        let open = try #require(text.firstIndex(of: "\"")), close = try #require(text.lastIndex(of: "\""))
        return String(text[text.index(after: open)..<close])
    }

    @Test("the README's join pairs each measured hour with the model's value for the same hour", arguments: TestStore.all)
    func readmeJoinPairsTheSameHour(_ store: TestStore) async throws {
        let sql = try Self.readmeJoin()
        #expect(sql.contains("hour_start_utc") && !sql.contains("observed_at"), "\(sql)")
        let env = try await Self.loaded(store)
        defer { env.dir.remove() }
        // 종로구 measured 12:00–17:00 UTC (22:00–02:00 KST labels), OpenWeather modelled the hours at 13:00…17:00.
        let rows = try env.db.rows(sql)
        #expect(rows.map { $0[1] } == ["2023-05-20T16:00:00Z", "2023-05-20T15:00:00Z", "2023-05-20T14:00:00Z", "2023-05-20T13:00:00Z"], "\(rows)")
        #expect(rows.allSatisfy { $0[0] == "종로구" })
        // Each pair: AirKorea's label for the hour ending at hour_end_utc, and OpenWeather's dt at its start.
        for row in rows {
            let label = try env.db.value("SELECT data_time FROM measurement WHERE station_name = '종로구' AND observed_at = '\(row[2])'")
            #expect(try Self.airKoreaEnd(try #require(label)) == (try Self.instant(row[2])))
            let modelled = try env.db.value("""
                SELECT pm2_5 FROM openweather_air_pollution_hourly WHERE observed_at = '\(row[1])' AND round(latitude * 1000) = 37572
                """)
            #expect(modelled.flatMap(Double.init) == Double(row[4]), "\(row)")
        }
    }
}
