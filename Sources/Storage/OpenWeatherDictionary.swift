/// What the OpenWeather feed's tables and view mean (migrations
/// `openweather-v1-air-pollution-and-weather` and `openweather-v2-place`, brought by the feed's
/// own schema), for `feedline describe` and the Datasette metadata.
extension SchemaDictionary {
    static let openWeatherAQI = "OpenWeather's own 1–5 scale: 1 Good, 2 Fair, 3 Moderate, 4 Poor, 5 Very Poor (not the Korean CAI nor the US AQI)"
    static let openWeatherLatitude = ColumnEntry("latitude", "Degrees north: the answer's coord.lat (else the requested point)", unit: .degrees)
    static let openWeatherLongitude = ColumnEntry("longitude", "Degrees east: the answer's coord.lon (else the requested point)", unit: .degrees)

    static let openWeatherComponents: [ColumnEntry] = [
        ColumnEntry("co", "Carbon monoxide, modelled (components.co; µg/m³, not ppm)", unit: .microgramsPerCubicMetre),
        ColumnEntry("no", "Nitrogen monoxide, modelled (components.no)", unit: .microgramsPerCubicMetre),
        ColumnEntry("no2", "Nitrogen dioxide, modelled (components.no2)", unit: .microgramsPerCubicMetre),
        ColumnEntry("o3", "Ozone, modelled (components.o3)", unit: .microgramsPerCubicMetre),
        ColumnEntry("so2", "Sulphur dioxide, modelled (components.so2)", unit: .microgramsPerCubicMetre),
        ColumnEntry("pm2_5", "PM2.5, modelled (components.pm2_5)", unit: .microgramsPerCubicMetre),
        ColumnEntry("pm10", "PM10, modelled (components.pm10)", unit: .microgramsPerCubicMetre),
        ColumnEntry("nh3", "Ammonia, modelled (components.nh3)", unit: .microgramsPerCubicMetre),
    ]

    static let openWeatherPollutionKey: [ColumnEntry] = [
        openWeatherLatitude, openWeatherLongitude,
        ColumnEntry("observed_at", "The hour the values are for (dt), UTC ISO-8601"),
        ColumnEntry("kind", "Which call gave the row: current, forecast or history (a forecast never overwrites the others)"),
        ColumnEntry("aqi", "OpenWeather's air quality index as delivered (main.aqi)", scale: openWeatherAQI, whose: "OpenWeather"),
    ]

    static let openWeather: [RelationEntry] = [
        RelationEntry("openweather_air_pollution", "One OpenWeather air pollution value set: location × hour × kind (current, forecast, history)",
                      openWeatherPollutionKey + openWeatherComponents + [payloadSHA256, revision]),
        RelationEntry("openweather_air_pollution_hourly", "One location × hour of OpenWeather air pollution: history, else current, else forecast",
                      openWeatherPollutionKey + openWeatherComponents),
        RelationEntry("openweather_weather", "One OpenWeather current weather answer: location × observation time, in °C and m/s", [
            openWeatherLatitude, openWeatherLongitude,
            ColumnEntry("observed_at", "When OpenWeather calculated the values (dt), UTC ISO-8601"),
            ColumnEntry("city_id", "OpenWeather city id (id); NULL when the answer names no city"),
            ColumnEntry("city_name", "City name (name)"),
            ColumnEntry("country", "Country code (sys.country)"),
            ColumnEntry("timezone_offset_s", "Offset of the location's time from UTC (timezone; 32400 for KST)", unit: .seconds),
            ColumnEntry("condition_id", "Primary condition code (weather[0].id): 800 clear sky, 801 few clouds, 500 light rain …"),
            ColumnEntry("condition_main", "Primary condition group (weather[0].main): Clear, Clouds, Rain …"),
            ColumnEntry("condition_description", "Primary condition in the requested language (weather[0].description)"),
            ColumnEntry("condition_icon", "Icon id (weather[0].icon)"),
            ColumnEntry("units", "Units the answer came in: standard (K), metric (°C) or imperial (°F, mph)"),
            ColumnEntry("temperature_as_delivered", "Temperature as delivered (main.temp), in the units above"),
            ColumnEntry("temperature_c", "Temperature (main.temp)", unit: .celsius),
            ColumnEntry("feels_like_c", "Perceived temperature (main.feels_like)", unit: .celsius),
            ColumnEntry("temperature_min_c", "Lowest temperature across the city now (main.temp_min), not a daily minimum", unit: .celsius),
            ColumnEntry("temperature_max_c", "Highest temperature across the city now (main.temp_max), not a daily maximum", unit: .celsius),
            ColumnEntry("pressure_hpa", "Atmospheric pressure (main.pressure)", unit: .hectopascals),
            ColumnEntry("sea_level_hpa", "Pressure at sea level (main.sea_level)", unit: .hectopascals),
            ColumnEntry("ground_level_hpa", "Pressure at ground level (main.grnd_level)", unit: .hectopascals),
            ColumnEntry("humidity_pct", "Relative humidity (main.humidity)", unit: .percent),
            ColumnEntry("wind_speed_ms", "Wind speed (wind.speed; mph answers converted)", unit: .metresPerSecond),
            ColumnEntry("wind_gust_ms", "Wind gust (wind.gust)", unit: .metresPerSecond),
            ColumnEntry("wind_deg", "Direction the wind comes from (wind.deg)", unit: .degrees),
            ColumnEntry("clouds_pct", "Cloudiness (clouds.all)", unit: .percent),
            ColumnEntry("visibility_m", "Visibility, capped at 10,000 by OpenWeather (visibility)", unit: .metres),
            ColumnEntry("rain_1h_mm", "Rain in the last hour (rain.1h); NULL when the answer had no rain object", unit: .millimetres),
            ColumnEntry("rain_3h_mm", "Rain in the last 3 hours (rain.3h); NULL when absent", unit: .millimetres),
            ColumnEntry("snow_1h_mm", "Snow in the last hour (snow.1h); NULL when the answer had no snow object", unit: .millimetres),
            ColumnEntry("snow_3h_mm", "Snow in the last 3 hours (snow.3h); NULL when absent", unit: .millimetres),
            ColumnEntry("sunrise_at", "Sunrise (sys.sunrise), UTC ISO-8601; NULL when there is none"),
            ColumnEntry("sunset_at", "Sunset (sys.sunset), UTC ISO-8601; NULL when there is none"),
            payloadSHA256,
            revision,
        ]),
        RelationEntry("openweather_weather_condition", "One weather condition of an OpenWeather current weather answer, in published order", [
            openWeatherLatitude, openWeatherLongitude,
            ColumnEntry("observed_at", "The answer's time (openweather_weather.observed_at)"),
            ColumnEntry("ordinal", "Position in weather[], from 1 (1 is the primary condition)"),
            ColumnEntry("condition_id", "Condition code (weather[].id)"),
            ColumnEntry("main", "Condition group (weather[].main)"),
            ColumnEntry("description", "Condition in the requested language (weather[].description)"),
            ColumnEntry("icon", "Icon id (weather[].icon)"),
        ]),
        RelationEntry("place", "A place name resolved once by OpenWeather geocoding (its best match), kept so it is never asked again", [
            ColumnEntry("query", "The place name as the pipeline asked for it (q), e.g. Jongno-gu,KR"),
            ColumnEntry("name", "OpenWeather's name of the place (name)"),
            ColumnEntry("local_name_ko", "Its Korean name (local_names.ko); NULL when the answer has none"),
            ColumnEntry("country", "Country code, ISO 3166 (country)"),
            ColumnEntry("state", "State or province (state); NULL when the answer names none"),
            ColumnEntry("latitude", "Degrees north (lat); NULL only together with longitude", unit: .degrees),
            ColumnEntry("longitude", "Degrees east (lon); NULL only together with latitude", unit: .degrees),
            ColumnEntry("resolved_at", "When the answer was fetched, UTC ISO-8601"),
            payloadSHA256,
            revision,
        ]),
    ]
}

extension ColumnUnit {
    public static let celsius = ColumnUnit(symbol: "°C", pint: "degC")
    public static let metresPerSecond = ColumnUnit(symbol: "m/s", pint: "m/s")
    public static let hectopascals = ColumnUnit(symbol: "hPa", pint: "hPa")
    public static let millimetres = ColumnUnit(symbol: "mm", pint: "mm")
}
