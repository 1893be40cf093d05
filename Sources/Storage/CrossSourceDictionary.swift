/// What the views across feeds mean (`cross-source-v1-air-quality-hourly`, added by the
/// composition root), for `feedline describe` and the Datasette metadata.
extension SchemaDictionary {
    static let crossSource: [RelationEntry] = [
        RelationEntry("air_quality_hourly", "PM10 and PM2.5 from every air-quality source: one row per source, place and hour", [
            ColumnEntry("source", "airkorea (measured at a station), openweather (modelled) or openaq (measured)"),
            ColumnEntry("kind", "measured, modelled (OpenWeather current and history) or forecast (OpenWeather forecast)"),
            ColumnEntry("place", "The AirKorea station, the OpenAQ location's name, or for OpenWeather the station at the same coordinates (four decimals) else lat,lon"),
            ColumnEntry("station_name", "The AirKorea station the row stands for, when there is one"),
            ColumnEntry("latitude", "Degrees north", unit: .degrees),
            ColumnEntry("longitude", "Degrees east", unit: .degrees),
            ColumnEntry("observed_at", "UTC ISO-8601: the hour's end for AirKorea and OpenAQ hourly averages, OpenWeather's dt for its values"),
            ColumnEntry("pm10", "PM10", unit: .microgramsPerCubicMetre),
            ColumnEntry("pm25", "PM2.5", unit: .microgramsPerCubicMetre),
        ]),
    ]
}
