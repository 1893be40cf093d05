import AirKorea
import Domain
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// Given/when/then examples for the SQLite store: upsert outcomes, atomic loads, the ledger.
@Suite struct SQLiteStoreTests {
    let dir: TemporaryDirectory
    let store: SQLiteStore
    let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }

    init() throws {
        dir = try TemporaryDirectory("storage")
        store = try SQLiteStore(path: dir.path("test.sqlite").path, schema: .feedline)
    }

    func measurement(_ station: String, _ label: String, pm10: Double?, pm25: Double?) -> HourlyMeasurement {
        HourlyMeasurement(stationName: station, slot: HourSlot(airKoreaLabel: label)!, dataTime: label,
                          pm: DustPair(pm10: pm10, pm25: pm25))
    }

    func payload(_ sha: String) -> RawPayload {
        RawPayload(file: dir.path("\(sha).xml"), request: nil, source: "airkorea", operation: "getCtprvnRltmMesureDnsty",
                   format: .xml, fetchedAt: clock(), sha256: sha, byteCount: 10)
    }

    func load(_ records: [FeedRecord], sha: String = "a") throws -> LoadCounts {
        let run = try store.beginRun(pipeline: "test", mode: .replay, startedAt: clock())
        return try store.load(run: run, finishedAt: clock) { session in
            var counts = LoadCounts()
            for r in records { counts.count(try session.write(r, payload: payload(sha))) }
            return counts
        }
    }

    @Test func upsertTellsInsertedUpdatedAndUnchangedApart() throws {
        let first = try load([FeedRecord(measurement("종로구", "2024-03-06 15:00", pm10: 35, pm25: 19)),
                              FeedRecord(measurement("종로구", "2024-03-06 16:00", pm10: 40, pm25: nil))])
        #expect(first.inserted == 2 && first.updated == 0 && first.unchanged == 0)

        let again = try load([FeedRecord(measurement("종로구", "2024-03-06 15:00", pm10: 35, pm25: 19))], sha: "b")
        #expect(again.unchanged == 1 && again.inserted == 0 && again.updated == 0)

        let changed = try load([FeedRecord(measurement("종로구", "2024-03-06 16:00", pm10: 40, pm25: 22))], sha: "c")
        #expect(changed.updated == 1)

        let rows = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT kst_date, kst_hour, observed_at, pm25, revision FROM measurement ORDER BY observed_at")
        }
        #expect(rows.count == 2)
        #expect(rows[0]["kst_hour"] as Int == 14)
        #expect(rows[0]["observed_at"] as String == "2024-03-06T06:00:00Z")
        #expect(rows[1]["pm25"] as Double? == 22)
        #expect(rows[1]["revision"] as Int == 1)
    }

    @Test func midnightLabelIsStoredAsTheNextDayInstantAndTheLastHourOfTheDay() throws {
        _ = try load([FeedRecord(measurement("종로구", "2024-03-06 24:00", pm10: 10, pm25: 5))])
        let row = try store.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM measurement") }
        #expect(row?["observed_at"] as String? == "2024-03-06T15:00:00Z")  // 2024-03-07 00:00 KST
        #expect(row?["kst_date"] as String? == "2024-03-06")
        #expect(row?["kst_hour"] as Int? == 23)
        #expect(row?["data_time"] as String? == "2024-03-06 24:00")
    }

    @Test func aFailingLoadLeavesNothingBehindAndTheLedgerSaysFailed() throws {
        struct Boom: Error {}
        let run = try store.beginRun(pipeline: "test", mode: .live, startedAt: clock())
        #expect(throws: Boom.self) {
            _ = try store.load(run: run, finishedAt: clock) { session in
                _ = try session.write(FeedRecord(measurement("종로구", "2024-03-06 15:00", pm10: 35, pm25: 19)), payload: nil)
                try session.setBookmark("newest_observed_at", to: "x")
                throw Boom()
            }
        }
        try store.failRun(run, error: "boom", finishedAt: clock())
        let (measurements, bookmarks, status) = try store.pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement")!,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM bookmark")!,
             try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [run.rawValue]))
        }
        #expect(measurements == 0)
        #expect(bookmarks == 0)
        #expect(status == "failed")
    }

    @Test func aRunThatNeverFinishesStaysVisiblyRunning() throws {
        let run = try store.beginRun(pipeline: "test", mode: .live, startedAt: clock())
        let status = try store.pool.read { db in try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [run.rawValue]) }
        #expect(status == "running")
    }

    @Test func forecastRegionsAreReplacedOnlyWhenTheyChange() throws {
        let date = LocalDate(year: 2023, month: 6, day: 3)!
        let forecast = Forecast(informCode: "PM10", forecastDate: date, releaseDate: date, releaseHour: 23,
                                overall: "좋음", imageURLs: ["http://x/1.png", nil],
                                regionGrades: [ForecastRegionGrade(region: "서울", gradeText: "보통"),
                                               ForecastRegionGrade(region: "제주", gradeText: "예보없음")])
        #expect(try load([FeedRecord(forecast)]).inserted == 1)
        #expect(try load([FeedRecord(forecast)], sha: "b").unchanged == 1)
        var changed = forecast
        changed.regionGrades[0] = ForecastRegionGrade(region: "서울", gradeText: "나쁨")
        #expect(try load([FeedRecord(changed)], sha: "c").updated == 1)
        let rows = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT region, grade_text, grade FROM forecast_region ORDER BY region")
        }
        #expect(rows.map { $0["region"] as String } == ["서울", "제주"])
        #expect(rows[0]["grade"] as Int? == 3)
        #expect(rows[1]["grade"] as Int? == nil)
    }

    @Test func stationsKeepKnownValuesWhenMeasurementsLackThem() throws {
        var m = measurement("종로구", "2024-03-06 15:00", pm10: 1, pm25: 1)
        m.stationCode = "111123"
        m.network = "도시대기"
        _ = try load([FeedRecord(Station(name: "종로구", address: "서울 종로구", latitude: 37.57, longitude: 126.99)), FeedRecord(m)])
        var later = measurement("종로구", "2024-03-06 16:00", pm10: 1, pm25: 1)
        later.sidoName = "서울"
        _ = try load([FeedRecord(later)], sha: "b")
        let row = try store.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM station WHERE name = '종로구'") }
        #expect(row?["code"] as String? == "111123")
        #expect(row?["sido"] as String? == "서울")
        #expect(row?["address"] as String? == "서울 종로구")
        #expect(row?["network"] as String? == "도시대기")
    }
}
