import Pipeline

/// OpenWeather's tables and view, declared once: air pollution (current, forecast and history
/// answers) and its hourly view, current weather with every condition of an answer, and the
/// places resolved by geocoding. Each store renders its DDL from these, `feedline describe` its
/// dictionary. Locations are the answer's `coord` (else the requested point); times are UTC.
public enum OpenWeatherSchema {
    public static let declarations = SchemaDeclarations(
        tables: [airPollution, weather, weatherCondition, place],
        views: [airPollutionHourly])

    /// OpenWeather's own 1–5 air quality index.
    static let aqiScale = "OpenWeather's own 1–5 scale: 1 Good, 2 Fair, 3 Moderate, 4 Poor, 5 Very Poor (not the Korean CAI nor the US AQI)"

    // MARK: - Shared columns

    /// `latitude` and `longitude` of an answer's location: `coord` (else the requested point).
    /// The child table repeats them as its parent's key, without the range checks.
    static func coordinates(checked: Bool = true) -> [ColumnDeclaration] {
        [ColumnDeclaration("latitude", .real, notNull: true, check: checked ? [.predicate("BETWEEN -90 AND 90")] : [],
                           "Degrees north: the answer's coord.lat (else the requested point)", unit: .degrees),
         ColumnDeclaration("longitude", .real, notNull: true, check: checked ? [.predicate("BETWEEN -180 AND 180")] : [],
                           "Degrees east: the answer's coord.lon (else the requested point)", unit: .degrees)]
    }

    /// A modelled concentration in µg/m³ (CO too, unlike AirKorea's ppm); NULL, never 0, when
    /// the answer did not carry it.
    static func component(_ name: String, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .real, check: [.predicate(">= 0")], meaning, unit: .microgramsPerCubicMetre)
    }

    /// The `components` of an air pollution answer, in the order the table keeps them.
    static let components: [ColumnDeclaration] = [
        component("co", "Carbon monoxide, modelled (components.co; µg/m³, not ppm)"),
        component("no", "Nitrogen monoxide, modelled (components.no)"),
        component("no2", "Nitrogen dioxide, modelled (components.no2)"),
        component("o3", "Ozone, modelled (components.o3)"),
        component("so2", "Sulphur dioxide, modelled (components.so2)"),
        component("pm2_5", "PM2.5, modelled (components.pm2_5)"),
        component("pm10", "PM10, modelled (components.pm10)"),
        component("nh3", "Ammonia, modelled (components.nh3)"),
    ]

    /// What `openweather_air_pollution` and its hourly view share: the key, the index, the components.
    static let pollutionColumns: [ColumnDeclaration] = coordinates() + [
        ColumnDeclaration("observed_at", .instant, notNull: true, check: [.wholeSecondInstant],
                          "The hour the values are for (dt), UTC ISO-8601"),
        ColumnDeclaration("kind", .text, notNull: true, check: [.predicate("IN ('current', 'forecast', 'history')")],
                          "Which call gave the row: current, forecast or history (a forecast never overwrites the others)"),
        ColumnDeclaration("aqi", .smallInteger, check: [.predicate("BETWEEN 1 AND 5")],
                          "OpenWeather's air quality index as delivered (main.aqi)", scale: aqiScale, whose: "OpenWeather"),
    ] + components

    // MARK: - Air pollution

    /// Air pollution (/data/2.5/air_pollution, …/forecast, …/history): modelled values, one row
    /// per location × hour × kind. The kind is part of the key, so a forecast for an hour never
    /// overwrites the current or historical value of that hour; a later forecast for the same
    /// hour updates the earlier one (revision + 1).
    static let airPollution = TableDeclaration(
        "openweather_air_pollution",
        "One OpenWeather air pollution value set: location × hour × kind (current, forecast, history)",
        columns: pollutionColumns + [.payloadSHA256, .revision],
        key: ["latitude", "longitude", "observed_at", "kind"],
        indexes: [IndexDeclaration("openweather_air_pollution_by_time", on: ["observed_at"])])

    /// One row per location × hour: history when there is one, else current, else forecast.
    static let airPollutionHourly = ViewDeclaration(
        "openweather_air_pollution_hourly",
        "One location × hour of OpenWeather air pollution: history, else current, else forecast",
        columns: pollutionColumns,
        query: DialectSQL("""
            SELECT latitude, longitude, observed_at, kind, aqi, co, no, no2, o3, so2, pm2_5, pm10, nh3
            FROM (SELECT a.*, row_number() OVER (
                      PARTITION BY latitude, longitude, observed_at
                      ORDER BY CASE kind WHEN 'history' THEN 0 WHEN 'current' THEN 1 ELSE 2 END) AS preference
                  FROM openweather_air_pollution a) AS ranked
            WHERE preference = 1
            """))

    // MARK: - Current weather

    static func temperature(_ name: String, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .real, check: [.predicate("BETWEEN -100 AND 70")], meaning, unit: .celsius)
    }

    static func pressure(_ name: String, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .real, check: [.predicate("BETWEEN 100 AND 1200")], meaning, unit: .hectopascals)
    }

    static func bounded(_ name: String, _ bounds: String, _ meaning: String, unit: ColumnUnit) -> ColumnDeclaration {
        ColumnDeclaration(name, .real, check: [.predicate(bounds)], meaning, unit: unit)
    }

    /// Rain or snow in mm; NULL when the answer left the object out (OpenWeather does when there
    /// is no precipitation): `coalesce(rain_1h_mm, 0)` reads it as its documentation means.
    static func precipitation(_ name: String, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .real, check: [.predicate(">= 0")], meaning, unit: .millimetres)
    }

    /// Current weather (/data/2.5/weather), one row per location × observation time.
    /// Temperatures are °C and wind m/s whatever units the request used; `units` and
    /// `temperature_as_delivered` keep what came (K for standard, °C metric, °F imperial).
    static let weather = TableDeclaration(
        "openweather_weather",
        "One OpenWeather current weather answer: location × observation time, in °C and m/s",
        columns: coordinates() + [
            ColumnDeclaration("observed_at", .instant, notNull: true, check: [.wholeSecondInstant],
                              "When OpenWeather calculated the values (dt), UTC ISO-8601"),
            ColumnDeclaration("city_id", .integer, check: [.predicate("> 0")], "OpenWeather city id (id); NULL when the answer names no city"),
            ColumnDeclaration("city_name", .text, "City name (name)"),
            ColumnDeclaration("country", .text, "Country code (sys.country)"),
            ColumnDeclaration("timezone_offset_s", .integer, check: [.predicate("BETWEEN -50400 AND 50400")],
                              "Offset of the location's time from UTC (timezone; 32400 for KST)", unit: .seconds),
            ColumnDeclaration("condition_id", .integer, check: [.predicate(">= 0")],
                              "Primary condition code (weather[0].id): 800 clear sky, 801 few clouds, 500 light rain …"),
            ColumnDeclaration("condition_main", .text, "Primary condition group (weather[0].main): Clear, Clouds, Rain …"),
            ColumnDeclaration("condition_description", .text, "Primary condition in the requested language (weather[0].description)"),
            ColumnDeclaration("condition_icon", .text, "Icon id (weather[0].icon)"),
            ColumnDeclaration("units", .text, notNull: true, check: [.predicate("IN ('standard', 'metric', 'imperial')")],
                              "Units the answer came in: standard (K), metric (°C) or imperial (°F, mph)"),
            ColumnDeclaration("temperature_as_delivered", .real, "Temperature as delivered (main.temp), in the units above"),
            temperature("temperature_c", "Temperature (main.temp)"),
            temperature("feels_like_c", "Perceived temperature (main.feels_like)"),
            temperature("temperature_min_c", "Lowest temperature across the city now (main.temp_min), not a daily minimum"),
            temperature("temperature_max_c", "Highest temperature across the city now (main.temp_max), not a daily maximum"),
            pressure("pressure_hpa", "Atmospheric pressure (main.pressure)"),
            pressure("sea_level_hpa", "Pressure at sea level (main.sea_level)"),
            pressure("ground_level_hpa", "Pressure at ground level (main.grnd_level)"),
            bounded("humidity_pct", "BETWEEN 0 AND 100", "Relative humidity (main.humidity)", unit: .percent),
            bounded("wind_speed_ms", "BETWEEN 0 AND 150", "Wind speed (wind.speed; mph answers converted)", unit: .metresPerSecond),
            bounded("wind_gust_ms", "BETWEEN 0 AND 150", "Wind gust (wind.gust)", unit: .metresPerSecond),
            bounded("wind_deg", "BETWEEN 0 AND 360", "Direction the wind comes from (wind.deg)", unit: .degrees),
            bounded("clouds_pct", "BETWEEN 0 AND 100", "Cloudiness (clouds.all)", unit: .percent),
            bounded("visibility_m", ">= 0", "Visibility, capped at 10,000 by OpenWeather (visibility)", unit: .metres),
            precipitation("rain_1h_mm", "Rain in the last hour (rain.1h); NULL when the answer had no rain object"),
            precipitation("rain_3h_mm", "Rain in the last 3 hours (rain.3h); NULL when absent"),
            precipitation("snow_1h_mm", "Snow in the last hour (snow.1h); NULL when the answer had no snow object"),
            precipitation("snow_3h_mm", "Snow in the last 3 hours (snow.3h); NULL when absent"),
            ColumnDeclaration("sunrise_at", .instant, check: [.wholeSecondInstant], "Sunrise (sys.sunrise), UTC ISO-8601; NULL when there is none"),
            ColumnDeclaration("sunset_at", .instant, check: [.wholeSecondInstant], "Sunset (sys.sunset), UTC ISO-8601; NULL when there is none"),
            .payloadSHA256,
            .revision,
        ],
        key: ["latitude", "longitude", "observed_at"],
        indexes: [IndexDeclaration("openweather_weather_by_time", on: ["observed_at"])])

    /// Every `weather[]` entry of a current weather answer, in published order (the first is the
    /// primary condition, also kept on the answer's row). Replaced whole with its parent.
    static let weatherCondition = TableDeclaration(
        "openweather_weather_condition",
        "One weather condition of an OpenWeather current weather answer, in published order",
        columns: coordinates(checked: false) + [
            ColumnDeclaration("observed_at", .instant, notNull: true, "The answer's time (openweather_weather.observed_at)"),
            ColumnDeclaration("ordinal", .integer, notNull: true, check: [.predicate(">= 1")],
                              "Position in weather[], from 1 (1 is the primary condition)"),
            ColumnDeclaration("condition_id", .integer, check: [.predicate(">= 0")], "Condition code (weather[].id)"),
            ColumnDeclaration("main", .text, "Condition group (weather[].main)"),
            ColumnDeclaration("description", .text, "Condition in the requested language (weather[].description)"),
            ColumnDeclaration("icon", .text, "Icon id (weather[].icon)"),
        ],
        key: ["latitude", "longitude", "observed_at", "ordinal"],
        foreignKeys: [CompositeForeignKey(["latitude", "longitude", "observed_at"],
                                          references: ForeignKey("openweather_weather", ["latitude", "longitude", "observed_at"],
                                                                 onDelete: .cascade))])

    // MARK: - Places

    /// Place names resolved once through the Geocoding API (/geo/1.0/direct?q=…&limit=1): the
    /// best match of each `q`, kept so no run asks for it again (a `{places}` parameter value
    /// stands for these coordinates). A name nothing matched has no row.
    static let place = TableDeclaration(
        "place",
        "A place name resolved once by OpenWeather geocoding (its best match), kept so it is never asked again",
        columns: [
            ColumnDeclaration("query", .text, notNull: true, "The place name as the pipeline asked for it (q), e.g. Jongno-gu,KR"),
            ColumnDeclaration("name", .text, "OpenWeather's name of the place (name)"),
            ColumnDeclaration("local_name_ko", .text, "Its Korean name (local_names.ko); NULL when the answer has none"),
            ColumnDeclaration("country", .text, "Country code, ISO 3166 (country)"),
            ColumnDeclaration("state", .text, "State or province (state); NULL when the answer names none"),
            ColumnDeclaration("latitude", .real, check: [.predicate("BETWEEN -90 AND 90")],
                              "Degrees north (lat); NULL only together with longitude", unit: .degrees),
            ColumnDeclaration("longitude", .real, check: [.predicate("BETWEEN -180 AND 180")],
                              "Degrees east (lon); NULL only together with latitude", unit: .degrees),
            ColumnDeclaration("resolved_at", .instant, notNull: true, check: [.wholeSecondInstant],
                              "When the answer was fetched, UTC ISO-8601"),
            .payloadSHA256,
            .revision,
        ],
        key: ["query"],
        checks: ["length(trim(query)) > 0",
                 "(latitude IS NULL) = (longitude IS NULL)"])
}
