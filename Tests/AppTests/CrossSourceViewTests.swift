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
}
