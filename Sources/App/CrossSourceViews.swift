import Pipeline

/// Views over the tables of several feeds at once: they belong to no single feed, so the
/// composition root declares them after the feeds' own tables, when all
/// the feeds they read are registered.
enum CrossSourceViews {
    /// The feeds `air_quality_hourly` reads.
    static let airQualitySources: Set<String> = ["airkorea", "openweather", "openaq"]

    /// PM10 and PM2.5 in µg/m³ from every air-quality source, one row per source, place and hour.
    /// `observed_at` is UTC: AirKorea and OpenAQ date an hourly average by the hour's end
    /// (AirKorea's `15:00` is 14:00–15:00 KST), OpenWeather a value by its own `dt`. Gases stay in
    /// each source's table: their units differ (ppm at AirKorea, µg/m³ at OpenWeather, either at OpenAQ).
    ///
    /// Coordinates are matched and shown at four decimals (trailing zeros kept: `37.5665,126.9780`).
    /// The OpenAQ branch groups by `l.location_id` too (the same groups: `l` is the location of
    /// `se.location_id` or none), so PostgreSQL lets it read the location's name and coordinates.
    static let airQualityView = ViewDeclaration(
        "air_quality_hourly",
        "PM10 and PM2.5 from every air-quality source: one row per source, place and hour",
        columns: [
            .view("source", "airkorea (measured at a station), openweather (modelled) or openaq (measured)"),
            .view("kind", "measured, modelled (OpenWeather current and history) or forecast (OpenWeather forecast)"),
            .view("place", "The AirKorea station, the OpenAQ location's name, or for OpenWeather the station at the same coordinates (four decimals) else lat,lon"),
            .view("station_name", "The AirKorea station the row stands for, when there is one"),
            .view("latitude", "Degrees north", unit: .degrees),
            .view("longitude", "Degrees east", unit: .degrees),
            .view("observed_at", "UTC ISO-8601: the hour's end for AirKorea and OpenAQ hourly averages, OpenWeather's dt for its values"),
            .view("pm10", "PM10", unit: .microgramsPerCubicMetre),
            .view("pm25", "PM2.5", unit: .microgramsPerCubicMetre),
        ],
        query: DialectSQL { f in """
            SELECT 'airkorea' AS source, 'measured' AS kind, m.station_name AS place, m.station_name AS station_name,
                   s.latitude AS latitude, s.longitude AS longitude, m.observed_at AS observed_at, m.pm10 AS pm10, m.pm25 AS pm25
            FROM measurement m LEFT JOIN station s ON s.name = m.station_name
            UNION ALL
            SELECT 'openweather', CASE o.kind WHEN 'forecast' THEN 'forecast' ELSE 'modelled' END,
                   coalesce(s.name, \(f.fixed("o.latitude", 4)) || ',' || \(f.fixed("o.longitude", 4))), s.name,
                   o.latitude, o.longitude, o.observed_at, o.pm10, o.pm2_5
            FROM openweather_air_pollution_hourly o
            LEFT JOIN station s ON \(f.round("s.latitude", 4)) = \(f.round("o.latitude", 4))
                               AND \(f.round("s.longitude", 4)) = \(f.round("o.longitude", 4))
            UNION ALL
            SELECT 'openaq', 'measured', coalesce(l.name, 'location ' || se.location_id), NULL,
                   coalesce(l.latitude, max(h.latitude)), coalesce(l.longitude, max(h.longitude)), h.datetime_to_utc,
                   max(CASE WHEN h.parameter_name = 'pm10' THEN h.value END), max(CASE WHEN h.parameter_name = 'pm25' THEN h.value END)
            FROM openaq_hourly h
            JOIN openaq_sensor se ON se.sensor_id = h.sensor_id
            LEFT JOIN openaq_location l ON l.location_id = se.location_id
            WHERE h.parameter_name IN ('pm10', 'pm25') AND h.units = 'µg/m³'
            GROUP BY se.location_id, l.location_id, h.datetime_to_utc
            """ })

    /// The views across `feeds`: `air_quality_hourly` when all its sources are there.
    static func schema(for feeds: [any Feed]) -> FeedSchema {
        guard airQualitySources.isSubset(of: Set(feeds.map(\.source))) else { return FeedSchema() }
        return FeedSchema(declarations: SchemaDeclarations(views: [airQualityView]))
    }
}
