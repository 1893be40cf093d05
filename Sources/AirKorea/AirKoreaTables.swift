import Domain
import Foundation
import Pipeline

/// How AirKorea's records are written to the tables `AirKoreaSchema` declares: `measurement`,
/// `station`, `nearby_station`, `tm_coordinate`, `forecast`, `forecast_region`,
/// `station_daily_stats`, `station_monthly_stats` and `pm_alert`.
public enum AirKoreaTables {
    /// The declarations and writers, registered with the feed.
    public static let schema = FeedSchema(declarations: AirKoreaSchema.declarations, writers: [
        RecordWriter(HourlyMeasurement.self, rows: { m, payload, rows in encodeMeasurement(m, payload: payload, into: &rows) }),
        RecordWriter(Station.self) { s, _, tables in try tables.upsertBatched(station, stationRow(s)) },
        RecordWriter(NearbyStation.self) { n, _, tables in
            try tables.upsertBatched(nearbyStation, RowValues([.real(n.tmX), .real(n.tmY), .text(n.stationName), StoreValue(n.address), StoreValue(n.distanceKm)]))
        },
        RecordWriter(TMCoordinate.self) { t, _, tables in
            try tables.upsertBatched(tmCoordinate, RowValues([.text(t.sidoName), .text(t.sggName), .text(t.umdName), .real(t.tmX), .real(t.tmY)]))
        },
        RecordWriter(Forecast.self) { f, payload, tables in try writeForecast(f, payload: payload, to: tables) },
        RecordWriter(StationDailyStatistics.self) { d, payload, tables in
            try tables.upsertBatched(stationDailyStats, statisticsRow(d.stationName, d.date.description, d.averages, payload: payload))
        },
        RecordWriter(StationMonthlyStatistics.self) { m, payload, tables in
            try tables.upsertBatched(stationMonthlyStats, statisticsRow(m.stationName, m.month.description, m.averages, payload: payload))
        },
        RecordWriter(PMAlert.self) { a, payload, tables in try tables.upsertBatched(pmAlert, alertRow(a, payload: payload)) },
    ])

    // MARK: - Measurements

    /// `sido`: realtime-by-station items carry no province, so a row without one takes its
    /// station's (`station.sido`, from a province run or the station list's address) when it is
    /// inserted, and a later row without one never erases it. Rows inserted before the station's
    /// province was known get it when it becomes known (trigger `station_sido_fills_measurement`).
    /// `coalesce` evaluates the lookup only for rows without a province.
    static let measurement = UpsertTable(
        table: "measurement",
        columns: [
            "station_name", "observed_at", "kst_date", "kst_hour", "data_time", "sido", "network",
            "pm10", "pm25", "pm10_24h", "pm25_24h", "o3", "no2", "co", "so2", "khai",
            "pm10_grade", "pm25_grade", "pm10_grade_1h", "pm25_grade_1h", "o3_grade", "no2_grade", "co_grade", "so2_grade", "khai_grade",
            "pm10_flag", "pm25_flag", "o3_flag", "no2_flag", "co_flag", "so2_flag",
            "our_pm10_grade", "our_pm25_grade", "our_pm10_grade_1h", "our_pm25_grade_1h", "cai", "cai_grade", "aqi_pm10", "aqi_pm25",
            "payload_sha256",
        ],
        key: ["station_name", "observed_at"], keepKnown: ["sido"],
        insertFallbacks: ["sido": "(SELECT sido FROM station WHERE name = {station_name})"])

    /// What a measurement says about its station, never erasing what is known.
    static let stationFacts = UpsertTable(table: "station", columns: ["name", "code", "sido", "network"], key: ["name"],
                                          keepKnown: ["code", "sido", "network"], revision: false)

    /// A measurement's rows: the measurement, and what it says about its station (written once
    /// per load for each distinct set of facts: the same stations repeat every hour).
    static func encodeMeasurement(_ m: HourlyMeasurement, payload: RawPayload?, into rows: inout EncodedRows) {
        rows.append(measurement, counted: true) { row in
            row.append(m.stationName); row.append(iso8601UTC(m.slot.end)); row.append(m.slot.date.description)
            row.append(m.slot.hour); row.append(m.dataTime); row.append(m.sidoName); row.append(m.network)
            row.append(m.pm.pm10); row.append(m.pm.pm25); row.append(m.pm24h.pm10); row.append(m.pm24h.pm25)
            row.append(m.o3ppm); row.append(m.no2ppm); row.append(m.coppm); row.append(m.so2ppm); row.append(m.khai)
            row.append(m.grades.pm10?.rawValue); row.append(m.grades.pm25?.rawValue)
            row.append(m.grades1h.pm10?.rawValue); row.append(m.grades1h.pm25?.rawValue)
            row.append(m.grades.o3?.rawValue); row.append(m.grades.no2?.rawValue); row.append(m.grades.co?.rawValue)
            row.append(m.grades.so2?.rawValue); row.append(m.khaiGrade?.rawValue)
            row.append(m.flags.pm10?.description); row.append(m.flags.pm25?.description); row.append(m.flags.o3?.description)
            row.append(m.flags.no2?.description); row.append(m.flags.co?.description); row.append(m.flags.so2?.description)
            let i = m.indices
            row.append(i?.koreanGrade24h.pm10?.rawValue); row.append(i?.koreanGrade24h.pm25?.rawValue)
            row.append(i?.koreanGrade1h.pm10?.rawValue); row.append(i?.koreanGrade1h.pm25?.rawValue)
            row.append(i?.cai?.value); row.append(i?.caiGrade?.rawValue); row.append(i?.aqi.pm10?.value); row.append(i?.aqi.pm25?.value)
            row.append(payload?.sha256)
        }
        rows.append(stationFacts, counted: false) { row in
            row.append(m.stationName); row.append(m.stationCode); row.append(m.sidoName); row.append(m.network)
        }
    }

    // MARK: - Stations

    static let station = UpsertTable(table: "station",
                                     columns: ["name", "address", "network", "installed_year", "items", "latitude", "longitude"],
                                     key: ["name"], revision: false)

    static func stationRow(_ s: Station) -> RowValues {
        RowValues([.text(s.name), StoreValue(s.address), StoreValue(s.network), StoreValue(s.installedYear), StoreValue(s.items),
                   StoreValue(s.latitude), StoreValue(s.longitude)])
    }

    static let nearbyStation = UpsertTable(table: "nearby_station", columns: ["tm_x", "tm_y", "station_name", "address", "distance_km"],
                                           key: ["tm_x", "tm_y", "station_name"], revision: false)

    static let tmCoordinate = UpsertTable(table: "tm_coordinate", columns: ["sido", "sgg", "umd", "tm_x", "tm_y"],
                                          key: ["sido", "sgg", "umd"], revision: false)

    // MARK: - Forecasts

    static let forecast = UpsertTable(
        table: "forecast",
        columns: ["inform_code", "forecast_date", "released_at", "overall", "cause", "action_knack", "image_urls", "payload_sha256"],
        key: ["inform_code", "forecast_date", "released_at"])

    /// A release's grade per region: the set is replaced when it differs.
    static let forecastRegion = ChildTable(table: "forecast_region", parentColumns: ["inform_code", "forecast_date", "released_at"],
                                           columns: ["region", "grade_text", "grade"], ordinal: nil)

    static func writeForecast(_ f: Forecast, payload: RawPayload?, to tables: any TableWriting) throws -> WriteOutcome {
        let releasedAt = "\(f.releaseDate) \(f.releaseHour < 10 ? "0" : "")\(f.releaseHour):00"
        let parent: [StoreValue] = [.text(f.informCode), .text(f.forecastDate.description), .text(releasedAt)]
        var result = try tables.upsert(forecast, RowValues(parent + [StoreValue(f.overall), StoreValue(f.cause), StoreValue(f.actionKnack),
                                                                    .text(imageList(f.imageURLs)), StoreValue(payload?.sha256)]))
        let regions = f.regionGrades.map { RowValues([.text($0.region), .text($0.gradeText), StoreValue($0.grade?.rawValue)]) }
        if try tables.replaceChildren(forecastRegion, parent: parent, rows: regions), result == .unchanged { result = .updated }
        return result
    }

    /// The forecast's image URLs as a JSON array (a missing image is `null`).
    static func imageList(_ urls: [String?]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding an array of optional strings cannot fail.
        return (try? encoder.encode(urls)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    // MARK: - Statistics

    static let statisticsValueColumns = ["pm10_avg", "pm25_avg", "o3_avg", "no2_avg", "co_avg", "so2_avg", "payload_sha256"]

    static let stationDailyStats = UpsertTable(table: "station_daily_stats", columns: ["station_name", "kst_date"] + statisticsValueColumns,
                                               key: ["station_name", "kst_date"])

    static let stationMonthlyStats = UpsertTable(table: "station_monthly_stats", columns: ["station_name", "kst_month"] + statisticsValueColumns,
                                                 key: ["station_name", "kst_month"])

    static func statisticsRow(_ station: String, _ period: String, _ v: PollutantValues<Double>, payload: RawPayload?) -> RowValues {
        RowValues([.text(station), .text(period), StoreValue(v.pm10), StoreValue(v.pm25), StoreValue(v.o3), StoreValue(v.no2),
                   StoreValue(v.co), StoreValue(v.so2), StoreValue(payload?.sha256)])
    }

    // MARK: - PM alerts

    /// Keyed by what the issue and the clear of one alert share, so the payload that clears an
    /// alert updates the row its issue made; a later payload without the clear (an older page
    /// replayed) never erases a known one.
    static let pmAlert = UpsertTable(
        table: "pm_alert",
        columns: ["district", "area", "pollutant", "level", "issued_at", "issued_kst", "issue_value",
                  "cleared_at", "cleared_kst", "clear_value", "data_date", "sn", "payload_sha256"],
        key: ["district", "area", "pollutant", "level", "issued_at"],
        keepKnown: ["cleared_at", "cleared_kst", "clear_value"])

    static func alertRow(_ a: PMAlert, payload: RawPayload?) -> RowValues {
        RowValues([.text(a.district), .text(a.area ?? ""), .text(a.pollutant.rawValue), .text(a.level.rawValue),
                   .text(iso8601UTC(a.issued.instant)), .text(a.issued.label), StoreValue(a.issueValue),
                   StoreValue(a.cleared.map { iso8601UTC($0.instant) }), StoreValue(a.cleared?.label), StoreValue(a.clearValue),
                   StoreValue(a.dataDate), StoreValue(a.serial), StoreValue(payload?.sha256)])
    }
}
