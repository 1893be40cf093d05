/// What the OpenAQ feed's tables and view mean (migration
/// `openaq-v1-locations-sensors-latest-hourly`, brought by the feed's own schema), for
/// `feedline describe` and the Datasette metadata.
extension SchemaDictionary {
    static let openAQUnitsNote = "as delivered, in the units column (µg/m³, ppm …); never converted"

    static func openAQTime(_ name: String, _ meaning: String) -> [ColumnEntry] {
        [ColumnEntry(name + "_utc", meaning + ", UTC ISO-8601"),
         ColumnEntry(name + "_local", meaning + ", the location's local time as delivered (with its offset)")]
    }

    static let openAQLatitude = ColumnEntry("latitude", "Degrees north (coordinates.latitude); NULL when OpenAQ gives none", unit: .degrees)
    static let openAQLongitude = ColumnEntry("longitude", "Degrees east (coordinates.longitude); NULL when OpenAQ gives none", unit: .degrees)

    static let openAQ: [RelationEntry] = [
        RelationEntry("openaq_location", "One OpenAQ location: a monitoring site, who owns and provides it, where it is", [
            ColumnEntry("location_id", "OpenAQ location id (id)"),
            ColumnEntry("name", "Location name (name)"),
            ColumnEntry("locality", "City or district (locality); often NULL"),
            ColumnEntry("timezone", "IANA time zone of the location (timezone)"),
            ColumnEntry("country_id", "OpenAQ country id (country.id)"),
            ColumnEntry("country_code", "ISO 3166-1 alpha-2 country code (country.code), e.g. KR"),
            ColumnEntry("country_name", "Country name (country.name)"),
            ColumnEntry("owner_id", "Owner id (owner.id)"),
            ColumnEntry("owner_name", "Owner name (owner.name)"),
            ColumnEntry("provider_id", "Provider id (provider.id)"),
            ColumnEntry("provider_name", "Data provider (provider.name), e.g. AirKorea"),
            ColumnEntry("is_mobile", "1 for a mobile location (isMobile)"),
            ColumnEntry("is_monitor", "1 for a reference-grade monitor, 0 for a low-cost sensor (isMonitor)"),
            ColumnEntry("instruments", "Instrument names (instruments[].name), joined with \"; \""),
            openAQLatitude, openAQLongitude,
        ] + openAQTime("datetime_first", "First measurement OpenAQ holds (datetimeFirst)")
          + openAQTime("datetime_last", "Newest measurement OpenAQ holds (datetimeLast); an old one means a stale or retired location")
          + [payloadSHA256, revision]),
        RelationEntry("openaq_sensor", "One OpenAQ sensor: what it measures at which location, and in which units", [
            ColumnEntry("sensor_id", "OpenAQ sensor id (id; sensorsId in latest values)"),
            ColumnEntry("location_id", "Its location (openaq_location.location_id); NULL until an answer names it"),
            ColumnEntry("name", "Sensor name (name), e.g. \"pm25 µg/m³\""),
            ColumnEntry("parameter_id", "OpenAQ parameter id (parameter.id): 1 pm10, 2 pm25, 7 no2, 8 co, 9 so2, 10 o3 …"),
            ColumnEntry("parameter_name", "What it measures (parameter.name): pm10, pm25, o3, no2, co, so2 …"),
            ColumnEntry("units", "Units of its values (parameter.units), as delivered: µg/m³, ppm …"),
            ColumnEntry("display_name", "Display name (parameter.displayName), e.g. PM2.5; often NULL"),
        ] + openAQTime("datetime_first", "First value of the sensor (datetimeFirst; location-sensors only)")
          + openAQTime("datetime_last", "Newest value of the sensor (datetimeLast; location-sensors only)")
          + [payloadSHA256, revision]),
        RelationEntry("openaq_latest", "One OpenAQ latest value: sensor × time (no parameter or unit: see openaq_latest_measurement)", [
            ColumnEntry("sensor_id", "The sensor (sensorsId)"),
            ColumnEntry("datetime_utc", "When the value was measured (datetime.utc), UTC ISO-8601"),
            ColumnEntry("location_id", "The location (locationsId)"),
            ColumnEntry("datetime_local", "The same time in the location's local time, as delivered (datetime.local)"),
            ColumnEntry("value", "The value (value), " + openAQUnitsNote + " of openaq_sensor; NULL when null"),
            openAQLatitude, openAQLongitude, payloadSHA256, revision,
        ]),
        RelationEntry("openaq_latest_measurement", "One OpenAQ latest value with its sensor's parameter and units and its location's name", [
            ColumnEntry("location_id", "The location (openaq_latest.location_id)"),
            ColumnEntry("location_name", "Location name (openaq_location.name)"),
            ColumnEntry("sensor_id", "The sensor"),
            ColumnEntry("parameter_id", "OpenAQ parameter id (openaq_sensor); NULL until the sensor is loaded"),
            ColumnEntry("parameter_name", "What was measured (openaq_sensor.parameter_name); NULL until the sensor is loaded"),
            ColumnEntry("display_name", "Display name of the parameter (openaq_sensor.display_name)"),
            ColumnEntry("units", "Units of the value (openaq_sensor.units); NULL until the sensor is loaded"),
            ColumnEntry("value", "The value, " + openAQUnitsNote),
            ColumnEntry("datetime_utc", "When it was measured, UTC ISO-8601"),
            ColumnEntry("datetime_local", "When it was measured, local time as delivered"),
            openAQLatitude, openAQLongitude,
            ColumnEntry("is_newest", "1 for the sensor's newest row, else 0"),
        ]),
        RelationEntry("openaq_hourly", "One OpenAQ hourly average: sensor × hour, dated by the hour's end, with its statistics and coverage", [
            ColumnEntry("sensor_id", "The sensor (from the request path /v3/sensors/{id}/hours)"),
            ColumnEntry("datetime_to_utc", "End of the hour (period.datetimeTo.utc), UTC ISO-8601: OpenAQ dates an hour by its end"),
            ColumnEntry("datetime_from_utc", "Start of the hour (period.datetimeFrom.utc), UTC ISO-8601"),
            ColumnEntry("datetime_from_local", "Start of the hour, local time as delivered"),
            ColumnEntry("datetime_to_local", "End of the hour, local time as delivered"),
            ColumnEntry("period_label", "Period label (period.label), 1hour"),
            ColumnEntry("period_interval", "Period length (period.interval), 01:00:00"),
            ColumnEntry("value", "Hourly average (value), " + openAQUnitsNote + "; NULL when OpenAQ computed none"),
            ColumnEntry("parameter_id", "OpenAQ parameter id (parameter.id)"),
            ColumnEntry("parameter_name", "What was measured (parameter.name)"),
            ColumnEntry("units", "Units of value and summary (parameter.units), as delivered"),
            ColumnEntry("display_name", "Display name (parameter.displayName)"),
            ColumnEntry("has_flags", "1 when OpenAQ flagged the hour (flagInfo.hasFlags)"),
            openAQLatitude, openAQLongitude,
            ColumnEntry("summary_min", "Smallest measurement in the hour (summary.min)"),
            ColumnEntry("summary_q02", "2nd percentile (summary.q02)"),
            ColumnEntry("summary_q25", "25th percentile (summary.q25)"),
            ColumnEntry("summary_median", "Median (summary.median)"),
            ColumnEntry("summary_q75", "75th percentile (summary.q75)"),
            ColumnEntry("summary_q98", "98th percentile (summary.q98)"),
            ColumnEntry("summary_max", "Largest measurement (summary.max)"),
            ColumnEntry("summary_avg", "Mean (summary.avg)"),
            ColumnEntry("summary_sd", "Standard deviation (summary.sd); NULL for a single measurement"),
            ColumnEntry("coverage_expected_count", "Measurements expected in the hour (coverage.expectedCount)"),
            ColumnEntry("coverage_expected_interval", "Interval they were expected over (coverage.expectedInterval)"),
            ColumnEntry("coverage_observed_count", "Measurements received (coverage.observedCount)"),
            ColumnEntry("coverage_observed_interval", "Interval they covered (coverage.observedInterval)"),
            ColumnEntry("coverage_percent_complete", "Received ÷ expected (coverage.percentComplete), as delivered: values above 100 occur and are flagged (diagnostic coverage-over-100)", unit: .percent),
            ColumnEntry("coverage_percent_coverage", "Share of the hour covered (coverage.percentCoverage), as delivered", unit: .percent),
        ] + openAQTime("coverage_datetime_from", "Start of what the coverage counts (coverage.datetimeFrom)")
          + openAQTime("coverage_datetime_to", "End of what the coverage counts (coverage.datetimeTo)")
          + [payloadSHA256, revision]),
        RelationEntry("openaq_hours_window", "One window a live OpenAQ sensor-hours run asked of a sensor, and how far it was read", [
            ColumnEntry("sensor_id", "The sensor"),
            ColumnEntry("datetime_from_utc", "datetime_from sent (exclusive), UTC ISO-8601"),
            ColumnEntry("datetime_to_utc", "datetime_to sent (inclusive), UTC ISO-8601"),
            ColumnEntry("scanned_through_utc", "How far the window was read: its end, or the fetch time when that came first; the sensor's bookmark rises to it"),
            payloadSHA256, revision,
        ]),
    ]
}
