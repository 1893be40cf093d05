import Domain
import Foundation
import Pipeline

/// Where OpenWeather's records are stored, and the migration creating those tables.
///
/// - `openweather_air_pollution`: one row per location × hour × kind. The kind (`current`,
///   `forecast`, `history`) is part of the key, so a forecast for an hour never overwrites
///   the current or historical value of that hour, and a later forecast for the same hour
///   updates the earlier one (revision + 1). The view `openweather_air_pollution_hourly` keeps
///   one row per location × hour, preferring history, then current, then forecast.
/// - `openweather_weather`: one row per location × observation time, temperatures in °C and
///   wind in m/s whatever units the request used (`units` and `temperature_as_delivered` keep
///   what came); `openweather_weather_condition` holds every entry of `weather[]` in order.
/// - `place` (migration `openweather-v2-place`): one row per place name resolved by geocoding
///   (key `query`, the `q` as asked), with its coordinates; each row written raises the run's
///   pipeline bookmark `place_<query>` (Unix seconds of `resolved_at`) through
///   `TableWriting.raiseBookmark`, which `OpenWeatherFeed.resuming` reads back so the name is
///   never asked again.
///
/// Locations are the answer's `coord` (else the requested point); times are UTC ISO-8601.
public enum OpenWeatherTables {
    /// The migration identifier; never edited once released.
    public static let migrationIdentifier = "openweather-v1-air-pollution-and-weather"
    /// The second migration (the `place` table); never edited once released.
    public static let placeMigrationIdentifier = "openweather-v2-place"

    /// The feed's migrations (in order) and writers, registered with the feed.
    public static let schema = FeedSchema(
        migrations: [SchemaMigration(migrationIdentifier, sqlite: migrationSQL, postgres: migrationPostgresSQL),
                     SchemaMigration(placeMigrationIdentifier, sqlite: placeMigrationSQL, postgres: placeMigrationPostgresSQL)],
        writers: [
            RecordWriter(AirPollutionReading.self) { r, payload, tables in
                let outcome = try tables.upsert(airPollution, row(r, payload: payload))
                // A history hour loaded: the location's history is in up to the hour's end.
                if r.kind == .history {
                    try tables.raiseBookmark(OpenWeatherFeed.historyBookmark(latitude: r.latitude, longitude: r.longitude),
                                             toAtLeast: Int64(r.observedAt.timeIntervalSince1970) + 3600)
                }
                return outcome
            },
            RecordWriter(CurrentWeather.self) { w, payload, tables in try write(w, payload: payload, to: tables) },
            RecordWriter(GeocodedPlace.self) { p, payload, tables in
                let outcome = try tables.upsert(place, row(p, payload: payload))
                try tables.raiseBookmark(OpenWeatherFeed.placeBookmark(query: p.query),
                                         toAtLeast: Int64(p.resolvedAt.timeIntervalSince1970.rounded(.down)))
                return outcome
            },
        ])

    // MARK: - Air pollution

    static let airPollution = UpsertTable(
        table: "openweather_air_pollution",
        columns: ["latitude", "longitude", "observed_at", "kind", "aqi"] + AirPollutionComponents.fields.map(\.name) + ["payload_sha256"],
        key: ["latitude", "longitude", "observed_at", "kind"])

    static func row(_ r: AirPollutionReading, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: airPollution.columns.count)
        row.append(.real(r.latitude)); row.append(.real(r.longitude)); row.append(iso8601UTC(r.observedAt)); row.append(r.kind.rawValue)
        row.append(r.aqi)
        for (_, path) in AirPollutionComponents.fields { row.append(r.components[keyPath: path]) }
        row.append(payload?.sha256)
        return row
    }

    // MARK: - Current weather

    static let weather = UpsertTable(
        table: "openweather_weather",
        columns: ["latitude", "longitude", "observed_at", "city_id", "city_name", "country", "timezone_offset_s",
                  "condition_id", "condition_main", "condition_description", "condition_icon",
                  "units", "temperature_as_delivered", "temperature_c", "feels_like_c", "temperature_min_c", "temperature_max_c",
                  "pressure_hpa", "sea_level_hpa", "ground_level_hpa", "humidity_pct",
                  "wind_speed_ms", "wind_gust_ms", "wind_deg", "clouds_pct", "visibility_m",
                  "rain_1h_mm", "rain_3h_mm", "snow_1h_mm", "snow_3h_mm", "sunrise_at", "sunset_at", "payload_sha256"],
        key: ["latitude", "longitude", "observed_at"])

    /// Every condition of an answer, in published order.
    static let conditions = ChildTable(table: "openweather_weather_condition", parentColumns: ["latitude", "longitude", "observed_at"],
                                       columns: ["condition_id", "main", "description", "icon"])

    static func write(_ w: CurrentWeather, payload: RawPayload?, to tables: any TableWriting) throws -> WriteOutcome {
        let parent: [StoreValue] = [.real(w.latitude), .real(w.longitude), .text(iso8601UTC(w.observedAt))]
        let primary = w.conditions.first
        var row = RowValues(parent)
        row.append(w.cityID); row.append(w.cityName); row.append(w.country); row.append(w.timezoneOffsetSeconds)
        row.append(primary?.id); row.append(primary?.main); row.append(primary?.description); row.append(primary?.icon)
        row.append(w.units.rawValue); row.append(w.temperatureDelivered)
        row.append(w.temperature); row.append(w.feelsLike); row.append(w.temperatureMin); row.append(w.temperatureMax)
        row.append(w.pressure); row.append(w.seaLevelPressure); row.append(w.groundLevelPressure); row.append(w.humidity)
        row.append(w.windSpeed); row.append(w.windGust); row.append(w.windDirection); row.append(w.cloudiness); row.append(w.visibility)
        row.append(w.rain1h); row.append(w.rain3h); row.append(w.snow1h); row.append(w.snow3h)
        row.append(w.sunrise.map(iso8601UTC)); row.append(w.sunset.map(iso8601UTC)); row.append(payload?.sha256)
        var result = try tables.upsert(weather, row)
        let children = w.conditions.map { c in RowValues([StoreValue(c.id), StoreValue(c.main), StoreValue(c.description), StoreValue(c.icon)]) }
        if try tables.replaceChildren(conditions, parent: parent, rows: children), result == .unchanged { result = .updated }
        return result
    }

    // MARK: - Places

    /// A place is resolved once: an answer that repeats it with only a later fetch time changes
    /// nothing (`resolved_at` is written with a change, never compared).
    static let place = UpsertTable(
        table: "place",
        columns: ["query", "name", "local_name_ko", "country", "state", "latitude", "longitude", "resolved_at", "payload_sha256"],
        key: ["query"], ignoredInComparison: ["payload_sha256", "resolved_at"])

    static func row(_ p: GeocodedPlace, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: place.columns.count)
        row.append(p.query); row.append(p.name); row.append(p.localNameKo); row.append(p.country); row.append(p.state)
        row.append(.real(p.latitude)); row.append(.real(p.longitude)); row.append(iso8601UTC(p.resolvedAt)); row.append(payload?.sha256)
        return row
    }

    // MARK: - Migration

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    private static let utcPattern = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'"

    static let migrationSQL = """
        -- OpenWeather air pollution (/data/2.5/air_pollution, …/forecast, …/history): modelled values,
        -- one row per location × hour × kind. All concentrations µg/m³ (CO too, unlike AirKorea's ppm);
        -- a component the answer did not carry is NULL, never 0. aqi is OpenWeather's own 1–5 scale
        -- (1 Good, 2 Fair, 3 Moderate, 4 Poor, 5 Very Poor) as delivered, not the Korean CAI nor the US AQI.
        CREATE TABLE openweather_air_pollution (
            latitude        REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),      -- coord.lat, degrees north
            longitude       REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),   -- coord.lon, degrees east
            observed_at     TEXT NOT NULL CHECK (observed_at GLOB \(utcPattern)),  -- dt, UTC
            kind            TEXT NOT NULL CHECK (kind IN ('current', 'forecast', 'history')),
            aqi             INTEGER CHECK (aqi BETWEEN 1 AND 5),
            co              REAL CHECK (co >= 0),
            no              REAL CHECK (no >= 0),
            no2             REAL CHECK (no2 >= 0),
            o3              REAL CHECK (o3 >= 0),
            so2             REAL CHECK (so2 >= 0),
            pm2_5           REAL CHECK (pm2_5 >= 0),
            pm10            REAL CHECK (pm10 >= 0),
            nh3             REAL CHECK (nh3 >= 0),
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (latitude, longitude, observed_at, kind)
        );
        CREATE INDEX openweather_air_pollution_by_time ON openweather_air_pollution (observed_at);

        -- One row per location × hour: history when there is one, else current, else forecast.
        CREATE VIEW openweather_air_pollution_hourly AS
        SELECT latitude, longitude, observed_at, kind, aqi, co, no, no2, o3, so2, pm2_5, pm10, nh3
        FROM (SELECT a.*, row_number() OVER (
                  PARTITION BY latitude, longitude, observed_at
                  ORDER BY CASE kind WHEN 'history' THEN 0 WHEN 'current' THEN 1 ELSE 2 END) AS preference
              FROM openweather_air_pollution a)
        WHERE preference = 1;

        -- OpenWeather current weather (/data/2.5/weather), one row per location × observation time.
        -- Temperatures °C and wind m/s whatever units the request used; units and
        -- temperature_as_delivered keep what came (K for standard, °C metric, °F imperial).
        -- rain_* and snow_* are NULL when the answer left the object out (OpenWeather does when
        -- there is no precipitation): coalesce(rain_1h_mm, 0) reads them as its documentation means.
        CREATE TABLE openweather_weather (
            latitude        REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
            longitude       REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
            observed_at     TEXT NOT NULL CHECK (observed_at GLOB \(utcPattern)),  -- dt, UTC
            city_id         INTEGER CHECK (city_id > 0),          -- id; NULL when the answer names no city
            city_name       TEXT,                                 -- name
            country         TEXT,                                 -- sys.country
            timezone_offset_s INTEGER CHECK (timezone_offset_s BETWEEN -50400 AND 50400),  -- timezone, s east of UTC
            condition_id    INTEGER CHECK (condition_id >= 0),    -- weather[0].id (all of them: openweather_weather_condition)
            condition_main  TEXT,                                 -- weather[0].main
            condition_description TEXT,                           -- weather[0].description (lang)
            condition_icon  TEXT,                                 -- weather[0].icon
            units           TEXT NOT NULL CHECK (units IN ('standard', 'metric', 'imperial')),
            temperature_as_delivered REAL,                        -- main.temp in the units above
            temperature_c   REAL CHECK (temperature_c BETWEEN -100 AND 70),
            feels_like_c    REAL CHECK (feels_like_c BETWEEN -100 AND 70),
            temperature_min_c REAL CHECK (temperature_min_c BETWEEN -100 AND 70),
            temperature_max_c REAL CHECK (temperature_max_c BETWEEN -100 AND 70),
            pressure_hpa    REAL CHECK (pressure_hpa BETWEEN 100 AND 1200),
            sea_level_hpa   REAL CHECK (sea_level_hpa BETWEEN 100 AND 1200),
            ground_level_hpa REAL CHECK (ground_level_hpa BETWEEN 100 AND 1200),
            humidity_pct    REAL CHECK (humidity_pct BETWEEN 0 AND 100),
            wind_speed_ms   REAL CHECK (wind_speed_ms BETWEEN 0 AND 150),
            wind_gust_ms    REAL CHECK (wind_gust_ms BETWEEN 0 AND 150),
            wind_deg        REAL CHECK (wind_deg BETWEEN 0 AND 360),
            clouds_pct      REAL CHECK (clouds_pct BETWEEN 0 AND 100),
            visibility_m    REAL CHECK (visibility_m >= 0),       -- capped at 10000 by OpenWeather
            rain_1h_mm      REAL CHECK (rain_1h_mm >= 0),
            rain_3h_mm      REAL CHECK (rain_3h_mm >= 0),
            snow_1h_mm      REAL CHECK (snow_1h_mm >= 0),
            snow_3h_mm      REAL CHECK (snow_3h_mm >= 0),
            sunrise_at      TEXT CHECK (sunrise_at GLOB \(utcPattern)),  -- sys.sunrise, UTC
            sunset_at       TEXT CHECK (sunset_at GLOB \(utcPattern)),   -- sys.sunset, UTC
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (latitude, longitude, observed_at)
        );
        CREATE INDEX openweather_weather_by_time ON openweather_weather (observed_at);

        -- Every weather[] entry of an answer, in published order (the first is the primary condition).
        CREATE TABLE openweather_weather_condition (
            latitude        REAL NOT NULL,
            longitude       REAL NOT NULL,
            observed_at     TEXT NOT NULL,
            ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
            condition_id    INTEGER CHECK (condition_id >= 0),    -- 501 moderate rain, 800 clear sky …
            main            TEXT,
            description     TEXT,
            icon            TEXT,
            PRIMARY KEY (latitude, longitude, observed_at, ordinal),
            FOREIGN KEY (latitude, longitude, observed_at)
                REFERENCES openweather_weather (latitude, longitude, observed_at) ON DELETE CASCADE
        );
        """

    /// The `place` table (second migration).
    static let placeMigrationSQL = """
        -- Place names resolved once through OpenWeather's Geocoding API (/geo/1.0/direct?q=…&limit=1):
        -- the best match of each q, kept so no run asks for it again (the {places} parameter value
        -- stands for these coordinates). A name nothing matched has no row.
        CREATE TABLE place (
            query           TEXT PRIMARY KEY NOT NULL CHECK (length(trim(query)) > 0),  -- q as asked, 'Jongno-gu,KR'
            name            TEXT,                                 -- name, OpenWeather's
            local_name_ko   TEXT,                                 -- local_names.ko, when the answer has it
            country         TEXT,                                 -- country, ISO 3166 code
            state           TEXT,                                 -- state, when the answer names one
            latitude        REAL CHECK (latitude BETWEEN -90 AND 90),      -- lat, degrees north
            longitude       REAL CHECK (longitude BETWEEN -180 AND 180),   -- lon, degrees east
            resolved_at     TEXT NOT NULL CHECK (resolved_at GLOB \(utcPattern)),  -- when the answer was fetched, UTC
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
            CHECK ((latitude IS NULL) = (longitude IS NULL))      -- both or neither
        );
        """

    /// `migrationSQL` in PostgreSQL's dialect (types mapped as `Sources/PostgresStorage/README.md`
    /// says): UTC times are instants (`timestamptz`), whole seconds as the SQLite pattern demands.
    static let migrationPostgresSQL = """
        -- OpenWeather air pollution (/data/2.5/air_pollution, …/forecast, …/history): modelled values,
        -- one row per location × hour × kind. All concentrations µg/m³ (CO too, unlike AirKorea's ppm);
        -- a component the answer did not carry is NULL, never 0. aqi is OpenWeather's own 1–5 scale
        -- (1 Good, 2 Fair, 3 Moderate, 4 Poor, 5 Very Poor) as delivered, not the Korean CAI nor the US AQI.
        CREATE TABLE openweather_air_pollution (
            latitude        double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),      -- coord.lat, degrees north
            longitude       double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),   -- coord.lon, degrees east
            observed_at     timestamptz NOT NULL CHECK (observed_at = date_trunc('second', observed_at)),  -- dt
            kind            text NOT NULL CHECK (kind IN ('current', 'forecast', 'history')),
            aqi             integer CHECK (aqi BETWEEN 1 AND 5),
            co              double precision CHECK (co >= 0),
            no              double precision CHECK (no >= 0),
            no2             double precision CHECK (no2 >= 0),
            o3              double precision CHECK (o3 >= 0),
            so2             double precision CHECK (so2 >= 0),
            pm2_5           double precision CHECK (pm2_5 >= 0),
            pm10            double precision CHECK (pm10 >= 0),
            nh3             double precision CHECK (nh3 >= 0),
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (latitude, longitude, observed_at, kind)
        );
        CREATE INDEX openweather_air_pollution_by_time ON openweather_air_pollution (observed_at);

        -- One row per location × hour: history when there is one, else current, else forecast.
        CREATE VIEW openweather_air_pollution_hourly AS
        SELECT latitude, longitude, observed_at, kind, aqi, co, no, no2, o3, so2, pm2_5, pm10, nh3
        FROM (SELECT a.*, row_number() OVER (
                  PARTITION BY latitude, longitude, observed_at
                  ORDER BY CASE kind WHEN 'history' THEN 0 WHEN 'current' THEN 1 ELSE 2 END) AS preference
              FROM openweather_air_pollution a) AS ranked
        WHERE preference = 1;

        -- OpenWeather current weather (/data/2.5/weather), one row per location × observation time.
        -- Temperatures °C and wind m/s whatever units the request used; units and
        -- temperature_as_delivered keep what came (K for standard, °C metric, °F imperial).
        -- rain_* and snow_* are NULL when the answer left the object out (OpenWeather does when
        -- there is no precipitation): coalesce(rain_1h_mm, 0) reads them as its documentation means.
        CREATE TABLE openweather_weather (
            latitude        double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
            longitude       double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
            observed_at     timestamptz NOT NULL CHECK (observed_at = date_trunc('second', observed_at)),  -- dt
            city_id         bigint CHECK (city_id > 0),           -- id; NULL when the answer names no city
            city_name       text,                                 -- name
            country         text,                                 -- sys.country
            timezone_offset_s bigint CHECK (timezone_offset_s BETWEEN -50400 AND 50400),  -- timezone, s east of UTC
            condition_id    bigint CHECK (condition_id >= 0),     -- weather[0].id (all of them: openweather_weather_condition)
            condition_main  text,                                 -- weather[0].main
            condition_description text,                           -- weather[0].description (lang)
            condition_icon  text,                                 -- weather[0].icon
            units           text NOT NULL CHECK (units IN ('standard', 'metric', 'imperial')),
            temperature_as_delivered double precision,            -- main.temp in the units above
            temperature_c   double precision CHECK (temperature_c BETWEEN -100 AND 70),
            feels_like_c    double precision CHECK (feels_like_c BETWEEN -100 AND 70),
            temperature_min_c double precision CHECK (temperature_min_c BETWEEN -100 AND 70),
            temperature_max_c double precision CHECK (temperature_max_c BETWEEN -100 AND 70),
            pressure_hpa    double precision CHECK (pressure_hpa BETWEEN 100 AND 1200),
            sea_level_hpa   double precision CHECK (sea_level_hpa BETWEEN 100 AND 1200),
            ground_level_hpa double precision CHECK (ground_level_hpa BETWEEN 100 AND 1200),
            humidity_pct    double precision CHECK (humidity_pct BETWEEN 0 AND 100),
            wind_speed_ms   double precision CHECK (wind_speed_ms BETWEEN 0 AND 150),
            wind_gust_ms    double precision CHECK (wind_gust_ms BETWEEN 0 AND 150),
            wind_deg        double precision CHECK (wind_deg BETWEEN 0 AND 360),
            clouds_pct      double precision CHECK (clouds_pct BETWEEN 0 AND 100),
            visibility_m    double precision CHECK (visibility_m >= 0),       -- capped at 10000 by OpenWeather
            rain_1h_mm      double precision CHECK (rain_1h_mm >= 0),
            rain_3h_mm      double precision CHECK (rain_3h_mm >= 0),
            snow_1h_mm      double precision CHECK (snow_1h_mm >= 0),
            snow_3h_mm      double precision CHECK (snow_3h_mm >= 0),
            sunrise_at      timestamptz CHECK (sunrise_at = date_trunc('second', sunrise_at)),  -- sys.sunrise
            sunset_at       timestamptz CHECK (sunset_at = date_trunc('second', sunset_at)),    -- sys.sunset
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (latitude, longitude, observed_at)
        );
        CREATE INDEX openweather_weather_by_time ON openweather_weather (observed_at);

        -- Every weather[] entry of an answer, in published order (the first is the primary condition).
        CREATE TABLE openweather_weather_condition (
            latitude        double precision NOT NULL,
            longitude       double precision NOT NULL,
            observed_at     timestamptz NOT NULL,
            ordinal         bigint NOT NULL CHECK (ordinal >= 1),
            condition_id    bigint CHECK (condition_id >= 0),     -- 501 moderate rain, 800 clear sky …
            main            text,
            description     text,
            icon            text,
            PRIMARY KEY (latitude, longitude, observed_at, ordinal),
            FOREIGN KEY (latitude, longitude, observed_at)
                REFERENCES openweather_weather (latitude, longitude, observed_at) ON DELETE CASCADE
        );
        """

    /// `placeMigrationSQL` in PostgreSQL's dialect.
    static let placeMigrationPostgresSQL = """
        -- Place names resolved once through OpenWeather's Geocoding API (/geo/1.0/direct?q=…&limit=1):
        -- the best match of each q, kept so no run asks for it again (the {places} parameter value
        -- stands for these coordinates). A name nothing matched has no row.
        CREATE TABLE place (
            query           text PRIMARY KEY NOT NULL CHECK (length(trim(query)) > 0),  -- q as asked, 'Jongno-gu,KR'
            name            text,                                 -- name, OpenWeather's
            local_name_ko   text,                                 -- local_names.ko, when the answer has it
            country         text,                                 -- country, ISO 3166 code
            state           text,                                 -- state, when the answer names one
            latitude        double precision CHECK (latitude BETWEEN -90 AND 90),      -- lat, degrees north
            longitude       double precision CHECK (longitude BETWEEN -180 AND 180),   -- lon, degrees east
            resolved_at     timestamptz NOT NULL CHECK (resolved_at = date_trunc('second', resolved_at)),  -- when the answer was fetched
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            CHECK ((latitude IS NULL) = (longitude IS NULL))      -- both or neither
        );
        """
}
