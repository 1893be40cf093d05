import Domain
import Foundation
import Pipeline

/// Where AirKorea's records are stored: `measurement`, `station`, `nearby_station`,
/// `tm_coordinate`, `forecast` and `forecast_region` (created by feedline's first migrations),
/// and `station_daily_stats`, `station_monthly_stats` and `pm_alert` (created by this feed's own
/// migration, `statisticsMigration`).
public enum AirKoreaTables {
    /// The migrations and writers, registered with the feed.
    public static let schema = FeedSchema(migrations: [statisticsMigration], writers: [
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

    // MARK: - Migration

    /// The migration creating the statistics and alert tables; never edited once released.
    public static let statisticsMigration = SchemaMigration("airkorea-v1-station-stats-and-pm-alerts", sqlite: statisticsSQL,
                                                             postgres: statisticsPostgresSQL)

    private static let day = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'"
    private static let month = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]'"
    private static let utc = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'"
    private static let kst = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]'"

    /// The six averages of a statistics row: NULL where AirKorea gave none, never 0.
    private static let averageColumns = """
            pm10_avg        REAL CHECK (pm10_avg BETWEEN 0 AND 2000),   -- pm10Value, µg/m³
            pm25_avg        REAL CHECK (pm25_avg BETWEEN 0 AND 2000),   -- pm25Value, µg/m³
            o3_avg          REAL CHECK (o3_avg BETWEEN 0 AND 10),       -- o3Value, ppm
            no2_avg         REAL CHECK (no2_avg BETWEEN 0 AND 10),      -- no2Value, ppm
            co_avg          REAL CHECK (co_avg BETWEEN 0 AND 10),       -- coValue, ppm
            so2_avg         REAL CHECK (so2_avg BETWEEN 0 AND 10),      -- so2Value, ppm
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
        """

    static let statisticsSQL = """
        -- AirKorea ArpltnStatsSvc/getMsrstnAcctoRDyrg (측정소별 실시간 일평균): one station × KST day.
        -- Means of the realtime hourly stream as AirKorea computed them (not the confirmed data);
        -- compare measurement_daily, feedline's own means of the hours it loaded.
        CREATE TABLE station_daily_stats (
            station_name    TEXT NOT NULL CHECK (station_name <> ''),   -- msrstnName
            kst_date        TEXT NOT NULL CHECK (kst_date GLOB \(day)),   -- msurDt
        \(averageColumns)
            PRIMARY KEY (station_name, kst_date)
        );
        CREATE INDEX station_daily_stats_by_date ON station_daily_stats (kst_date);

        -- AirKorea ArpltnStatsSvc/getMsrstnAcctoRMmrg (측정소별 실시간 월평균): one station × KST month.
        CREATE TABLE station_monthly_stats (
            station_name    TEXT NOT NULL CHECK (station_name <> ''),   -- msrstnName
            kst_month       TEXT NOT NULL CHECK (kst_month GLOB \(month)),  -- msurMm, YYYY-MM
        \(averageColumns)
            PRIMARY KEY (station_name, kst_month)
        );
        CREATE INDEX station_monthly_stats_by_month ON station_monthly_stats (kst_month);

        -- AirKorea UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo: one PM10 or PM2.5 alert (주의보 advisory,
        -- 경보 warning) of one 권역, from its issue to its clear. Times are KST as delivered
        -- (issueDate issueTime, 24:00 kept) and UTC; cleared_* are NULL while the alert is in force.
        CREATE TABLE pm_alert (
            district        TEXT NOT NULL CHECK (district <> ''),       -- districtName, e.g. 서울
            area            TEXT NOT NULL,                              -- moveName (권역), '' when none was given
            pollutant       TEXT NOT NULL CHECK (pollutant IN ('PM10', 'PM2.5')),   -- itemCode
            level           TEXT NOT NULL CHECK (level IN ('advisory', 'warning')),  -- issueGbn 주의보 / 경보
            issued_at       TEXT NOT NULL CHECK (issued_at GLOB \(utc)),
            issued_kst      TEXT NOT NULL CHECK (issued_kst GLOB \(kst)),
            issue_value     REAL CHECK (issue_value BETWEEN 0 AND 2000),   -- issueVal, µg/m³
            cleared_at      TEXT CHECK (cleared_at GLOB \(utc)),
            cleared_kst     TEXT CHECK (cleared_kst GLOB \(kst)),
            clear_value     REAL CHECK (clear_value BETWEEN 0 AND 2000),   -- clearVal, µg/m³
            data_date       TEXT,                                       -- dataDate as delivered
            sn              TEXT,                                       -- AirKorea's serial number
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (district, area, pollutant, level, issued_at),
            CHECK ((cleared_at IS NULL) = (cleared_kst IS NULL)),
            CHECK (cleared_at IS NULL OR cleared_at >= issued_at)
        );
        CREATE INDEX pm_alert_by_time ON pm_alert (issued_at);
        """

    /// `statisticsSQL` in PostgreSQL's dialect (types mapped as `Sources/PostgresStorage/README.md`
    /// says): `kst_date` a `date`, `issued_at`/`cleared_at` instants (`timestamptz`, whole seconds
    /// as the SQLite pattern demands); `kst_month` and the KST labels stay text, their GLOB
    /// patterns become anchored regular expressions.
    static let statisticsPostgresSQL = """
        -- AirKorea ArpltnStatsSvc/getMsrstnAcctoRDyrg (측정소별 실시간 일평균): one station × KST day.
        -- Means of the realtime hourly stream as AirKorea computed them (not the confirmed data);
        -- compare measurement_daily, feedline's own means of the hours it loaded.
        CREATE TABLE station_daily_stats (
            station_name    text NOT NULL CHECK (station_name <> ''),   -- msrstnName
            kst_date        date NOT NULL,                              -- msurDt
            pm10_avg        double precision CHECK (pm10_avg BETWEEN 0 AND 2000),   -- pm10Value, µg/m³
            pm25_avg        double precision CHECK (pm25_avg BETWEEN 0 AND 2000),   -- pm25Value, µg/m³
            o3_avg          double precision CHECK (o3_avg BETWEEN 0 AND 10),       -- o3Value, ppm
            no2_avg         double precision CHECK (no2_avg BETWEEN 0 AND 10),      -- no2Value, ppm
            co_avg          double precision CHECK (co_avg BETWEEN 0 AND 10),       -- coValue, ppm
            so2_avg         double precision CHECK (so2_avg BETWEEN 0 AND 10),      -- so2Value, ppm
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (station_name, kst_date)
        );
        CREATE INDEX station_daily_stats_by_date ON station_daily_stats (kst_date);

        -- AirKorea ArpltnStatsSvc/getMsrstnAcctoRMmrg (측정소별 실시간 월평균): one station × KST month.
        CREATE TABLE station_monthly_stats (
            station_name    text NOT NULL CHECK (station_name <> ''),   -- msrstnName
            kst_month       text NOT NULL CHECK (kst_month ~ '^[0-9]{4}-[0-1][0-9]$'),  -- msurMm, YYYY-MM
            pm10_avg        double precision CHECK (pm10_avg BETWEEN 0 AND 2000),   -- pm10Value, µg/m³
            pm25_avg        double precision CHECK (pm25_avg BETWEEN 0 AND 2000),   -- pm25Value, µg/m³
            o3_avg          double precision CHECK (o3_avg BETWEEN 0 AND 10),       -- o3Value, ppm
            no2_avg         double precision CHECK (no2_avg BETWEEN 0 AND 10),      -- no2Value, ppm
            co_avg          double precision CHECK (co_avg BETWEEN 0 AND 10),       -- coValue, ppm
            so2_avg         double precision CHECK (so2_avg BETWEEN 0 AND 10),      -- so2Value, ppm
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (station_name, kst_month)
        );
        CREATE INDEX station_monthly_stats_by_month ON station_monthly_stats (kst_month);

        -- AirKorea UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo: one PM10 or PM2.5 alert (주의보 advisory,
        -- 경보 warning) of one 권역, from its issue to its clear. Times are KST as delivered
        -- (issueDate issueTime, 24:00 kept) and instants; cleared_* are NULL while the alert is in force.
        CREATE TABLE pm_alert (
            district        text NOT NULL CHECK (district <> ''),       -- districtName, e.g. 서울
            area            text NOT NULL,                              -- moveName (권역), '' when none was given
            pollutant       text NOT NULL CHECK (pollutant IN ('PM10', 'PM2.5')),   -- itemCode
            level           text NOT NULL CHECK (level IN ('advisory', 'warning')),  -- issueGbn 주의보 / 경보
            issued_at       timestamptz NOT NULL CHECK (issued_at = date_trunc('second', issued_at)),
            issued_kst      text NOT NULL CHECK (issued_kst ~ '^[0-9]{4}-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]$'),
            issue_value     double precision CHECK (issue_value BETWEEN 0 AND 2000),   -- issueVal, µg/m³
            cleared_at      timestamptz CHECK (cleared_at = date_trunc('second', cleared_at)),
            cleared_kst     text CHECK (cleared_kst ~ '^[0-9]{4}-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]$'),
            clear_value     double precision CHECK (clear_value BETWEEN 0 AND 2000),   -- clearVal, µg/m³
            data_date       text,                                       -- dataDate as delivered
            sn              text,                                       -- AirKorea's serial number
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (district, area, pollutant, level, issued_at),
            CHECK ((cleared_at IS NULL) = (cleared_kst IS NULL)),
            CHECK (cleared_at IS NULL OR cleared_at >= issued_at)
        );
        CREATE INDEX pm_alert_by_time ON pm_alert (issued_at);
        """
}
