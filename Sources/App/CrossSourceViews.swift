import Pipeline

/// Views over the tables of several feeds at once: they belong to no single feed, so the
/// composition root declares them after the feeds' own tables, when all
/// the feeds they read are registered.
enum CrossSourceViews {
    /// The feeds `air_quality_hourly` reads.
    static let airQualitySources: Set<String> = ["airkorea", "openweather", "openaq"]

    /// Air quality from every source, one row per source, place and hour, each row dated by the
    /// UTC hour it stands for (`hour_start_utc` ≤ t < `hour_end_utc`), mapped from each source's
    /// documentation:
    /// - AirKorea labels an hourly mean by its end (`dataTime` `15:00` is 14:00–15:00 KST):
    ///   `measurement.observed_at` is the end, the start one hour before.
    /// - OpenAQ's hourly averages carry their period (`datetime_from_utc`, `datetime_to_utc`).
    /// - OpenWeather gives one instant, `dt` (on the hour for forecast and history): the row
    ///   stands for the UTC hour that begins at `dt` (the hour `dt` falls in, for a current value
    ///   off the hour).
    /// So sources compare on `hour_start_utc`/`hour_end_utc`, never on `observed_at`, which keeps
    /// each source's own time as its table has it.
    ///
    /// PM is µg/m³ everywhere. Gases come in two units, never converted (the factor depends on
    /// temperature and pressure): a gas column names its unit (`o3_ppm`, `o3_ugm3`) and a source
    /// fills the columns of the unit it delivers — AirKorea ppm, OpenWeather µg/m³, OpenAQ
    /// either, by its sensor's units.
    ///
    /// Coordinates are matched and shown at four decimals (trailing zeros kept: `37.5665,126.9780`).
    /// The OpenAQ branch groups by `l.location_id` too (the same groups: `l` is the location of
    /// `se.location_id` or none), so PostgreSQL lets it read the location's name and coordinates.
    static let airQualityView = ViewDeclaration(
        "air_quality_hourly",
        "Air quality from every source (PM in µg/m³, gases in ppm or µg/m³ as named): one row per source, place and UTC hour",
        columns: [
            .view("source", "airkorea (measured at a station), openweather (modelled) or openaq (measured)"),
            .view("kind", "measured, modelled (OpenWeather current and history) or forecast (OpenWeather forecast)"),
            .view("place", "The AirKorea station, the OpenAQ location's name, or for OpenWeather the station at the same coordinates (four decimals) else lat,lon"),
            .view("station_name", "The AirKorea station the row stands for, when there is one"),
            .view("latitude", "Degrees north", unit: .degrees),
            .view("longitude", "Degrees east", unit: .degrees),
            .view("hour_start_utc", "Start of the hour the row stands for, UTC ISO-8601 (inclusive): AirKorea's label minus one hour, OpenAQ's period start, OpenWeather's dt (its hour)"),
            .view("hour_end_utc", "End of the hour the row stands for, UTC ISO-8601 (exclusive; hour_start_utc + 1 h): compare sources on this interval"),
            .view("observed_at", "The source's own time as its table keeps it, UTC ISO-8601: the hour's end for AirKorea (measurement.observed_at) and OpenAQ (datetime_to_utc), dt for OpenWeather — not comparable across sources; use hour_start_utc/hour_end_utc"),
            .view("pm10", "PM10, hourly", unit: .microgramsPerCubicMetre),
            .view("pm25", "PM2.5, hourly", unit: .microgramsPerCubicMetre),
        ] + gasColumns,
        query: DialectSQL { f in """
            SELECT 'airkorea' AS source, 'measured' AS kind, m.station_name AS place, m.station_name AS station_name,
                   s.latitude AS latitude, s.longitude AS longitude,
                   \(f.instant("m.observed_at", plusHours: -1)) AS hour_start_utc, m.observed_at AS hour_end_utc,
                   m.observed_at AS observed_at, m.pm10 AS pm10, m.pm25 AS pm25,
                   \(gases.map { "m.\($0.name) AS \($0.name)_ppm, NULL AS \($0.name)_ugm3" }.joined(separator: ", "))
            FROM measurement m LEFT JOIN station s ON s.name = m.station_name
            UNION ALL
            SELECT 'openweather', CASE o.kind WHEN 'forecast' THEN 'forecast' ELSE 'modelled' END,
                   coalesce(s.name, \(f.fixed("o.latitude", 4)) || ',' || \(f.fixed("o.longitude", 4))), s.name,
                   o.latitude, o.longitude,
                   \(f.hourStart(of: "o.observed_at")), \(f.instant(f.hourStart(of: "o.observed_at"), plusHours: 1)),
                   o.observed_at, o.pm10, o.pm2_5,
                   \(gases.map { "NULL, o.\($0.name)" }.joined(separator: ", "))
            FROM openweather_air_pollution_hourly o
            LEFT JOIN station s ON \(f.round("s.latitude", 4)) = \(f.round("o.latitude", 4))
                               AND \(f.round("s.longitude", 4)) = \(f.round("o.longitude", 4))
            UNION ALL
            SELECT 'openaq', 'measured', coalesce(l.name, 'location ' || se.location_id), NULL,
                   coalesce(l.latitude, max(h.latitude)), coalesce(l.longitude, max(h.longitude)),
                   min(h.datetime_from_utc), h.datetime_to_utc, h.datetime_to_utc,
                   \(openAQValue("pm10", "µg/m³")), \(openAQValue("pm25", "µg/m³")),
                   \(gases.map { "\(openAQValue($0.name, "ppm")), \(openAQValue($0.name, "µg/m³"))" }.joined(separator: ", "))
            FROM openaq_hourly h
            JOIN openaq_sensor se ON se.sensor_id = h.sensor_id
            LEFT JOIN openaq_location l ON l.location_id = se.location_id
            WHERE (h.parameter_name IN ('pm10', 'pm25') AND h.units = 'µg/m³')
               OR (h.parameter_name IN (\(gases.map { "'\($0.name)'" }.joined(separator: ", "))) AND h.units IN ('µg/m³', 'ppm'))
            GROUP BY se.location_id, l.location_id, h.datetime_to_utc
            """ })

    /// The gases every air-quality source reports, in the two units the sources use.
    static let gases: [(name: String, label: String)] = [
        ("o3", "Ozone"), ("no2", "Nitrogen dioxide"), ("co", "Carbon monoxide"), ("so2", "Sulphur dioxide"),
    ]

    /// `<gas>_ppm` and `<gas>_ugm3` for each gas: the unit in the name, as two units are in use.
    static let gasColumns: [ColumnDeclaration] = gases.flatMap { gas in [
        ColumnDeclaration.view("\(gas.name)_ppm", "\(gas.label), hourly, in ppm: AirKorea, and OpenAQ sensors reporting ppm; NULL from OpenWeather (never converted)", unit: .ppm),
        ColumnDeclaration.view("\(gas.name)_ugm3", "\(gas.label), hourly, in µg/m³: OpenWeather, and OpenAQ sensors reporting µg/m³; NULL from AirKorea (never converted)", unit: .microgramsPerCubicMetre),
    ] }

    /// An OpenAQ hour's value of `parameter` in `units` (NULL when its sensors report another unit).
    static func openAQValue(_ parameter: String, _ units: String) -> String {
        "max(CASE WHEN h.parameter_name = '\(parameter)' AND h.units = '\(units)' THEN h.value END)"
    }

    /// The views across `feeds`: `air_quality_hourly` when all its sources are there.
    static func schema(for feeds: [any Feed]) -> FeedSchema {
        guard airQualitySources.isSubset(of: Set(feeds.map(\.source))) else { return FeedSchema() }
        return FeedSchema(declarations: SchemaDeclarations(views: [airQualityView]))
    }
}
