import Pipeline

/// Views over the tables of several feeds at once: they belong to no single feed, so the
/// composition root adds them to the store's schema, after the feeds' own migrations, when all
/// the feeds they read are registered.
enum CrossSourceViews {
    /// The feeds `air_quality_hourly` reads.
    static let airQualitySources: Set<String> = ["airkorea", "openweather", "openaq"]

    /// The migration identifier; never edited once released.
    static let airQualityIdentifier = "cross-source-v1-air-quality-hourly"

    /// PM10 and PM2.5 in µg/m³ from every air-quality source, one row per source, place and hour:
    /// - `source`: `airkorea` (measured at a monitoring station), `openweather` (modelled; `kind`
    ///   `modelled` for current and history answers, `forecast` for forecasts), `openaq`
    ///   (measured, hourly averages of a location's sensors).
    /// - `place`: the station name (AirKorea), the OpenAQ location's name, or for OpenWeather the
    ///   AirKorea station at the same coordinates (four decimals, as `{stations}` asks) else
    ///   `lat,lon`; `station_name` is the AirKorea station the row stands for, when there is one.
    /// - `observed_at`: UTC. AirKorea and OpenAQ date an hourly average by the hour's end (AirKorea's
    ///   `15:00` is 14:00–15:00 KST); OpenWeather dates a value by its own `dt`.
    /// Gases stay in each source's table: their units differ (ppm at AirKorea, µg/m³ at OpenWeather,
    /// either at OpenAQ).
    static let airQualitySQL = """
        CREATE VIEW air_quality_hourly AS
        SELECT 'airkorea' AS source, 'measured' AS kind, m.station_name AS place, m.station_name AS station_name,
               s.latitude AS latitude, s.longitude AS longitude, m.observed_at AS observed_at, m.pm10 AS pm10, m.pm25 AS pm25
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        UNION ALL
        SELECT 'openweather', CASE o.kind WHEN 'forecast' THEN 'forecast' ELSE 'modelled' END,
               coalesce(s.name, printf('%.4f,%.4f', o.latitude, o.longitude)), s.name,
               o.latitude, o.longitude, o.observed_at, o.pm10, o.pm2_5
        FROM openweather_air_pollution_hourly o
        LEFT JOIN station s ON round(s.latitude, 4) = round(o.latitude, 4) AND round(s.longitude, 4) = round(o.longitude, 4)
        UNION ALL
        SELECT 'openaq', 'measured', coalesce(l.name, 'location ' || se.location_id), NULL,
               coalesce(l.latitude, max(h.latitude)), coalesce(l.longitude, max(h.longitude)), h.datetime_to_utc,
               max(CASE WHEN h.parameter_name = 'pm10' THEN h.value END), max(CASE WHEN h.parameter_name = 'pm25' THEN h.value END)
        FROM openaq_hourly h
        JOIN openaq_sensor se ON se.sensor_id = h.sensor_id
        LEFT JOIN openaq_location l ON l.location_id = se.location_id
        WHERE h.parameter_name IN ('pm10', 'pm25') AND h.units = 'µg/m³'
        GROUP BY se.location_id, h.datetime_to_utc;
        """

    /// `airQualitySQL` in PostgreSQL's dialect, returning the same rows:
    /// - `printf('%.4f,%.4f', lat, lon)` becomes `round(x::numeric, 4)::text` joined with `,`
    ///   (four decimals, trailing zeros kept: `37.5665,126.9780`), and SQLite's `round(x, 4)` on
    ///   doubles `round(x::numeric, 4)`, PostgreSQL having no `round(double precision, int)`.
    /// - The OpenAQ branch also groups by `l.location_id` (the same groups: `l` is the location of
    ///   `se.location_id` or none), so PostgreSQL lets it read the location's name and coordinates.
    /// - `observed_at` is an instant (`timestamptz`) here, as in the tables it comes from.
    static let airQualityPostgresSQL = """
        CREATE VIEW air_quality_hourly AS
        SELECT 'airkorea' AS source, 'measured' AS kind, m.station_name AS place, m.station_name AS station_name,
               s.latitude AS latitude, s.longitude AS longitude, m.observed_at AS observed_at, m.pm10 AS pm10, m.pm25 AS pm25
        FROM measurement m LEFT JOIN station s ON s.name = m.station_name
        UNION ALL
        SELECT 'openweather', CASE o.kind WHEN 'forecast' THEN 'forecast' ELSE 'modelled' END,
               coalesce(s.name, round(o.latitude::numeric, 4)::text || ',' || round(o.longitude::numeric, 4)::text), s.name,
               o.latitude, o.longitude, o.observed_at, o.pm10, o.pm2_5
        FROM openweather_air_pollution_hourly o
        LEFT JOIN station s ON round(s.latitude::numeric, 4) = round(o.latitude::numeric, 4)
                           AND round(s.longitude::numeric, 4) = round(o.longitude::numeric, 4)
        UNION ALL
        SELECT 'openaq', 'measured', coalesce(l.name, 'location ' || se.location_id), NULL,
               coalesce(l.latitude, max(h.latitude)), coalesce(l.longitude, max(h.longitude)), h.datetime_to_utc,
               max(CASE WHEN h.parameter_name = 'pm10' THEN h.value END), max(CASE WHEN h.parameter_name = 'pm25' THEN h.value END)
        FROM openaq_hourly h
        JOIN openaq_sensor se ON se.sensor_id = h.sensor_id
        LEFT JOIN openaq_location l ON l.location_id = se.location_id
        WHERE h.parameter_name IN ('pm10', 'pm25') AND h.units = 'µg/m³'
        GROUP BY se.location_id, l.location_id, h.datetime_to_utc;
        """

    /// The cross-source migrations for `feeds`: `air_quality_hourly` when all its sources are there.
    static func schema(for feeds: [any Feed]) -> FeedSchema {
        guard airQualitySources.isSubset(of: Set(feeds.map(\.source))) else { return FeedSchema(migrations: [], writers: []) }
        return FeedSchema(migrations: [SchemaMigration(airQualityIdentifier, sqlite: airQualitySQL, postgres: airQualityPostgresSQL)],
                          writers: [])
    }
}
