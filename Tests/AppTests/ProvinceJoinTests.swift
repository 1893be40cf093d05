import App
import Foundation
import GRDB
import Testing
import TestSupport

/// Region names differ across feeds; the province reference joins them all, and by-station
/// measurements (which AirKorea sends without a province) carry their station's.
@Suite struct ProvinceJoinTests {
    func value<T: DatabaseValueConvertible>(_ env: TestEnvironment, _ sql: String, as: T.Type = Int.self) throws -> T? {
        let queue = try openForAssertions(env.database.path)
        return try queue.read { try T.fetchOne($0, sql: sql) }
    }

    /// The airkorea-jongno pipeline (realtime-by-station: no sidoName) and the station list, in
    /// either order: `WHERE sido = '서울'` finds every by-station row, and re-running changes nothing.
    @Test(arguments: [["airkorea-jongno", "airkorea-stations"], ["airkorea-stations", "airkorea-jongno"]])
    func byStationRowsTakeTheProvinceOfTheirStation(order: [String]) async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        for name in order {
            #expect(await env.feedline.run(names: [name], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        }
        let rows = try #require(try value(env, "SELECT count(*) FROM measurement WHERE station_name = '종로구'"))
        #expect(rows > 0)
        #expect(try value(env, "SELECT count(*) FROM measurement WHERE sido = '서울'") == rows)
        #expect(try value(env, "SELECT count(*) FROM measurement WHERE sido IS NULL") == 0)
        #expect(try value(env, "SELECT sido FROM station WHERE name = '종로구'", as: String.self) == "서울")
        #expect(try value(env, "SELECT count(*) FROM province_daily WHERE sido = '서울'")! > 0)

        let runs = try #require(try value(env, "SELECT count(*) FROM run"))
        for name in order { #expect(await env.feedline.run(names: [name], source: .fixtures, paths: env.paths()) == .success) }
        #expect(try value(env, "SELECT sum(rows_inserted + rows_updated) FROM run WHERE id > \(runs)") == 0)
        #expect(try value(env, "SELECT count(*) FROM measurement WHERE sido = '서울'") == rows)
    }

    /// After every fixture pipeline, every region value in every region-bearing column joins the
    /// province reference, whichever spelling its feed uses.
    @Test func everyRegionColumnJoinsTheProvinceReference() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: [], source: .fixtures, paths: env.paths()) == .success)
        let columns = [("measurement", "sido"), ("station", "sido"), ("tm_coordinate", "sido"), ("forecast_region", "region"),
                       ("school", "region"), ("job_posting_location", "province")]
        let queue = try openForAssertions(env.database.path)
        try await queue.read { db in
            for (table, column) in columns {
                let values = try Int.fetchOne(db, sql: "SELECT count(DISTINCT \(column)) FROM \(table) WHERE \(column) IS NOT NULL") ?? 0
                #expect(values > 0, "\(table).\(column) has no values in the fixtures")
                let unjoined = try String.fetchAll(db, sql: """
                    SELECT DISTINCT t.\(column) FROM \(table) t LEFT JOIN province_alias a ON a.name = t.\(column)
                    WHERE t.\(column) IS NOT NULL AND a.name IS NULL
                    """)
                #expect(unjoined.isEmpty, "\(table).\(column) values that join no province: \(unjoined)")
            }
            // 서울특별시 (CareerNet) and 서울 (Saramin, AirKorea) reach the same province.
            let seoulSchools = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM school s JOIN province_alias a ON a.name = s.region JOIN province p ON p.code = a.province_code
                WHERE p.short_name = '서울'
                """) ?? 0
            #expect(seoulSchools == (try Int.fetchOne(db, sql: "SELECT count(*) FROM school WHERE region = '서울특별시'") ?? -1))
            #expect(seoulSchools > 0)
        }
    }
}
