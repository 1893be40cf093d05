/// What every table, view and column of the feedline database means: the one source for
/// `feedline describe` and the Datasette metadata it prints.
///
/// Types are not written here: they are read from the database (`PRAGMA table_info`). A test
/// migrates a fresh database and fails when a table, view or column has no entry here, or an
/// entry names a column the database does not have, so a migration that adds columns must
/// document them.
public enum SchemaDictionary {
    /// Every table and view, in the order `describe` lists them (user data first, internal last).
    public static let relations: [RelationEntry] = airQuality + airKoreaStatistics + reference + careers + openWeather + openAQ + crossSource + ledger + bookkeeping

    /// The entry for a table or view, or nil.
    public static func entry(_ name: String) -> RelationEntry? {
        byName[name]
    }

    private static let byName: [String: RelationEntry] = Dictionary(relations.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
}

/// One table or view: what one row is, and its columns.
public struct RelationEntry: Sendable, Hashable {
    public let name: String
    /// One line: what one row is.
    public let meaning: String
    /// Bookkeeping of feedline's own (migrations, locks, bookmarks, quota counters), not data.
    public let isInternal: Bool
    public let columns: [ColumnEntry]

    init(_ name: String, _ meaning: String, internal isInternal: Bool = false, _ columns: [ColumnEntry]) {
        self.name = name
        self.meaning = meaning
        self.isInternal = isInternal
        self.columns = columns
    }

    /// The entry for column `name`, or nil.
    public func column(_ name: String) -> ColumnEntry? {
        columns.first { $0.name == name }
    }
}

/// One column: its meaning, unit, and for grades and indices their scale and whose they are.
public struct ColumnEntry: Sendable, Hashable {
    public let name: String
    public let meaning: String
    public let unit: ColumnUnit?
    /// The values a grade or index takes and what they mean (`1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨`).
    public let scale: String?
    /// Who decided the value: `AirKorea` (published) or `feedline` (computed), for grades and
    /// indices that exist in both forms.
    public let whose: String?

    init(_ name: String, _ meaning: String, unit: ColumnUnit? = nil, scale: String? = nil, whose: String? = nil) {
        self.name = name
        self.meaning = meaning
        self.unit = unit
        self.scale = scale
        self.whose = whose
    }

    /// The meaning with the scale and whose it is, as one line (for Datasette's column descriptions).
    public var fullMeaning: String {
        var text = meaning
        if let whose { text += " [\(whose)]" }
        if let scale { text += " Scale: \(scale)." }
        return text
    }
}

/// A unit of measure: the symbol shown to people and the name Pint (Datasette's units) reads.
public struct ColumnUnit: Sendable, Hashable {
    public let symbol: String
    public let pint: String

    public static let microgramsPerCubicMetre = ColumnUnit(symbol: "µg/m³", pint: "ug/m**3")
    public static let ppm = ColumnUnit(symbol: "ppm", pint: "ppm")
    public static let micrograms = ColumnUnit(symbol: "µg", pint: "ug")
    public static let cubicMetresPerHour = ColumnUnit(symbol: "m³/h", pint: "m**3/h")
    public static let kilometres = ColumnUnit(symbol: "km", pint: "km")
    public static let metres = ColumnUnit(symbol: "m", pint: "m")
    public static let degrees = ColumnUnit(symbol: "°", pint: "degree")
    public static let percent = ColumnUnit(symbol: "%", pint: "percent")
    public static let seconds = ColumnUnit(symbol: "s", pint: "s")
    public static let bytes = ColumnUnit(symbol: "bytes", pint: "byte")
}

// MARK: - Scales and shared columns

extension SchemaDictionary {
    static let koreanGrade = "1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨"
    static let caiScale = "0–500: 0–50 좋음, 51–100 보통, 101–250 나쁨, 251–500 매우나쁨"
    static let aqiScale = "0–500: 0–50 Good, 51–100 Moderate, 101–150 Unhealthy for Sensitive Groups, 151–200 Unhealthy, 201–300 Very Unhealthy, 301–500 Hazardous"
    static let airKorea = "AirKorea"
    static let feedline = "feedline"
    static let provinceJoin = "joins province_alias.name"
    static let flagValues = "AirKorea's status flag: 통신장애, 점검및교정, 장비점검, 자료이상 or other text; NULL when none"

    static let payloadSHA256 = ColumnEntry("payload_sha256", "SHA-256 of the payload that last changed the row (payload.sha256)")
    static let revision = ColumnEntry("revision", "Times the row changed after it was inserted (0: never)")

    static func pmStatistics(_ prefix: String = "") -> [ColumnEntry] {
        [
            ColumnEntry("\(prefix)pm10_hours", "Hours with a PM10 value"),
            ColumnEntry("\(prefix)pm10_avg", "Mean of the hourly PM10 values", unit: .microgramsPerCubicMetre),
            ColumnEntry("\(prefix)pm10_max", "Highest hourly PM10 value", unit: .microgramsPerCubicMetre),
            ColumnEntry("\(prefix)pm25_hours", "Hours with a PM2.5 value"),
            ColumnEntry("\(prefix)pm25_avg", "Mean of the hourly PM2.5 values", unit: .microgramsPerCubicMetre),
            ColumnEntry("\(prefix)pm25_max", "Highest hourly PM2.5 value", unit: .microgramsPerCubicMetre),
        ]
    }

    static let measurementSido = ColumnEntry("sido", "Province (시도) short name, e.g. 서울: AirKorea's sidoName, else the station's province; \(provinceJoin)")

    /// `measurement`, and `measurement_latest` (which selects every column of it).
    static let measurementColumns: [ColumnEntry] = [
        ColumnEntry("station_name", "AirKorea station name (station.name)"),
        ColumnEntry("observed_at", "End of the measured hour, UTC ISO-8601 (AirKorea labels an hour by its end)"),
        ColumnEntry("kst_date", "Start of the measured hour, date in Asia/Seoul (YYYY-MM-DD)"),
        ColumnEntry("kst_hour", "Start of the measured hour in Asia/Seoul, 0–23"),
        ColumnEntry("data_time", "AirKorea's dataTime label verbatim (hours 01…24, the end of the hour)"),
        measurementSido,
        ColumnEntry("network", "Station network (mangName): 도시대기, 도로변대기, 국가배경농도, 교외대기, 항만"),
        ColumnEntry("pm10", "PM10, 1-hour mean (pm10Value)", unit: .microgramsPerCubicMetre, whose: airKorea),
        ColumnEntry("pm25", "PM2.5, 1-hour mean (pm25Value)", unit: .microgramsPerCubicMetre, whose: airKorea),
        ColumnEntry("pm10_24h", "PM10, 24-hour moving mean (pm10Value24)", unit: .microgramsPerCubicMetre, whose: airKorea),
        ColumnEntry("pm25_24h", "PM2.5, 24-hour moving mean (pm25Value24)", unit: .microgramsPerCubicMetre, whose: airKorea),
        ColumnEntry("o3", "Ozone, 1-hour mean (o3Value)", unit: .ppm, whose: airKorea),
        ColumnEntry("no2", "Nitrogen dioxide, 1-hour mean (no2Value)", unit: .ppm, whose: airKorea),
        ColumnEntry("co", "Carbon monoxide, 1-hour mean (coValue)", unit: .ppm, whose: airKorea),
        ColumnEntry("so2", "Sulphur dioxide, 1-hour mean (so2Value)", unit: .ppm, whose: airKorea),
        ColumnEntry("khai", "Comprehensive air-quality index (통합대기환경지수, CAI) as AirKorea published it (khaiValue); feedline's own is cai",
                    scale: caiScale, whose: airKorea),
        ColumnEntry("pm10_grade", "PM10 grade from the 24-hour value, as published (pm10Grade); feedline's is our_pm10_grade", scale: koreanGrade, whose: airKorea),
        ColumnEntry("pm25_grade", "PM2.5 grade from the 24-hour value, as published (pm25Grade); feedline's is our_pm25_grade", scale: koreanGrade, whose: airKorea),
        ColumnEntry("pm10_grade_1h", "PM10 grade from the 1-hour value, as published (pm10Grade1h); feedline's is our_pm10_grade_1h", scale: koreanGrade, whose: airKorea),
        ColumnEntry("pm25_grade_1h", "PM2.5 grade from the 1-hour value, as published (pm25Grade1h); feedline's is our_pm25_grade_1h", scale: koreanGrade, whose: airKorea),
        ColumnEntry("o3_grade", "Ozone grade, as published (o3Grade)", scale: koreanGrade, whose: airKorea),
        ColumnEntry("no2_grade", "Nitrogen dioxide grade, as published (no2Grade)", scale: koreanGrade, whose: airKorea),
        ColumnEntry("co_grade", "Carbon monoxide grade, as published (coGrade)", scale: koreanGrade, whose: airKorea),
        ColumnEntry("so2_grade", "Sulphur dioxide grade, as published (so2Grade)", scale: koreanGrade, whose: airKorea),
        ColumnEntry("khai_grade", "CAI grade, as published (khaiGrade); feedline's is cai_grade", scale: koreanGrade, whose: airKorea),
        ColumnEntry("pm10_flag", "PM10 \(flagValues)"),
        ColumnEntry("pm25_flag", "PM2.5 \(flagValues)"),
        ColumnEntry("o3_flag", "Ozone \(flagValues)"),
        ColumnEntry("no2_flag", "Nitrogen dioxide \(flagValues)"),
        ColumnEntry("co_flag", "Carbon monoxide \(flagValues)"),
        ColumnEntry("so2_flag", "Sulphur dioxide \(flagValues)"),
        payloadSHA256,
        revision,
        ColumnEntry("our_pm10_grade", "PM10 grade feedline computed from pm10_24h with the Korean table in force on the date", scale: koreanGrade, whose: feedline),
        ColumnEntry("our_pm25_grade", "PM2.5 grade feedline computed from pm25_24h with the Korean table in force on the date", scale: koreanGrade, whose: feedline),
        ColumnEntry("our_pm10_grade_1h", "PM10 grade feedline computed from the 1-hour pm10", scale: koreanGrade, whose: feedline),
        ColumnEntry("our_pm25_grade_1h", "PM2.5 grade feedline computed from the 1-hour pm25", scale: koreanGrade, whose: feedline),
        ColumnEntry("cai", "CAI feedline computed (PM from the 24-hour values); NULL unless PM10, PM2.5, NO2 and O3 are all present. AirKorea's is khai",
                    scale: caiScale, whose: feedline),
        ColumnEntry("cai_grade", "Grade of cai; AirKorea's is khai_grade", scale: koreanGrade, whose: feedline),
        ColumnEntry("aqi_pm10", "US EPA AQI of the 24-hour PM10 value; NULL above the top breakpoint", scale: aqiScale, whose: feedline),
        ColumnEntry("aqi_pm25", "US EPA AQI of the 24-hour PM2.5 value (2024 table from 2024-05-06); NULL above the top breakpoint", scale: aqiScale, whose: feedline),
    ]

    /// `forecast`, and `forecast_latest` (which selects every column of it).
    static let forecastColumns: [ColumnEntry] = [
        ColumnEntry("inform_code", "Pollutant forecast: PM10, PM25 or O3 (informCode)"),
        ColumnEntry("forecast_date", "Day forecast, KST (informData)"),
        ColumnEntry("released_at", "Release time, KST 'YYYY-MM-DD HH:00' (dataTime)"),
        ColumnEntry("overall", "Forecast overview text (informOverall)"),
        ColumnEntry("cause", "Cause text (informCause)"),
        ColumnEntry("action_knack", "Advice for sensitive groups (actionKnack)"),
        ColumnEntry("image_urls", "JSON array of the forecast images imageUrl1…9 (null where absent)"),
        payloadSHA256,
        revision,
    ]

    /// `run_history`, and `run_latest` (which selects every column of it).
    static let runHistoryColumns: [ColumnEntry] = [
        ColumnEntry("id", "Run id (run.id)"),
        ColumnEntry("pipeline", "Pipeline name (file name in Pipelines/ without .yaml)"),
        ColumnEntry("mode", "live, fixtures or replay"),
        ColumnEntry("status", "running, succeeded, failed or abandoned"),
        ColumnEntry("started_at", "Start, UTC ISO-8601"),
        ColumnEntry("finished_at", "End, UTC ISO-8601; NULL while running and for abandoned runs"),
        ColumnEntry("duration_s", "finished_at − started_at, whole seconds", unit: .seconds),
        ColumnEntry("payloads", "Payloads loaded"),
        ColumnEntry("payloads_skipped", "Payloads skipped because the same bytes were loaded before"),
        ColumnEntry("rows_inserted", "Rows inserted"),
        ColumnEntry("rows_updated", "Rows that changed"),
        ColumnEntry("rows_unchanged", "Rows loaded again with nothing changed"),
        ColumnEntry("rows", "rows_inserted + rows_updated + rows_unchanged"),
        ColumnEntry("diagnostics", "Diagnostics recorded (diagnostic rows)"),
        ColumnEntry("error", "Why the run failed, one line; NULL unless failed"),
    ]

    static func childColumns(_ what: String) -> [ColumnEntry] {
        [
            ColumnEntry("posting_id", "Saramin posting number (job_posting.posting_id)"),
            ColumnEntry("ordinal", "Position in the posting's list, from 1"),
            ColumnEntry("code", "Saramin \(what) code; NULL when only names came, or codes and names differ in number"),
            ColumnEntry("name", "Saramin \(what) name; NULL when only codes came, or codes and names differ in number"),
        ]
    }
}

// MARK: - Air quality

extension SchemaDictionary {
    static let airQuality: [RelationEntry] = [
        RelationEntry("measurement", "One station × hour from AirKorea: pollutant values, AirKorea's grades and flags, feedline's grades and indices", measurementColumns),
        RelationEntry("measurement_latest", "The newest measurement row of each station (every column of measurement)", measurementColumns),
        RelationEntry("station", "An AirKorea measuring station, from the station list and completed by measurements", [
            ColumnEntry("name", "Station name as AirKorea spells it (unique nationwide)"),
            ColumnEntry("code", "AirKorea station code (stationCode, realtime ver ≥ 1.4)"),
            ColumnEntry("sido", "Province (시도) short name: from measurements' sidoName, else the first word of the address; \(provinceJoin)"),
            ColumnEntry("address", "Address (addr)"),
            ColumnEntry("network", "Network (mangName): 도시대기, 도로변대기, 국가배경농도, 교외대기, 항만"),
            ColumnEntry("installed_year", "Year the station was installed"),
            ColumnEntry("items", "Pollutants measured, as AirKorea lists them ('SO2, CO, O3, NO2, PM10')"),
            ColumnEntry("latitude", "WGS84 latitude (from dmX/dmY by range)", unit: .degrees),
            ColumnEntry("longitude", "WGS84 longitude (from dmX/dmY by range)", unit: .degrees),
        ]),
        RelationEntry("measurement_daily", "One station × KST day: PM means and maxima with the hours behind them", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("sido", "Province (시도) short name; \(provinceJoin)"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)"),
            ColumnEntry("hours", "Hours with a row (out of 24)"),
        ] + pmStatistics()),
        RelationEntry("measurement_monthly", "One station × KST month: PM means and maxima with the days and hours behind them", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("sido", "Province (시도) short name; \(provinceJoin)"),
            ColumnEntry("kst_month", "Month in Asia/Seoul (YYYY-MM)"),
            ColumnEntry("days", "Days with a row"),
            ColumnEntry("hours", "Hours with a row"),
        ] + pmStatistics()),
        RelationEntry("province_daily", "One province × KST day: PM over every station-hour in the province", [
            ColumnEntry("sido", "Province (시도) short name; \(provinceJoin)"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)"),
            ColumnEntry("stations", "Stations with a row that day"),
            ColumnEntry("station_hours", "Station-hours with a row"),
        ] + pmStatistics()),
        RelationEntry("province_monthly", "One province × KST month: PM over every station-hour in the province", [
            ColumnEntry("sido", "Province (시도) short name; \(provinceJoin)"),
            ColumnEntry("kst_month", "Month in Asia/Seoul (YYYY-MM)"),
            ColumnEntry("stations", "Stations with a row that month"),
            ColumnEntry("days", "Days with a row"),
            ColumnEntry("station_hours", "Station-hours with a row"),
        ] + pmStatistics()),
        RelationEntry("exceedance_daily", "One station × KST day: hours and days above the Korean 24-h standard (PM10 100, PM2.5 35 µg/m³) and the WHO 2021 guideline (45, 15)", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("sido", "Province (시도) short name; \(provinceJoin)"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)"),
            ColumnEntry("pm10_hours", "Hours with a PM10 value"),
            ColumnEntry("pm25_hours", "Hours with a PM2.5 value"),
            ColumnEntry("pm10_avg", "Daily mean PM10", unit: .microgramsPerCubicMetre),
            ColumnEntry("pm25_avg", "Daily mean PM2.5", unit: .microgramsPerCubicMetre),
            ColumnEntry("pm10_hours_over_kr", "Hours whose 1-hour PM10 is above 100 µg/m³ (an indicator, not a legal exceedance)"),
            ColumnEntry("pm10_hours_over_who", "Hours whose 1-hour PM10 is above 45 µg/m³"),
            ColumnEntry("pm25_hours_over_kr", "Hours whose 1-hour PM2.5 is above 35 µg/m³"),
            ColumnEntry("pm25_hours_over_who", "Hours whose 1-hour PM2.5 is above 15 µg/m³"),
            ColumnEntry("pm10_day_over_kr", "1 when the daily mean PM10 is above 100 µg/m³, 0 when not; NULL with fewer than 18 hours"),
            ColumnEntry("pm10_day_over_who", "1 when the daily mean PM10 is above 45 µg/m³, 0 when not; NULL with fewer than 18 hours"),
            ColumnEntry("pm25_day_over_kr", "1 when the daily mean PM2.5 is above 35 µg/m³, 0 when not; NULL with fewer than 18 hours"),
            ColumnEntry("pm25_day_over_who", "1 when the daily mean PM2.5 is above 15 µg/m³, 0 when not; NULL with fewer than 18 hours"),
        ]),
        RelationEntry("measurement_completeness", "One station × KST day: which of the 24 hours have a row (what backfill fills in)", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)"),
            ColumnEntry("hours_present", "Hours with a row (even one whose values are all missing)"),
            ColumnEntry("hours_expected", "24"),
            ColumnEntry("hours_missing", "24 − hours_present"),
            ColumnEntry("pm10_hours", "Hours with a PM10 value"),
            ColumnEntry("pm25_hours", "Hours with a PM2.5 value"),
            ColumnEntry("hours_mask", "Bit h set when the hour starting at h:00 KST has a row"),
        ]),
        RelationEntry("station_freshness", "One station: its newest and oldest hour and how many hours it has", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("sido", "Province (시도) short name; \(provinceJoin)"),
            ColumnEntry("newest_observed_at", "End of the newest hour, UTC ISO-8601"),
            ColumnEntry("oldest_observed_at", "End of the oldest hour, UTC ISO-8601"),
            ColumnEntry("hours", "Hours with a row"),
            ColumnEntry("pm10_hours", "Hours with a PM10 value"),
            ColumnEntry("pm25_hours", "Hours with a PM2.5 value"),
        ]),
        RelationEntry("grade_agreement", "One grade: how often AirKorea's published grade equals the one feedline computes", [
            ColumnEntry("field", "The grade's AirKorea API name: pm10Grade, pm25Grade, pm10Grade1h, pm25Grade1h, khaiGrade"),
            ColumnEntry("airkorea_column", "The measurement column holding AirKorea's grade (pm10_grade …, khai_grade)"),
            ColumnEntry("feedline_column", "The measurement column holding feedline's grade (our_pm10_grade …, cai_grade)"),
            ColumnEntry("checked", "Rows where both grades are present"),
            ColumnEntry("agreeing", "Rows where they are equal"),
            ColumnEntry("agreement_pct", "agreeing ÷ checked", unit: .percent),
        ]),
        RelationEntry("forecast", "One AirKorea dust forecast: pollutant × forecast day × release", forecastColumns),
        RelationEntry("forecast_latest", "The newest release of each pollutant and forecast day (every column of forecast)", forecastColumns),
        RelationEntry("forecast_region", "One region's grade in a forecast (informGrade split per region)", [
            ColumnEntry("inform_code", "Pollutant (forecast.inform_code)"),
            ColumnEntry("forecast_date", "Day forecast, KST (forecast.forecast_date)"),
            ColumnEntry("released_at", "Release time, KST (forecast.released_at)"),
            ColumnEntry("region", "Forecast region: a province short name, or 영동/영서 (강원), 경기남부/경기북부 (경기); \(provinceJoin)"),
            ColumnEntry("grade_text", "Grade as published: 좋음, 보통, 나쁨, 매우나쁨, 예보없음"),
            ColumnEntry("grade", "Grade as a number; NULL for 예보없음", scale: koreanGrade, whose: airKorea),
        ]),
        RelationEntry("nearby_station", "A station near a TM point (getNearbyMsrstnList)", [
            ColumnEntry("tm_x", "Query point, TM 중부원점 x", unit: .metres),
            ColumnEntry("tm_y", "Query point, TM 중부원점 y", unit: .metres),
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("address", "Station address"),
            ColumnEntry("distance_km", "Distance from the query point", unit: .kilometres),
        ]),
        RelationEntry("tm_coordinate", "The TM 중부원점 coordinates of one 읍면동 (getTMStdrCrdnt)", [
            ColumnEntry("sido", "Province (시도) as published, official name (서울특별시); \(provinceJoin)"),
            ColumnEntry("sgg", "시군구 (empty for 세종)"),
            ColumnEntry("umd", "읍면동"),
            ColumnEntry("tm_x", "TM 중부원점 x", unit: .metres),
            ColumnEntry("tm_y", "TM 중부원점 y", unit: .metres),
        ]),
        RelationEntry("activity_profile", "An activity with its inhalation rate (US EPA Exposure Factors Handbook 2011, Table 6-2, adults 21–<31)", [
            ColumnEntry("name", "Activity: sedentary, light, moderate, high"),
            ColumnEntry("inhalation_m3_per_h", "Inhalation rate", unit: .cubicMetresPerHour),
            ColumnEntry("description", "What the activity is (METs range)"),
            ColumnEntry("source", "Where the rate comes from"),
        ]),
        RelationEntry("exposure_hourly", "One station × hour × activity: PM inhaled in that whole hour at that activity", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)"),
            ColumnEntry("kst_hour", "Start of the hour in Asia/Seoul, 0–23"),
            ColumnEntry("activity", "activity_profile.name"),
            ColumnEntry("inhalation_m3_per_h", "Inhalation rate", unit: .cubicMetresPerHour),
            ColumnEntry("pm10_ug", "PM10 inhaled (pm10 × rate × 1 h); NULL when the hour has no value", unit: .micrograms),
            ColumnEntry("pm25_ug", "PM2.5 inhaled; NULL when the hour has no value", unit: .micrograms),
            ColumnEntry("coarse_ug", "Coarse PM (PM10 − PM2.5) inhaled; NULL unless pm25 ≤ pm10", unit: .micrograms),
        ]),
        RelationEntry("exposure_daily", "One station × KST day × activity: PM inhaled over the day, with hours of data out of 24", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (YYYY-MM-DD)"),
            ColumnEntry("activity", "activity_profile.name"),
            ColumnEntry("pm10_ug", "PM10 inhaled over the hours with a value", unit: .micrograms),
            ColumnEntry("pm10_hours", "Hours with a PM10 value"),
            ColumnEntry("pm25_ug", "PM2.5 inhaled over the hours with a value", unit: .micrograms),
            ColumnEntry("pm25_hours", "Hours with a PM2.5 value"),
            ColumnEntry("hours_expected", "24"),
        ]),
        RelationEntry("exposure_weekly", "One station × activity × 7 days ending on a KST day: PM inhaled, today's share and the daily average", [
            ColumnEntry("station_name", "AirKorea station name"),
            ColumnEntry("week_ending", "Last day of the 7 (D−6 … D), KST"),
            ColumnEntry("activity", "activity_profile.name"),
            ColumnEntry("week_pm10_ug", "PM10 inhaled over the 7 days", unit: .micrograms),
            ColumnEntry("week_pm10_hours", "Hours with a PM10 value (out of 168)"),
            ColumnEntry("week_pm25_ug", "PM2.5 inhaled over the 7 days", unit: .micrograms),
            ColumnEntry("week_pm25_hours", "Hours with a PM2.5 value (out of 168)"),
            ColumnEntry("hours_expected", "168"),
            ColumnEntry("today_pm10_ratio", "week_ending's PM10 ÷ the week's (÷ 1 when the week is below 1 µg)"),
            ColumnEntry("today_pm25_ratio", "week_ending's PM2.5 ÷ the week's (÷ 1 when the week is below 1 µg)"),
            ColumnEntry("avg_pm10_ug", "Week's PM10 ÷ 7", unit: .micrograms),
            ColumnEntry("avg_pm25_ug", "Week's PM2.5 ÷ 7", unit: .micrograms),
        ]),
    ]
}

// MARK: - Reference

extension SchemaDictionary {
    static let reference: [RelationEntry] = [
        RelationEntry("province", "One of the 17 provinces (시도); every region column reaches it through province_alias", [
            ColumnEntry("code", "Two-digit administrative code (행정구역코드): 11 서울 … 51 강원, 52 전북"),
            ColumnEntry("short_name", "Short name, as AirKorea (sidoName) and Saramin write it: 서울"),
            ColumnEntry("official_name", "Official name in force, as CareerNet writes it: 서울특별시, 강원특별자치도"),
            ColumnEntry("english_name", "English name: Seoul"),
        ]),
        RelationEntry("province_alias", "One name a province goes by in the data, mapped to its code (join any region column on name)", [
            ColumnEntry("name", "The name: 서울, 서울특별시, 강원도, 영동 …"),
            ColumnEntry("province_code", "province.code"),
            ColumnEntry("kind", "short, official, former (an earlier official name: 강원도, 전라북도, 제주도) or forecast-region (영동, 영서, 경기남부, 경기북부)"),
        ]),
    ]
}

// MARK: - Careers

extension SchemaDictionary {
    static let careers: [RelationEntry] = [
        RelationEntry("school", "A CareerNet school or university campus", [
            ColumnEntry("school_key", "CareerNet seq verbatim (opaque); 'name:<region>/<name>/<campus>' when the item had none"),
            ColumnEntry("list", "CareerNet list (gubun): elem_list, midd_list, high_list, univ_list, seet_list, alte_list"),
            ColumnEntry("name", "School name (schoolName)"),
            ColumnEntry("campus", "Campus (campusName): 본교, 제2캠퍼스 … (universities)"),
            ColumnEntry("category", "School category (schoolGubun): 대학(4년제), 전문대학, 일반고 …"),
            ColumnEntry("kind", "School type (schoolType): 일반대학 …"),
            ColumnEntry("establishment", "Founded by (estType): 국립, 공립, 사립"),
            ColumnEntry("region", "Province (시도) as CareerNet publishes it, official name: 서울특별시; \(provinceJoin)"),
            ColumnEntry("address", "Address (adres)"),
            ColumnEntry("homepage", "Web site (link)"),
            ColumnEntry("college_info_url", "College information page (collegeinfourl)"),
            payloadSHA256,
            revision,
        ]),
        RelationEntry("major", "A CareerNet university major", [
            ColumnEntry("major_seq", "CareerNet majorSeq"),
            ColumnEntry("field", "Field of study (lClass, 계열)"),
            ColumnEntry("name", "Major (mClass, 학과명)"),
            payloadSHA256,
            revision,
        ]),
        RelationEntry("major_department", "One detailed department of a major (facilName split), in published order", [
            ColumnEntry("major_seq", "major.major_seq"),
            ColumnEntry("ordinal", "Position in facilName, from 1"),
            ColumnEntry("name", "Department name"),
        ]),
        RelationEntry("job_info", "A CareerNet job-dictionary entry", [
            ColumnEntry("job_seq", "CareerNet jobdicSeq"),
            ColumnEntry("name", "Job (job)"),
            ColumnEntry("profession", "Profession"),
            ColumnEntry("similar_jobs", "Similar jobs as published (similarJob)"),
            ColumnEntry("summary", "Summary"),
            ColumnEntry("equal_employment", "Equal employment text (equalemployment)"),
            ColumnEntry("possibility", "Possibility text"),
            ColumnEntry("prospect", "Prospect text"),
            ColumnEntry("salary", "Salary text from the API's misspelt salery, e.g. '4000 만원 이상'"),
            ColumnEntry("job_code", "Job code"),
            ColumnEntry("category_code", "Job category code (job_ctg_code)"),
            ColumnEntry("aptitude_type_code", "Aptitude type code (aptd_type_code)"),
            payloadSHA256,
            revision,
        ]),
        RelationEntry("job_posting", "A Saramin job posting, updated in place when it changes", [
            ColumnEntry("posting_id", "Saramin posting number"),
            ColumnEntry("url", "Posting page"),
            ColumnEntry("active", "1 open, 0 closed"),
            ColumnEntry("company", "Company name"),
            ColumnEntry("company_url", "Company page"),
            ColumnEntry("title", "Posting title"),
            ColumnEntry("industry_code", "Saramin industry code"),
            ColumnEntry("industry_name", "Saramin industry name"),
            ColumnEntry("experience_code", "Experience asked for", scale: "0 경력무관 · 1 신입 · 2 경력 · 3 신입/경력"),
            ColumnEntry("experience_min_years", "Fewest years of experience"),
            ColumnEntry("experience_max_years", "Most years of experience"),
            ColumnEntry("experience_name", "Experience as published"),
            ColumnEntry("education_code", "Saramin education code"),
            ColumnEntry("education_name", "Education as published"),
            ColumnEntry("salary_code", "Saramin salary code"),
            ColumnEntry("salary_name", "Salary as published; NULL when Saramin sent only a code"),
            ColumnEntry("posted_at", "Posted, UTC ISO-8601"),
            ColumnEntry("modified_at", "Last modified, UTC ISO-8601 (scheduled runs resume from the newest)"),
            ColumnEntry("opens_at", "Applications open, UTC ISO-8601"),
            ColumnEntry("expires_at", "Applications close, UTC ISO-8601; NULL when there is no deadline"),
            ColumnEntry("open_ended", "1 when Saramin published a far-future 'no deadline' date (expires_at is then NULL)"),
            ColumnEntry("close_type_code", "How applications close", scale: "1 접수마감일 · 2 채용시 · 3 상시 · 4 수시"),
            ColumnEntry("close_type_name", "Close type as published"),
            payloadSHA256,
            revision,
        ]),
        RelationEntry("job_posting_location", "One location of a posting, in published order", childColumns("location") + [
            ColumnEntry("province", "Province (시도) short name, the part of the name before '>': 서울; \(provinceJoin) (전국 and foreign locations have none)"),
        ]),
        RelationEntry("job_posting_job_type", "One job type (정규직 …) of a posting, in published order", childColumns("job type")),
        RelationEntry("job_posting_job_mid_code", "One job field (상위 직무) of a posting, in published order", childColumns("job field")),
        RelationEntry("job_posting_job_code", "One job code (직무) of a posting, in published order", childColumns("job")),
        RelationEntry("job_posting_job_category", "One job category of a posting, in published order", childColumns("job category")),
        RelationEntry("job_posting_keyword", "One keyword of a posting, in published order", [
            ColumnEntry("posting_id", "Saramin posting number (job_posting.posting_id)"),
            ColumnEntry("ordinal", "Position in the posting's list, from 1"),
            ColumnEntry("keyword", "Keyword"),
        ]),
        RelationEntry("job_posting_status_history", "A posting's open/close status when first seen and whenever it changed", [
            ColumnEntry("id", "Row id, in the order seen"),
            ColumnEntry("posting_id", "job_posting.posting_id"),
            ColumnEntry("run_id", "The run that saw it (run.id)"),
            ColumnEntry("modified_at", "The posting's modification time when seen, UTC ISO-8601"),
            ColumnEntry("active", "1 open, 0 closed"),
            ColumnEntry("close_type_code", "How applications close", scale: "1 접수마감일 · 2 채용시 · 3 상시 · 4 수시"),
            ColumnEntry("close_type_name", "Close type as published"),
            ColumnEntry("expires_at", "Applications close, UTC ISO-8601; NULL when there is no deadline"),
            ColumnEntry("open_ended", "1 when there was no deadline"),
        ]),
    ]
}

// MARK: - Ledger

extension SchemaDictionary {
    static let ledger: [RelationEntry] = [
        RelationEntry("run", "One pipeline run: recorded 'running' first, then finished with its load", [
            ColumnEntry("id", "Run id"),
            ColumnEntry("pipeline", "Pipeline name (PIPELINE:backfill for backfills)"),
            ColumnEntry("mode", "live, fixtures or replay"),
            ColumnEntry("started_at", "Start, UTC ISO-8601"),
            ColumnEntry("finished_at", "End, UTC ISO-8601; NULL while running and for abandoned runs"),
            ColumnEntry("status", "running, succeeded, failed, or abandoned (its process died first)"),
            ColumnEntry("payloads", "Payloads loaded"),
            ColumnEntry("payloads_skipped", "Payloads skipped because the same bytes were loaded before"),
            ColumnEntry("rows_inserted", "Rows inserted"),
            ColumnEntry("rows_updated", "Rows that changed"),
            ColumnEntry("rows_unchanged", "Rows loaded again with nothing changed"),
            ColumnEntry("diagnostics", "Diagnostics recorded (diagnostic rows)"),
            ColumnEntry("error", "Why the run failed, one line; NULL unless failed"),
            ColumnEntry("host", "Host of the process that began the run (NULL for runs recorded before v8)"),
            ColumnEntry("pid", "Process id of that process"),
            ColumnEntry("abandoned_at", "When a later run noticed the run was abandoned, UTC ISO-8601"),
        ]),
        RelationEntry("run_history", "One run with its duration and row total", runHistoryColumns),
        RelationEntry("run_latest", "The newest run of each pipeline (every column of run_history)", runHistoryColumns),
        RelationEntry("diagnostic", "Something odd in the data: what, where and why (never silently dropped)", [
            ColumnEntry("id", "Row id"),
            ColumnEntry("run_id", "The run that recorded it (run.id)"),
            ColumnEntry("payload_sha256", "The payload it is in (payload.sha256); NULL when not from one payload"),
            ColumnEntry("code", "What: grade-mismatch, field-too-long, implausible-coordinate …"),
            ColumnEntry("message", "Why, one sentence"),
            ColumnEntry("location", "Where: item, station and time, file …"),
            ColumnEntry("value", "The value concerned, verbatim; NULL when none"),
        ]),
        RelationEntry("check_result", "One declared check (a pipeline file's checks:) evaluated after one run's load", [
            ColumnEntry("run_id", "The run it checked (run.id)"),
            ColumnEntry("ordinal", "The check's place in the pipeline file, from 1"),
            ColumnEntry("check_name", "The check's name, unique in its pipeline (given, or made from kind, table and columns)"),
            ColumnEntry("kind", "not_null, unique, accepted_values, accepted_range, relationships, row_count, freshness, completeness or sql"),
            ColumnEntry("table_name", "The table or view checked; NULL for sql checks"),
            ColumnEntry("severity", "warn: recorded only; error: fails the run"),
            ColumnEntry("on_failure", "What a failing error check does: rollback (nothing kept) or keep (rows kept, run failed)"),
            ColumnEntry("status", "passed, failed, skipped (does not apply to this run) or error (could not be evaluated)"),
            ColumnEntry("failing_rows", "Rows that break the check (duplicate groups for unique, missing station-hours for completeness); NULL for row_count and freshness"),
            ColumnEntry("message", "What was found, one sentence"),
            ColumnEntry("sample", "Up to 5 failing rows as a JSON array of {column: value} objects; NULL when none"),
        ]),
        RelationEntry("payload", "A payload a run loaded, by content hash (the archive index)", [
            ColumnEntry("sha256", "SHA-256 of the payload bytes"),
            ColumnEntry("source", "Feed: airkorea, careernet, saramin"),
            ColumnEntry("operation", "Operation, e.g. realtime-by-province"),
            ColumnEntry("format", "xml or json"),
            ColumnEntry("request_url", "Request URL with the key redacted"),
            ColumnEntry("fetched_at", "Fetched, UTC ISO-8601"),
            ColumnEntry("http_status", "HTTP status"),
            ColumnEntry("content_type", "HTTP Content-Type"),
            ColumnEntry("byte_count", "Size", unit: .bytes),
            ColumnEntry("item_count", "Items in the payload"),
            ColumnEntry("archive_path", "Where the payload is archived"),
            ColumnEntry("run_id", "The run that loaded it (run.id)"),
        ]),
    ]
}

// MARK: - Internal

extension SchemaDictionary {
    static let bookkeeping: [RelationEntry] = [
        RelationEntry("bookmark", "Per-pipeline progress (e.g. Saramin's newest modification time seen)", internal: true, [
            ColumnEntry("pipeline", "Pipeline name"),
            ColumnEntry("name", "Bookmark name"),
            ColumnEntry("value", "Bookmark value"),
            ColumnEntry("run_id", "The run that set it (run.id)"),
        ]),
        RelationEntry("run_lock", "The pipelines running now, one lock each (so runs never overlap)", internal: true, [
            ColumnEntry("pipeline", "Pipeline name"),
            ColumnEntry("holder", "Unique per acquisition: host:pid:uuid"),
            ColumnEntry("pid", "Process id of the holder"),
            ColumnEntry("host", "Host of the holder"),
            ColumnEntry("acquired_at", "Taken, UTC ISO-8601"),
            ColumnEntry("heartbeat_at", "Last refreshed, UTC ISO-8601 (a lock silent for 15 minutes is taken over)"),
        ]),
        RelationEntry("schedule_slot", "Scheduled fire times already claimed by a scheduler (each slot runs once, whichever host gets it)", internal: true, [
            ColumnEntry("pipeline", "Pipeline name"),
            ColumnEntry("mode", "live or fixtures (the scheduler's mode)"),
            ColumnEntry("slot", "The fire time, UTC ISO-8601"),
            ColumnEntry("host", "Host of the scheduler that claimed it"),
            ColumnEntry("claimed_at", "When it was claimed, UTC ISO-8601"),
        ]),
        RelationEntry("api_call", "API calls per feed API, key and KST day, for the daily quota", internal: true, [
            ColumnEntry("source", "Feed, e.g. airkorea"),
            ColumnEntry("api", "The API (service) counted, e.g. ArpltnInforInqireSvc"),
            ColumnEntry("credential_variable", "Environment variable of the key, e.g. AIRKOREA_SERVICE_KEY"),
            ColumnEntry("key_fingerprint", "12 hex digits of the key's SHA-256 (the key itself is never stored)"),
            ColumnEntry("kst_date", "Day in Asia/Seoul (quotas reset at midnight KST)"),
            ColumnEntry("calls", "Calls made, retries included"),
        ]),
        RelationEntry("grdb_migrations", "The schema migrations applied to this file", internal: true, [
            ColumnEntry("identifier", "Migration name, e.g. v9-province-reference"),
        ]),
    ]
}
