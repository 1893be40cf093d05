import Pipeline

/// AirKorea's tables, the views over them and the triggers that complete a station's province,
/// declared once: SQLite's and PostgreSQL's DDL and `feedline describe` are rendered from here.
///
/// AirKorea labels an hour by its end (`01`…`24`, `24:00` included): `measurement.observed_at` is
/// that end as an instant, `kst_date`/`kst_hour` the start of the hour in Asia/Seoul, `data_time`
/// the label verbatim. PM is in µg/m³, gases in ppm; NULL means missing (never 0).
public enum AirKoreaSchema {
    public static let declarations = SchemaDeclarations(
        tables: [station, measurement, forecast, forecastRegion, nearbyStation, tmCoordinate,
                 stationDailyStats, stationMonthlyStats, pmAlert],
        views: [forecastLatest, measurementLatest, exposureHourly, exposureDaily, exposureWeekly,
                measurementDaily, measurementMonthly, provinceDaily, provinceMonthly, exceedanceDaily,
                stationFreshness, measurementCompleteness, gradeAgreement],
        triggers: [
            TriggerDeclaration(["station_sido_from_address", "station_sido_from_changed_address"], on: "station", stationSidoFromAddress),
            TriggerDeclaration(["station_sido_fills_measurement"], on: "station", stationSidoFillsMeasurement),
        ])

    // MARK: - Shared meanings

    static let airKorea = "AirKorea"
    static let feedline = "feedline"
    static let provinceJoin = "joins province_alias.name"
    static let flagValues = "AirKorea's status flag: 통신장애, 점검및교정, 장비점검, 자료이상 or other text; NULL when none"
    static let alertKST = "KST 'YYYY-MM-DD HH:MM' as delivered (24:00 kept: the end of that day)"

    static let dayGlob = "[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]"
    static let dayRegex = "^[0-9]{4}-[0-1][0-9]-[0-3][0-9]$"
    static let monthGlob = "[0-9][0-9][0-9][0-9]-[0-1][0-9]"
    static let monthRegex = "^[0-9]{4}-[0-1][0-9]$"
    static let kstGlob = "[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]"
    static let kstRegex = "^[0-9]{4}-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]$"

    /// A grade 1…4 (좋음 … 매우나쁨), AirKorea's or feedline's.
    static func grade(_ name: String, _ meaning: String, whose: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .smallInteger, check: [.predicate("BETWEEN 1 AND 4")], meaning, scale: DeclaredScale.koreanGrade, whose: whose)
    }

    /// A measured concentration as AirKorea published it: never negative, NULL when missing.
    static func concentration(_ name: String, _ meaning: String, unit: ColumnUnit) -> ColumnDeclaration {
        ColumnDeclaration(name, .real, check: [.predicate(">= 0")], meaning, unit: unit, whose: airKorea)
    }

    /// The six status flags of a measurement, one per pollutant AirKorea flags.
    static func flagColumns() -> [ColumnDeclaration] {
        [("pm10", "PM10"), ("pm25", "PM2.5"), ("o3", "Ozone"), ("no2", "Nitrogen dioxide"), ("co", "Carbon monoxide"), ("so2", "Sulphur dioxide")]
            .map { ColumnDeclaration("\($0.0)_flag", .text, "\($0.1) \(flagValues)") }
    }

    /// The PM hours, means and maxima that end the station and province views by day and month.
    static func pmStatistics() -> [ColumnDeclaration] {
        [
            pm10HoursColumn,
            .view("pm10_avg", "Mean of the hourly PM10 values", unit: .microgramsPerCubicMetre),
            .view("pm10_max", "Highest hourly PM10 value", unit: .microgramsPerCubicMetre),
            pm25HoursColumn,
            .view("pm25_avg", "Mean of the hourly PM2.5 values", unit: .microgramsPerCubicMetre),
            .view("pm25_max", "Highest hourly PM2.5 value", unit: .microgramsPerCubicMetre),
        ]
    }

    /// The six averages of a statistics row (NULL where AirKorea gave none, never 0), with the
    /// payload and revision columns that follow them.
    static func statisticsAverages(_ period: String) -> [ColumnDeclaration] {
        func average(_ name: String, _ meaning: String, unit: ColumnUnit, upTo bound: Int) -> ColumnDeclaration {
            ColumnDeclaration(name, .real, check: [.predicate("BETWEEN 0 AND \(bound)")], meaning, unit: unit, whose: airKorea)
        }
        return [
            average("pm10_avg", "PM10 \(period) mean of the realtime hourly values, as AirKorea computed it (pm10Value)",
                    unit: .microgramsPerCubicMetre, upTo: 2000),
            average("pm25_avg", "PM2.5 \(period) mean (pm25Value)", unit: .microgramsPerCubicMetre, upTo: 2000),
            average("o3_avg", "Ozone \(period) mean (o3Value)", unit: .ppm, upTo: 10),
            average("no2_avg", "Nitrogen dioxide \(period) mean (no2Value)", unit: .ppm, upTo: 10),
            average("co_avg", "Carbon monoxide \(period) mean (coValue)", unit: .ppm, upTo: 10),
            average("so2_avg", "Sulphur dioxide \(period) mean (so2Value)", unit: .ppm, upTo: 10),
            .payloadSHA256,
            .revision,
        ]
    }

    /// Columns several views share.
    static let stationNameColumn = ColumnDeclaration.view("station_name", "AirKorea station name")
    static let sidoColumn = ColumnDeclaration.view("sido", "Province (시도) short name; \(provinceJoin)")
    static let kstDateColumn = ColumnDeclaration.view("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)")
    static let kstMonthColumn = ColumnDeclaration.view("kst_month", "Month in Asia/Seoul (YYYY-MM)")
    static let activityColumn = ColumnDeclaration.view("activity", "activity_profile.name")
    static let inhalationColumn = ColumnDeclaration.view("inhalation_m3_per_h", "Inhalation rate", unit: .cubicMetresPerHour)
    static let pm10HoursColumn = ColumnDeclaration.view("pm10_hours", "Hours with a PM10 value")
    static let pm25HoursColumn = ColumnDeclaration.view("pm25_hours", "Hours with a PM2.5 value")

    // MARK: - Tables

    /// An AirKorea station. Filled by the station list and completed by measurements (code,
    /// province, network); a later NULL never erases a known value.
    static let station = TableDeclaration(
        "station", "An AirKorea measuring station, from the station list and completed by measurements",
        columns: [
            ColumnDeclaration("name", .text, "Station name as AirKorea spells it (unique nationwide)"),
            ColumnDeclaration("code", .text, "AirKorea station code (stationCode, realtime ver ≥ 1.4)"),
            ColumnDeclaration("sido", .text, "Province (시도) short name: from measurements' sidoName, else the first word of the address; \(provinceJoin)"),
            ColumnDeclaration("address", .text, "Address (addr)"),
            ColumnDeclaration("network", .text, "Network (mangName): 도시대기, 도로변대기, 국가배경농도, 교외대기, 항만"),
            ColumnDeclaration("installed_year", .integer, "Year the station was installed"),
            ColumnDeclaration("items", .text, "Pollutants measured, as AirKorea lists them ('SO2, CO, O3, NO2, PM10')"),
            ColumnDeclaration("latitude", .real, check: [.predicate("BETWEEN -90 AND 90")], "WGS84 latitude (from dmX/dmY by range)", unit: .degrees),
            ColumnDeclaration("longitude", .real, check: [.predicate("BETWEEN -180 AND 180")], "WGS84 longitude (from dmX/dmY by range)", unit: .degrees),
        ],
        key: ["name"])

    /// `measurement`'s columns, which `measurement_latest` shows too.
    static let measurementColumns: [ColumnDeclaration] = [
        ColumnDeclaration("station_name", .text, notNull: true, "AirKorea station name (station.name)"),
        ColumnDeclaration("observed_at", .instant, notNull: true, "End of the measured hour, UTC ISO-8601 (AirKorea labels an hour by its end): data_time '2023-05-14 02:00' (KST) is 2023-05-13T17:00:00Z"),
        ColumnDeclaration("kst_date", .date, notNull: true, "Date of the start of the measured hour, Asia/Seoul (KST, YYYY-MM-DD): data_time '2023-05-13 24:00' is 2023-05-13"),
        ColumnDeclaration("kst_hour", .smallInteger, notNull: true, check: [.predicate("BETWEEN 0 AND 23")], "Start of the measured hour, Asia/Seoul (KST), 0–23: one less than data_time's end-of-hour label (data_time '… 02:00' is kst_hour 1, the hour 01:00–02:00 KST)"),
        // Verbatim, '2023-05-13 24:00' included: no time type holds it.
        ColumnDeclaration("data_time", .text, notNull: true, "AirKorea's dataTime label verbatim: the END of the hour in Asia/Seoul (KST), hours 01…24 ('2023-05-14 02:00' is 01:00–02:00 KST; kst_hour gives the start, observed_at the end in UTC)"),
        ColumnDeclaration("sido", .text, "Province (시도) short name, e.g. 서울: AirKorea's sidoName, else the station's province; \(provinceJoin)"),
        ColumnDeclaration("network", .text, "Station network (mangName): 도시대기, 도로변대기, 국가배경농도, 교외대기, 항만"),
        concentration("pm10", "PM10, 1-hour mean (pm10Value)", unit: .microgramsPerCubicMetre),
        concentration("pm25", "PM2.5, 1-hour mean (pm25Value)", unit: .microgramsPerCubicMetre),
        concentration("pm10_24h", "PM10, 24-hour moving mean (pm10Value24)", unit: .microgramsPerCubicMetre),
        concentration("pm25_24h", "PM2.5, 24-hour moving mean (pm25Value24)", unit: .microgramsPerCubicMetre),
        concentration("o3", "Ozone, 1-hour mean (o3Value)", unit: .ppm),
        concentration("no2", "Nitrogen dioxide, 1-hour mean (no2Value)", unit: .ppm),
        concentration("co", "Carbon monoxide, 1-hour mean (coValue)", unit: .ppm),
        concentration("so2", "Sulphur dioxide, 1-hour mean (so2Value)", unit: .ppm),
        ColumnDeclaration("khai", .real, check: [.predicate(">= 0")],
                          "Comprehensive air-quality index (통합대기환경지수, CAI) as AirKorea published it (khaiValue); feedline's own is cai",
                          scale: DeclaredScale.cai, whose: airKorea),
        grade("pm10_grade", "PM10 grade from the 24-hour value, as published (pm10Grade); feedline's is our_pm10_grade", whose: airKorea),
        grade("pm25_grade", "PM2.5 grade from the 24-hour value, as published (pm25Grade); feedline's is our_pm25_grade", whose: airKorea),
        grade("pm10_grade_1h", "PM10 grade from the 1-hour value, as published (pm10Grade1h); feedline's is our_pm10_grade_1h", whose: airKorea),
        grade("pm25_grade_1h", "PM2.5 grade from the 1-hour value, as published (pm25Grade1h); feedline's is our_pm25_grade_1h", whose: airKorea),
        grade("o3_grade", "Ozone grade, as published (o3Grade)", whose: airKorea),
        grade("no2_grade", "Nitrogen dioxide grade, as published (no2Grade)", whose: airKorea),
        grade("co_grade", "Carbon monoxide grade, as published (coGrade)", whose: airKorea),
        grade("so2_grade", "Sulphur dioxide grade, as published (so2Grade)", whose: airKorea),
        grade("khai_grade", "CAI grade, as published (khaiGrade); feedline's is cai_grade", whose: airKorea),
    ] + flagColumns() + [
        .payloadSHA256,
        .revision,
        grade("our_pm10_grade", "PM10 grade feedline computed from pm10_24h with the Korean table in force on the date", whose: feedline),
        grade("our_pm25_grade", "PM2.5 grade feedline computed from pm25_24h with the Korean table in force on the date", whose: feedline),
        grade("our_pm10_grade_1h", "PM10 grade feedline computed from the 1-hour pm10", whose: feedline),
        grade("our_pm25_grade_1h", "PM2.5 grade feedline computed from the 1-hour pm25", whose: feedline),
        ColumnDeclaration("cai", .integer,
                          "CAI feedline computed (PM from the 24-hour values); NULL unless PM10, PM2.5, NO2 and O3 are all present. AirKorea's is khai",
                          scale: DeclaredScale.cai, whose: feedline),
        grade("cai_grade", "Grade of cai; AirKorea's is khai_grade", whose: feedline),
        ColumnDeclaration("aqi_pm10", .integer, "US EPA AQI of the 24-hour PM10 value; NULL above the top breakpoint",
                          scale: DeclaredScale.aqi, whose: feedline),
        ColumnDeclaration("aqi_pm25", .integer, "US EPA AQI of the 24-hour PM2.5 value (2024 table from 2024-05-06); NULL above the top breakpoint",
                          scale: DeclaredScale.aqi, whose: feedline),
    ]

    /// One station × hour. AirKorea labels an hour by its end (01…24): `observed_at` is that end
    /// as an instant, `kst_date`/`kst_hour` the start of the hour in Asia/Seoul. Grades are
    /// 1 좋음 … 4 매우나쁨, AirKorea's as published and feedline's (`our_*`, `cai*`, `aqi_*`) as
    /// computed. SQLite keeps the rows in arrival order so hourly loads append.
    static let measurement = TableDeclaration(
        "measurement", "One station × hour from AirKorea: pollutant values, AirKorea's grades and flags, feedline's grades and indices",
        columns: measurementColumns,
        key: ["station_name", "observed_at"], keyLayout: .uniqueInRowidOrder,
        indexes: [IndexDeclaration("measurement_by_kst", on: ["kst_date", "kst_hour"])])

    /// `forecast`'s columns, which `forecast_latest` shows too.
    static let forecastColumns: [ColumnDeclaration] = [
        ColumnDeclaration("inform_code", .text, notNull: true, "Pollutant forecast: PM10, PM25 or O3 (informCode)"),
        ColumnDeclaration("forecast_date", .date, notNull: true, "Day forecast, KST (informData)"),
        // A local label without a zone, part of the key: text on every store.
        ColumnDeclaration("released_at", .text, notNull: true, "Release time, KST 'YYYY-MM-DD HH:00' (dataTime)"),
        ColumnDeclaration("overall", .text, "Forecast overview text (informOverall)"),
        ColumnDeclaration("cause", .text, "Cause text (informCause)"),
        ColumnDeclaration("action_knack", .text, "Advice for sensitive groups (actionKnack)"),
        ColumnDeclaration("image_urls", .text, "JSON array of the forecast images imageUrl1…9 (null where absent)"),
        .payloadSHA256,
        .revision,
    ]

    /// A dust forecast: one row per pollutant, forecast day and release.
    static let forecast = TableDeclaration(
        "forecast", "One AirKorea dust forecast: pollutant × forecast day × release",
        columns: forecastColumns,
        key: ["inform_code", "forecast_date", "released_at"],
        dataTime: DataTimeColumn("released_at", .issued, .kstHourLabel))

    /// A forecast's informGrade split into one row per region; replaced with its release.
    static let forecastRegion = TableDeclaration(
        "forecast_region", "One region's grade in a forecast (informGrade split per region)",
        columns: [
            ColumnDeclaration("inform_code", .text, notNull: true, "Pollutant (forecast.inform_code)"),
            ColumnDeclaration("forecast_date", .date, notNull: true, "Day forecast, KST (forecast.forecast_date)"),
            ColumnDeclaration("released_at", .text, notNull: true, "Release time, KST (forecast.released_at)"),
            ColumnDeclaration("region", .text, notNull: true,
                              "Forecast region: a province short name, or 영동/영서 (강원), 경기남부/경기북부 (경기); \(provinceJoin)"),
            ColumnDeclaration("grade_text", .text, notNull: true, "Grade as published: 좋음, 보통, 나쁨, 매우나쁨, 예보없음"),
            grade("grade", "Grade as a number; NULL for 예보없음", whose: airKorea),
        ],
        key: ["inform_code", "forecast_date", "released_at", "region"],
        foreignKeys: [CompositeForeignKey(["inform_code", "forecast_date", "released_at"],
                                          references: ForeignKey("forecast", ["inform_code", "forecast_date", "released_at"], onDelete: .cascade))])

    /// Stations near a TM 중부원점 point (metres), with the distance in km.
    static let nearbyStation = TableDeclaration(
        "nearby_station", "A station near a TM point (getNearbyMsrstnList)",
        columns: [
            ColumnDeclaration("tm_x", .real, notNull: true, "Query point, TM 중부원점 x", unit: .metres),
            ColumnDeclaration("tm_y", .real, notNull: true, "Query point, TM 중부원점 y", unit: .metres),
            ColumnDeclaration("station_name", .text, notNull: true, "AirKorea station name"),
            ColumnDeclaration("address", .text, "Station address"),
            ColumnDeclaration("distance_km", .real, "Distance from the query point", unit: .kilometres),
        ],
        key: ["tm_x", "tm_y", "station_name"])

    /// TM 중부원점 coordinates of one 읍면동.
    static let tmCoordinate = TableDeclaration(
        "tm_coordinate", "The TM 중부원점 coordinates of one 읍면동 (getTMStdrCrdnt)",
        columns: [
            ColumnDeclaration("sido", .text, notNull: true, "Province (시도) as published, official name (서울특별시); \(provinceJoin)"),
            ColumnDeclaration("sgg", .text, notNull: true, "시군구 (empty for 세종)"),
            ColumnDeclaration("umd", .text, notNull: true, "읍면동"),
            ColumnDeclaration("tm_x", .real, notNull: true, "TM 중부원점 x", unit: .metres),
            ColumnDeclaration("tm_y", .real, notNull: true, "TM 중부원점 y", unit: .metres),
        ],
        key: ["sido", "sgg", "umd"])

    static let statisticsStationName = ColumnDeclaration("station_name", .text, notNull: true, check: [.predicate("<> ''")],
                                                         "AirKorea station name (msrstnName; station.name)")

    /// ArpltnStatsSvc/getMsrstnAcctoRDyrg (측정소별 실시간 일평균): the means of the realtime hourly
    /// stream as AirKorea computed them (not the confirmed data); compare `measurement_daily`,
    /// feedline's own means of the hours it loaded.
    ///
    /// `kst_date`'s pattern checks the day's shape on SQLite; on PostgreSQL the `date` type is that
    /// check (no CHECK there: a regular expression does not apply to a `date`).
    static let stationDailyStats = TableDeclaration(
        "station_daily_stats",
        "One AirKorea station × KST day: the daily means AirKorea publishes (ArpltnStatsSvc, of the realtime stream, not confirmed data); NULL where it gave none",
        columns: [
            statisticsStationName,
            ColumnDeclaration("kst_date", .date, notNull: true, check: [.pattern(glob: dayGlob, regex: dayRegex)],
                              "Day averaged, Asia/Seoul (msurDt, YYYY-MM-DD)"),
        ] + statisticsAverages("daily"),
        key: ["station_name", "kst_date"],
        indexes: [IndexDeclaration("station_daily_stats_by_date", on: ["kst_date"])])

    /// ArpltnStatsSvc/getMsrstnAcctoRMmrg (측정소별 실시간 월평균). The month stays text on every
    /// store (a `date` would need an invented day).
    static let stationMonthlyStats = TableDeclaration(
        "station_monthly_stats",
        "One AirKorea station × KST month: the monthly means AirKorea publishes (ArpltnStatsSvc, of the realtime stream); NULL where it gave none",
        columns: [
            statisticsStationName,
            ColumnDeclaration("kst_month", .text, notNull: true, check: [.pattern(glob: monthGlob, regex: monthRegex)],
                              "Month averaged, Asia/Seoul (msurMm, YYYY-MM)"),
        ] + statisticsAverages("monthly"),
        key: ["station_name", "kst_month"],
        indexes: [IndexDeclaration("station_monthly_stats_by_month", on: ["kst_month"])])

    /// UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo: one PM10 or PM2.5 alert (주의보 advisory, 경보
    /// warning) of one 권역, from its issue to its clear, keyed by what the issue and the clear
    /// share so the clear updates the row the issue made. Times are KST labels as delivered
    /// (24:00 kept) and instants; `cleared_*` are NULL while the alert is in force.
    static let pmAlert = TableDeclaration(
        "pm_alert", "One AirKorea PM10 or PM2.5 alert (주의보 or 경보) of one 권역, from its issue to its clear",
        columns: [
            ColumnDeclaration("district", .text, notNull: true, check: [.predicate("<> ''")],
                              "Province (시도) short name the alert is for (districtName), e.g. 서울"),
            ColumnDeclaration("area", .text, notNull: true, "권역 within the province (moveName), e.g. 도심권; '' when the payload named none"),
            ColumnDeclaration("pollutant", .text, notNull: true, check: [.predicate("IN ('PM10', 'PM2.5')")], "PM10 or PM2.5 (itemCode PM10 / PM25)"),
            ColumnDeclaration("level", .text, notNull: true, check: [.predicate("IN ('advisory', 'warning')")], "advisory (주의보) or warning (경보) (issueGbn)"),
            ColumnDeclaration("issued_at", .instant, notNull: true, check: [.wholeSecondInstant], "When the alert was issued, UTC ISO-8601"),
            ColumnDeclaration("issued_kst", .text, notNull: true, check: [.pattern(glob: kstGlob, regex: kstRegex)],
                              "When the alert was issued (issueDate issueTime), \(alertKST)"),
            ColumnDeclaration("issue_value", .real, check: [.predicate("BETWEEN 0 AND 2000")], "Concentration at the issue (issueVal)",
                              unit: .microgramsPerCubicMetre, whose: airKorea),
            ColumnDeclaration("cleared_at", .instant, check: [.wholeSecondInstant], "When the alert was cleared, UTC ISO-8601; NULL while it is in force"),
            ColumnDeclaration("cleared_kst", .text, check: [.pattern(glob: kstGlob, regex: kstRegex)],
                              "When the alert was cleared (clearDate clearTime), \(alertKST); NULL while in force"),
            ColumnDeclaration("clear_value", .real, check: [.predicate("BETWEEN 0 AND 2000")], "Concentration at the clear (clearVal); NULL while in force",
                              unit: .microgramsPerCubicMetre, whose: airKorea),
            // Unvalidated: a `date` could refuse a row SQLite keeps.
            ColumnDeclaration("data_date", .text, "AirKorea's dataDate, as delivered"),
            ColumnDeclaration("sn", .text, "AirKorea's serial number of the alert item (sn), as delivered"),
            .payloadSHA256,
            .revision,
        ],
        key: ["district", "area", "pollutant", "level", "issued_at"],
        checks: ["(cleared_at IS NULL) = (cleared_kst IS NULL)", "cleared_at IS NULL OR cleared_at >= issued_at"],
        indexes: [IndexDeclaration("pm_alert_by_time", on: ["issued_at"])])

    // MARK: - Views

    /// The newest release for each pollutant and forecast day.
    static let forecastLatest = ViewDeclaration(
        "forecast_latest", "The newest release of each pollutant and forecast day (every column of forecast)",
        columns: forecastColumns, query: forecastLatestQuery)

    /// The newest hour of each station.
    static let measurementLatest = ViewDeclaration(
        "measurement_latest", "The newest measurement row of each station (every column of measurement)",
        columns: measurementColumns, query: measurementLatestQuery)

    /// Inhaled PM (µg) per station, hour and activity profile, for one whole hour at that
    /// activity: concentration (µg/m³) × inhalation rate (m³/h) × 1 h. NULL where the hour's
    /// value is missing (never 0). Coarse = PM10 − PM2.5; PM10 and PM2.5 are never added.
    static let exposureHourly = ViewDeclaration(
        "exposure_hourly", "One station × hour × activity: PM inhaled in that whole hour at that activity",
        columns: [
            stationNameColumn,
            kstDateColumn,
            .view("kst_hour", "Start of the hour in Asia/Seoul, 0–23"),
            activityColumn,
            inhalationColumn,
            .view("pm10_ug", "PM10 inhaled (pm10 × rate × 1 h); NULL when the hour has no value", unit: .micrograms),
            .view("pm25_ug", "PM2.5 inhaled; NULL when the hour has no value", unit: .micrograms),
            .view("coarse_ug", "Coarse PM (PM10 − PM2.5) inhaled; NULL unless pm25 ≤ pm10", unit: .micrograms),
        ],
        query: exposureHourlyQuery)

    /// Daily totals with completeness: hours with data out of 24.
    static let exposureDaily = ViewDeclaration(
        "exposure_daily", "One station × KST day × activity: PM inhaled over the day, with hours of data out of 24",
        columns: [
            stationNameColumn,
            kstDateColumn,
            activityColumn,
            .view("pm10_ug", "PM10 inhaled over the hours with a value", unit: .micrograms),
            pm10HoursColumn,
            .view("pm25_ug", "PM2.5 inhaled over the hours with a value", unit: .micrograms),
            pm25HoursColumn,
            .view("hours_expected", "24"),
        ],
        query: exposureDailyQuery)

    /// Seven days ending on `week_ending` (D-6 … D): week totals, today's share of the week
    /// (today ÷ the greater of the week and 1; NULL when today has no value) and the daily
    /// average (week ÷ the days with a value, never counting a day without one as 0), with hours
    /// of data out of 168 — the same figures as `WeeklyIntake` for the whole-hour profile.
    static let exposureWeekly = ViewDeclaration(
        "exposure_weekly", "One station × activity × 7 days ending on a KST day: PM inhaled, today's share and the daily average",
        columns: [
            stationNameColumn,
            .view("week_ending", "Last day of the 7 (D−6 … D), KST"),
            activityColumn,
            .view("week_pm10_ug", "PM10 inhaled over the 7 days", unit: .micrograms),
            .view("week_pm10_hours", "Hours with a PM10 value (out of 168)"),
            .view("week_pm25_ug", "PM2.5 inhaled over the 7 days", unit: .micrograms),
            .view("week_pm25_hours", "Hours with a PM2.5 value (out of 168)"),
            .view("hours_expected", "168"),
            .view("today_pm10_ratio", "week_ending's PM10 ÷ the week's (÷ 1 when the week is below 1 µg); NULL when week_ending has no PM10 value"),
            .view("today_pm25_ratio", "week_ending's PM2.5 ÷ the week's (÷ 1 when the week is below 1 µg); NULL when week_ending has no PM2.5 value"),
            .view("avg_pm10_ug", "Week's PM10 ÷ the days with a PM10 value (week_pm10_days); a day without one is left out, not taken as 0", unit: .micrograms),
            .view("avg_pm25_ug", "Week's PM2.5 ÷ the days with a PM2.5 value (week_pm25_days)", unit: .micrograms),
            .view("week_pm10_days", "Days of the 7 with a PM10 value"),
            .view("week_pm25_days", "Days of the 7 with a PM2.5 value"),
        ],
        query: exposureWeeklyQuery)

    /// Station × KST day: PM means, maxima and hours with a value. (PostgreSQL's `max(s.sido)`:
    /// one station row per name, so the same value SQLite's bare `s.sido` gives.)
    static let measurementDaily = ViewDeclaration(
        "measurement_daily", "One station × KST day: PM means and maxima with the hours behind them",
        columns: [
            stationNameColumn,
            sidoColumn,
            kstDateColumn,
            .view("hours", "Hours with a row (out of 24)"),
        ] + pmStatistics(),
        query: measurementDailyQuery)

    /// Station × KST month ('YYYY-MM').
    static let measurementMonthly = ViewDeclaration(
        "measurement_monthly", "One station × KST month: PM means and maxima with the days and hours behind them",
        columns: [
            stationNameColumn,
            sidoColumn,
            kstMonthColumn,
            .view("days", "Days with a row"),
            .view("hours", "Hours with a row"),
        ] + pmStatistics(),
        query: measurementMonthlyQuery)

    /// Province × KST day: means over every station-hour with a value in the province.
    static let provinceDaily = ViewDeclaration(
        "province_daily", "One province × KST day: PM over every station-hour in the province",
        columns: [
            sidoColumn,
            kstDateColumn,
            .view("stations", "Stations with a row that day"),
            .view("station_hours", "Station-hours with a row"),
        ] + pmStatistics(),
        query: provinceDailyQuery)

    /// Province × KST month.
    static let provinceMonthly = ViewDeclaration(
        "province_monthly", "One province × KST month: PM over every station-hour in the province",
        columns: [
            sidoColumn,
            kstMonthColumn,
            .view("stations", "Stations with a row that month"),
            .view("days", "Days with a row"),
            .view("station_hours", "Station-hours with a row"),
        ] + pmStatistics(),
        query: provinceMonthlyQuery)

    /// Station × KST day: hours above the Korean 24-h standard (PM10 100, PM2.5 35 µg/m³) and the
    /// WHO 2021 24-h guideline (PM10 45, PM2.5 15 µg/m³); day flags (1/0, NULL under 18 h) from
    /// the daily mean.
    static let exceedanceDaily = ViewDeclaration(
        "exceedance_daily",
        "One station × KST day: hours and days above the Korean 24-h standard (PM10 100, PM2.5 35 µg/m³) and the WHO 2021 guideline (45, 15)",
        columns: [
            stationNameColumn,
            sidoColumn,
            kstDateColumn,
            pm10HoursColumn,
            pm25HoursColumn,
            .view("pm10_avg", "Daily mean PM10", unit: .microgramsPerCubicMetre),
            .view("pm25_avg", "Daily mean PM2.5", unit: .microgramsPerCubicMetre),
            .view("pm10_hours_over_kr", "Hours whose 1-hour PM10 is above 100 µg/m³ (an indicator, not a legal exceedance)"),
            .view("pm10_hours_over_who", "Hours whose 1-hour PM10 is above 45 µg/m³"),
            .view("pm25_hours_over_kr", "Hours whose 1-hour PM2.5 is above 35 µg/m³"),
            .view("pm25_hours_over_who", "Hours whose 1-hour PM2.5 is above 15 µg/m³"),
            .view("pm10_day_over_kr", "1 when the daily mean PM10 is above 100 µg/m³, 0 when not; NULL with fewer than 18 hours"),
            .view("pm10_day_over_who", "1 when the daily mean PM10 is above 45 µg/m³, 0 when not; NULL with fewer than 18 hours"),
            .view("pm25_day_over_kr", "1 when the daily mean PM2.5 is above 35 µg/m³, 0 when not; NULL with fewer than 18 hours"),
            .view("pm25_day_over_who", "1 when the daily mean PM2.5 is above 15 µg/m³, 0 when not; NULL with fewer than 18 hours"),
        ],
        query: exceedanceDailyQuery)

    /// Station: its newest and oldest hour (the end of the hour), and its data share.
    static let stationFreshness = ViewDeclaration(
        "station_freshness", "One station: its newest and oldest hour and how many hours it has",
        columns: [
            stationNameColumn,
            sidoColumn,
            .view("newest_observed_at", "End of the newest hour, UTC ISO-8601"),
            .view("oldest_observed_at", "End of the oldest hour, UTC ISO-8601"),
            .view("hours", "Hours with a row"),
            pm10HoursColumn,
            pm25HoursColumn,
        ],
        query: stationFreshnessQuery)

    /// Hours present per station and KST day, out of 24: what backfill fills in. `hours_mask`
    /// has bit h set when the hour starting at h:00 KST has a row. Days without any row do not
    /// appear.
    static let measurementCompleteness = ViewDeclaration(
        "measurement_completeness", "One station × KST day: which of the 24 hours have a row (what backfill fills in)",
        columns: [
            stationNameColumn,
            kstDateColumn,
            .view("hours_present", "Hours with a row (even one whose values are all missing)"),
            .view("hours_expected", "24"),
            .view("hours_missing", "24 − hours_present"),
            pm10HoursColumn,
            pm25HoursColumn,
            .view("hours_mask", "Bit h set when the hour starting at h:00 KST has a row"),
        ],
        query: measurementCompletenessQuery)

    /// How often AirKorea's published grades agree with the ones feedline computes, per grade:
    /// `field` is AirKorea's API name, `airkorea_column` and `feedline_column` the columns
    /// compared. `agreeing` is NULL when nothing was checked (SQLite's sum over no rows), and so
    /// is the share.
    static let gradeAgreement = ViewDeclaration(
        "grade_agreement", "One grade: how often AirKorea's published grade equals the one feedline computes",
        columns: [
            .view("field", "The grade's AirKorea API name: pm10Grade, pm25Grade, pm10Grade1h, pm25Grade1h, khaiGrade"),
            .view("airkorea_column", "The measurement column holding AirKorea's grade (pm10_grade …, khai_grade)"),
            .view("feedline_column", "The measurement column holding feedline's grade (our_pm10_grade …, cai_grade)"),
            .view("checked", "Rows where both grades are present"),
            .view("agreeing", "Rows where they are equal"),
            .view("agreement_pct", "agreeing ÷ checked", unit: .percent),
        ],
        query: gradeAgreementQuery)

    // MARK: - Triggers

    /// A station the list describes takes its province from the address when none is known (the
    /// address starts with the province: '서울 종로구 …'), on insert and when the address changes.
    /// PostgreSQL: one trigger function serves both triggers.
    static let stationSidoFromAddress = DialectSQL(
        sqlite: """
        CREATE TRIGGER station_sido_from_address AFTER INSERT ON station
        WHEN NEW.sido IS NULL AND NEW.address IS NOT NULL
        BEGIN
            UPDATE station SET sido = (SELECT p.short_name FROM province_alias a JOIN province p ON p.code = a.province_code
         WHERE a.kind <> 'forecast-region' AND a.name = substr(NEW.address, 1, instr(NEW.address || ' ', ' ') - 1)) WHERE name = NEW.name;
        END;
        CREATE TRIGGER station_sido_from_changed_address AFTER UPDATE OF address ON station
        WHEN NEW.sido IS NULL AND NEW.address IS NOT NULL
        BEGIN
            UPDATE station SET sido = (SELECT p.short_name FROM province_alias a JOIN province p ON p.code = a.province_code
         WHERE a.kind <> 'forecast-region' AND a.name = substr(NEW.address, 1, instr(NEW.address || ' ', ' ') - 1)) WHERE name = NEW.name;
        END;
        """,
        postgres: """
        CREATE FUNCTION station_sido_from_address() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE station SET sido = (
                SELECT p.short_name FROM province_alias a JOIN province p ON p.code = a.province_code
                WHERE a.kind <> 'forecast-region' AND a.name = substr(NEW.address, 1, strpos(NEW.address || ' ', ' ') - 1))
            WHERE name = NEW.name;
            RETURN NULL;
        END;
        $$;
        CREATE TRIGGER station_sido_from_address AFTER INSERT ON station
            FOR EACH ROW WHEN (NEW.sido IS NULL AND NEW.address IS NOT NULL)
            EXECUTE FUNCTION station_sido_from_address();
        CREATE TRIGGER station_sido_from_changed_address AFTER UPDATE OF address ON station
            FOR EACH ROW WHEN (NEW.sido IS NULL AND NEW.address IS NOT NULL)
            EXECUTE FUNCTION station_sido_from_address();
        """)

    /// Once a station's province is known, its measurements without one take it.
    static let stationSidoFillsMeasurement = DialectSQL(
        sqlite: """
        CREATE TRIGGER station_sido_fills_measurement AFTER UPDATE OF sido ON station
        WHEN OLD.sido IS NULL AND NEW.sido IS NOT NULL
        BEGIN
            UPDATE measurement SET sido = NEW.sido WHERE station_name = NEW.name AND sido IS NULL;
        END;
        """,
        postgres: """
        CREATE FUNCTION station_sido_fills_measurement() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE measurement SET sido = NEW.sido WHERE station_name = NEW.name AND sido IS NULL;
            RETURN NULL;
        END;
        $$;
        CREATE TRIGGER station_sido_fills_measurement AFTER UPDATE OF sido ON station
            FOR EACH ROW WHEN (OLD.sido IS NULL AND NEW.sido IS NOT NULL)
            EXECUTE FUNCTION station_sido_fills_measurement();
        """)

    // MARK: - View queries (SQLite's text, and PostgreSQL's where the dialects differ)

    static let forecastLatestQuery = DialectSQL("""
        SELECT f.* FROM forecast f
        WHERE f.released_at = (SELECT max(released_at) FROM forecast g
                               WHERE g.inform_code = f.inform_code AND g.forecast_date = f.forecast_date)
        """)

    static let measurementLatestQuery = DialectSQL("""
        SELECT m.* FROM measurement m
        WHERE m.observed_at = (SELECT max(observed_at) FROM measurement n WHERE n.station_name = m.station_name)
        """)

    static let exposureHourlyQuery = DialectSQL("""
        SELECT m.station_name, m.kst_date, m.kst_hour, p.name AS activity, p.inhalation_m3_per_h,
               m.pm10 * p.inhalation_m3_per_h AS pm10_ug,
               m.pm25 * p.inhalation_m3_per_h AS pm25_ug,
               CASE WHEN m.pm25 <= m.pm10 THEN (m.pm10 - m.pm25) * p.inhalation_m3_per_h END AS coarse_ug
        FROM measurement m CROSS JOIN activity_profile p
        """)

    static let exposureDailyQuery = DialectSQL("""
        SELECT station_name, kst_date, activity,
               sum(pm10_ug) AS pm10_ug, count(pm10_ug) AS pm10_hours,
               sum(pm25_ug) AS pm25_ug, count(pm25_ug) AS pm25_hours,
               24 AS hours_expected
        FROM exposure_hourly GROUP BY station_name, kst_date, activity
        """)

    static let exposureWeeklyQuery = DialectSQL { f in """
        SELECT d.station_name, d.kst_date AS week_ending, d.activity,
               w.pm10_ug AS week_pm10_ug, w.pm10_hours AS week_pm10_hours,
               w.pm25_ug AS week_pm25_ug, w.pm25_hours AS week_pm25_hours, 168 AS hours_expected,
               d.pm10_ug / \(f.greater("coalesce(w.pm10_ug, 0)", "1")) AS today_pm10_ratio,
               d.pm25_ug / \(f.greater("coalesce(w.pm25_ug, 0)", "1")) AS today_pm25_ratio,
               w.pm10_ug / nullif(w.pm10_days, 0) AS avg_pm10_ug, w.pm25_ug / nullif(w.pm25_days, 0) AS avg_pm25_ug,
               w.pm10_days AS week_pm10_days, w.pm25_days AS week_pm25_days
        FROM exposure_daily d
        JOIN (SELECT a.station_name, a.kst_date, a.activity,
                     sum(b.pm10_ug) AS pm10_ug, sum(b.pm10_hours) AS pm10_hours,
                     sum(b.pm25_ug) AS pm25_ug, sum(b.pm25_hours) AS pm25_hours,
                     count(CASE WHEN b.pm10_hours > 0 THEN 1 END) AS pm10_days,
                     count(CASE WHEN b.pm25_hours > 0 THEN 1 END) AS pm25_days
              FROM exposure_daily a JOIN exposure_daily b
                ON b.station_name = a.station_name AND b.activity = a.activity
               AND b.kst_date BETWEEN \(f.day("a.kst_date", minusDays: 6)) AND a.kst_date
              GROUP BY a.station_name, a.kst_date, a.activity) w
          ON w.station_name = d.station_name AND w.kst_date = d.kst_date AND w.activity = d.activity
        """ }

    /// `max(s.sido)`: one station row per name, so the station's province.
    static let measurementDailyQuery = DialectSQL("""
        SELECT m.station_name, coalesce(max(m.sido), max(s.sido)) AS sido, m.kst_date,
               count(*) AS hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        GROUP BY m.station_name, m.kst_date
        """)

    static let measurementMonthlyQuery = DialectSQL { f in """
        SELECT m.station_name, coalesce(max(m.sido), max(s.sido)) AS sido, \(f.month(of: "m.kst_date")) AS kst_month,
               count(DISTINCT m.kst_date) AS days, count(*) AS hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        GROUP BY m.station_name, \(f.month(of: "m.kst_date"))
        """ }

    static let provinceDailyQuery = DialectSQL("""
        SELECT coalesce(m.sido, s.sido) AS sido, m.kst_date,
               count(DISTINCT m.station_name) AS stations, count(*) AS station_hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        WHERE coalesce(m.sido, s.sido) IS NOT NULL
        GROUP BY coalesce(m.sido, s.sido), m.kst_date
        """)

    static let provinceMonthlyQuery = DialectSQL { f in """
        SELECT coalesce(m.sido, s.sido) AS sido, \(f.month(of: "m.kst_date")) AS kst_month,
               count(DISTINCT m.station_name) AS stations, count(DISTINCT m.kst_date) AS days, count(*) AS station_hours,
               count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg, max(m.pm10) AS pm10_max,
               count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg, max(m.pm25) AS pm25_max
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        WHERE coalesce(m.sido, s.sido) IS NOT NULL
        GROUP BY coalesce(m.sido, s.sido), \(f.month(of: "m.kst_date"))
        """ }

    /// Day flags are 1/0, NULL under 18 hours with a value.
    static let exceedanceDailyQuery = DialectSQL { f in """
        SELECT station_name, sido, kst_date, pm10_hours, pm25_hours, pm10_avg, pm25_avg,
               pm10_hours_over_kr, pm10_hours_over_who, pm25_hours_over_kr, pm25_hours_over_who,
               CASE WHEN pm10_hours >= 18 THEN \(f.integer("pm10_avg > 100")) END AS pm10_day_over_kr,
               CASE WHEN pm10_hours >= 18 THEN \(f.integer("pm10_avg > 45")) END AS pm10_day_over_who,
               CASE WHEN pm25_hours >= 18 THEN \(f.integer("pm25_avg > 35")) END AS pm25_day_over_kr,
               CASE WHEN pm25_hours >= 18 THEN \(f.integer("pm25_avg > 15")) END AS pm25_day_over_who
        FROM (
            SELECT m.station_name, coalesce(max(m.sido), max(s.sido)) AS sido, m.kst_date,
                   count(m.pm10) AS pm10_hours, avg(m.pm10) AS pm10_avg,
                   count(m.pm25) AS pm25_hours, avg(m.pm25) AS pm25_avg,
                   count(CASE WHEN m.pm10 > 100 THEN 1 END) AS pm10_hours_over_kr,
                   count(CASE WHEN m.pm10 > 45 THEN 1 END) AS pm10_hours_over_who,
                   count(CASE WHEN m.pm25 > 35 THEN 1 END) AS pm25_hours_over_kr,
                   count(CASE WHEN m.pm25 > 15 THEN 1 END) AS pm25_hours_over_who
            FROM measurement m LEFT JOIN station s ON s.name = m.station_name
            GROUP BY m.station_name, m.kst_date
        ) AS daily
        """ }

    static let stationFreshnessQuery = DialectSQL("""
        SELECT m.station_name, coalesce(max(m.sido), max(s.sido)) AS sido,
               max(m.observed_at) AS newest_observed_at, min(m.observed_at) AS oldest_observed_at,
               count(*) AS hours, count(m.pm10) AS pm10_hours, count(m.pm25) AS pm25_hours
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        GROUP BY m.station_name
        """)

    static let measurementCompletenessQuery = DialectSQL("""
        SELECT station_name, kst_date,
               count(*) AS hours_present,
               24 AS hours_expected,
               24 - count(*) AS hours_missing,
               count(pm10) AS pm10_hours,
               count(pm25) AS pm25_hours,
               sum(1 << kst_hour) AS hours_mask
        FROM measurement
        GROUP BY station_name, kst_date
        """)

    /// `agreeing` is NULL when nothing was checked (a sum over no rows), and so is the share.
    static let gradeAgreementQuery = DialectSQL { f in
        [("pm10Grade", "pm10_grade", "our_pm10_grade"), ("pm25Grade", "pm25_grade", "our_pm25_grade"),
         ("pm10Grade1h", "pm10_grade_1h", "our_pm10_grade_1h"), ("pm25Grade1h", "pm25_grade_1h", "our_pm25_grade_1h"),
         ("khaiGrade", "khai_grade", "cai_grade")].map { field, theirs, ours in
            let agreeing = "sum(\(f.integer("\(theirs) = \(ours)")))"
            return """
                SELECT '\(field)' AS field, '\(theirs)' AS airkorea_column, '\(ours)' AS feedline_column,
                       count(*) AS checked, \(agreeing) AS agreeing, \(f.round("100.0 * \(agreeing) / count(*)", 1)) AS agreement_pct
                FROM measurement WHERE \(theirs) IS NOT NULL AND \(ours) IS NOT NULL
                """
        }.joined(separator: "\nUNION ALL\n")
    }
}
