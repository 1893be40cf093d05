@testable import AirKorea
import Domain
import Foundation
import GRDB
@testable import Storage
import Testing
import TestSupport

/// The province reference (migration v9): the tables hold `Province.all`, station addresses
/// give stations their province, and by-station measurements take their station's.
@Suite struct ProvinceReferenceTests {
    @Test func provinceTablesHoldExactlyTheDomainList() throws {
        let dir = try TemporaryDirectory("province")
        defer { dir.remove() }
        let queue = try DatabaseQueue(path: dir.path("fresh.sqlite").path)
        try FeedlineMigrations.migrator.migrate(queue)
        try queue.read { db in
            let provinces = try Row.fetchAll(db, sql: "SELECT code, short_name, official_name, english_name FROM province ORDER BY code")
                .map { [$0[0] as String, $0[1] as String, $0[2] as String, $0[3] as String] }
            #expect(provinces == Province.all.map { [$0.code, $0.shortName, $0.officialName, $0.englishName] })
            let aliases = try Row.fetchAll(db, sql: "SELECT name, province_code, kind FROM province_alias ORDER BY name")
                .map { [$0[0] as String, $0[1] as String, $0[2] as String] }
            let expected = Province.all.flatMap { p in p.aliases.map { [$0.name, p.code, $0.kind.rawValue] } }
                .sorted { $0[0] < $1[0] }
            #expect(aliases == expected)
            // Older official names still join.
            let gangwon = try String.fetchOne(db, sql: """
                SELECT p.short_name FROM province_alias a JOIN province p ON p.code = a.province_code WHERE a.name = '강원도'
                """)
            #expect(gangwon == "강원")
        }
    }

    /// What a database written before v9 holds: a by-station measurement (no sido) of a station
    /// the station list described (address only), and one of a station nobody placed.
    static let rowsBeforeV9 = """
        INSERT INTO station (name, address) VALUES ('종로구', '서울 종로구 종로35가길 19'), ('춘천', '강원도 춘천시 중앙로 1'),
                                                   ('어딘가', '주소 미상');
        INSERT INTO station (name, sido) VALUES ('강남구', '서울');
        INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, sido, pm10)
        VALUES ('종로구', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00', NULL, 35),
               ('종로구', '2024-03-06T05:00:00Z', '2024-03-06', 13, '2024-03-06 14:00', NULL, 38),
               ('춘천', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00', NULL, 20),
               ('어딘가', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00', NULL, 20),
               ('강남구', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00', NULL, 40),
               ('강남구', '2024-03-06T05:00:00Z', '2024-03-06', 13, '2024-03-06 14:00', '서울', 41);
        """

    @Test func migrationGivesStationsTheirProvinceFromTheAddressAndMeasurementsTheirStations() throws {
        let dir = try TemporaryDirectory("province")
        defer { dir.remove() }
        let queue = try DatabaseQueue(path: dir.path("old.sqlite").path)
        try FeedlineMigrations.migrator.migrate(queue, upTo: "v8-run-abandoned-host-pid")
        try queue.write { db in try db.execute(sql: Self.rowsBeforeV9) }

        try FeedlineMigrations.migrator.migrate(queue)

        try queue.read { db in
            let stations = try Row.fetchAll(db, sql: "SELECT name, sido FROM station ORDER BY name")
                .map { "\($0[0] as String)=\(($0[1] as String?) ?? "nil")" }
            #expect(stations == ["강남구=서울", "어딘가=nil", "종로구=서울", "춘천=강원"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement WHERE sido = '서울'") == 4)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement WHERE sido = '강원'") == 1)
            #expect(try String.fetchAll(db, sql: "SELECT station_name FROM measurement WHERE sido IS NULL") == ["어딘가"])
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
        }
    }

    @Test func aStationWhoseProvinceBecomesKnownFillsItsMeasurementsWithoutOne() throws {
        let dir = try TemporaryDirectory("province")
        defer { dir.remove() }
        let queue = try DatabaseQueue(path: dir.path("new.sqlite").path)
        try FeedlineMigrations.migrator.migrate(queue)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO station (name) VALUES ('종로구'), ('수원');
                INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time)
                VALUES ('종로구', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00'),
                       ('수원', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00');
                """)
            // The station list arrives: the address names the province.
            try db.execute(sql: "UPDATE station SET address = '서울특별시 종로구 종로 1' WHERE name = '종로구'")
            // A province run names it.
            try db.execute(sql: "UPDATE station SET sido = '경기' WHERE name = '수원'")
        }
        try queue.read { db in
            let filled = try Row.fetchAll(db, sql: "SELECT station_name, sido FROM measurement ORDER BY station_name")
                .map { "\($0[0] as String)=\($0[1] as String)" }
            #expect(filled == ["수원=경기", "종로구=서울"])
            #expect(try String.fetchOne(db, sql: "SELECT sido FROM station WHERE name = '종로구'") == "서울")
        }
    }

    @Test func measurementUpsertTakesTheStationsProvinceAndNeverErasesOne() {
        let upsert = UpsertSQL(AirKoreaTables.measurement)
        #expect(upsert.insert.contains("coalesce(?6, (SELECT sido FROM station WHERE name = ?1))"))
        #expect(upsert.update.contains("sido = coalesce(?6, sido)"))
    }
}
