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
    /// The feed's declarations (`OpenWeatherSchema`) and writers, registered with the feed.
    public static let schema = FeedSchema(
        declarations: OpenWeatherSchema.declarations,
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
}
