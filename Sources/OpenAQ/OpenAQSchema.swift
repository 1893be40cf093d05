import Pipeline

/// OpenAQ v3's tables and view (api.openaq.org), declared once: locations, their sensors, latest
/// values and hourly averages, and the windows live `sensor-hours` runs asked for. Values are kept
/// as delivered, in the units that came with them (the `units` columns); `*_utc` columns are UTC
/// instants, `*_local` ones the location's local time as delivered, with its offset.
public enum OpenAQSchema {
    public static let declarations = SchemaDeclarations(
        tables: [location, sensor, latest, hourly, hoursWindow],
        views: [latestMeasurement])

    static let unitsNote = "as delivered, in the units column (µg/m³, ppm …); never converted"

    // MARK: - Shared columns

    /// An OpenAQ id (location, sensor, parameter, country, owner, provider): positive.
    static func id(_ name: String, notNull: Bool = false, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .integer, notNull: notNull, check: [.predicate("> 0")], meaning)
    }

    /// A 0/1 flag.
    static func flag(_ name: String, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .smallInteger, check: [.predicate("IN (0, 1)")], meaning)
    }

    /// A UTC instant, whole seconds.
    static func utc(_ name: String, notNull: Bool = false, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration(name, .instant, notNull: notNull, check: [.wholeSecondInstant], meaning)
    }

    /// An OpenAQ `{utc, local}` pair as two columns, `<name>_utc` and `<name>_local`.
    static func datetime(_ name: String, _ meaning: String) -> [ColumnDeclaration] {
        [utc(name + "_utc", meaning + ", UTC ISO-8601"),
         ColumnDeclaration(name + "_local", .text, meaning + ", the location's local time as delivered (with its offset)")]
    }

    static let latitude = ColumnDeclaration("latitude", .real, check: [.predicate("BETWEEN -90 AND 90")],
                                            "Degrees north (coordinates.latitude); NULL when OpenAQ gives none", unit: .degrees)
    static let longitude = ColumnDeclaration("longitude", .real, check: [.predicate("BETWEEN -180 AND 180")],
                                             "Degrees east (coordinates.longitude); NULL when OpenAQ gives none", unit: .degrees)

    // MARK: - Locations and sensors

    /// One row per location (a monitoring site).
    static let location = TableDeclaration(
        "openaq_location",
        "One OpenAQ location: a monitoring site, who owns and provides it, where it is",
        columns: [
            id("location_id", notNull: true, "OpenAQ location id (id)"),
            ColumnDeclaration("name", .text, "Location name (name)"),
            ColumnDeclaration("locality", .text, "City or district (locality); often NULL"),
            ColumnDeclaration("timezone", .text, "IANA time zone of the location (timezone)"),
            id("country_id", "OpenAQ country id (country.id)"),
            ColumnDeclaration("country_code", .text, "ISO 3166-1 alpha-2 country code (country.code), e.g. KR"),
            ColumnDeclaration("country_name", .text, "Country name (country.name)"),
            id("owner_id", "Owner id (owner.id)"),
            ColumnDeclaration("owner_name", .text, "Owner name (owner.name)"),
            id("provider_id", "Provider id (provider.id)"),
            ColumnDeclaration("provider_name", .text, "Data provider (provider.name), e.g. AirKorea"),
            flag("is_mobile", "1 for a mobile location (isMobile)"),
            flag("is_monitor", "1 for a reference-grade monitor, 0 for a low-cost sensor (isMonitor)"),
            ColumnDeclaration("instruments", .text, "Instrument names (instruments[].name), joined with \"; \""),
            latitude, longitude,
        ] + datetime("datetime_first", "First measurement OpenAQ holds (datetimeFirst)")
          + datetime("datetime_last", "Newest measurement OpenAQ holds (datetimeLast); an old one means a stale or retired location")
          + [.payloadSHA256, .revision],
        key: ["location_id"],
        checks: ["(latitude IS NULL) = (longitude IS NULL)"],
        indexes: [IndexDeclaration("openaq_location_by_country", on: ["country_code"])])

    /// One row per sensor: its location, parameter and units. No foreign key to `openaq_location`:
    /// a sensors answer may load before its location.
    static let sensor = TableDeclaration(
        "openaq_sensor",
        "One OpenAQ sensor: what it measures at which location, and in which units",
        columns: [
            id("sensor_id", notNull: true, "OpenAQ sensor id (id; sensorsId in latest values)"),
            id("location_id", "Its location (openaq_location.location_id); NULL until an answer names it"),
            ColumnDeclaration("name", .text, "Sensor name (name), e.g. \"pm25 µg/m³\""),
            id("parameter_id", "OpenAQ parameter id (parameter.id): 1 pm10, 2 pm25, 7 no2, 8 co, 9 so2, 10 o3 …"),
            ColumnDeclaration("parameter_name", .text, "What it measures (parameter.name): pm10, pm25, o3, no2, co, so2 …"),
            ColumnDeclaration("units", .text, "Units of its values (parameter.units), as delivered: µg/m³, ppm …"),
            ColumnDeclaration("display_name", .text, "Display name (parameter.displayName), e.g. PM2.5; often NULL"),
        ] + datetime("datetime_first", "First value of the sensor (datetimeFirst; location-sensors only)")
          + datetime("datetime_last", "Newest value of the sensor (datetimeLast; location-sensors only)")
          + [.payloadSHA256, .revision],
        key: ["sensor_id"],
        indexes: [IndexDeclaration("openaq_sensor_by_location", on: ["location_id"])])

    // MARK: - Latest values

    /// Latest values (/v3/locations/{id}/latest), one row per sensor × time: no parameter or unit
    /// on the wire (`openaq_latest_measurement` adds them from the sensor).
    static let latest = TableDeclaration(
        "openaq_latest",
        "One OpenAQ latest value: sensor × time (no parameter or unit: see openaq_latest_measurement)",
        columns: [
            id("sensor_id", notNull: true, "The sensor (sensorsId)"),
            utc("datetime_utc", notNull: true, "When the value was measured (datetime.utc), UTC ISO-8601"),
            id("location_id", notNull: true, "The location (locationsId)"),
            ColumnDeclaration("datetime_local", .text, "The same time in the location's local time, as delivered (datetime.local)"),
            ColumnDeclaration("value", .real, "The value (value), " + unitsNote + " of openaq_sensor; NULL when null"),
            latitude, longitude, .payloadSHA256, .revision,
        ],
        key: ["sensor_id", "datetime_utc"],
        indexes: [IndexDeclaration("openaq_latest_by_location", on: ["location_id", "datetime_utc"])])

    /// Every latest value with its sensor's parameter and units (NULL until the sensor is loaded
    /// by openaq-locations or location-sensors) and its location's name; `is_newest` marks each
    /// sensor's newest row (1, else 0).
    static let latestMeasurement = ViewDeclaration(
        "openaq_latest_measurement",
        "One OpenAQ latest value with its sensor's parameter and units and its location's name",
        columns: [
            .view("location_id", "The location (openaq_latest.location_id)"),
            .view("location_name", "Location name (openaq_location.name)"),
            .view("sensor_id", "The sensor"),
            .view("parameter_id", "OpenAQ parameter id (openaq_sensor); NULL until the sensor is loaded"),
            .view("parameter_name", "What was measured (openaq_sensor.parameter_name); NULL until the sensor is loaded"),
            .view("display_name", "Display name of the parameter (openaq_sensor.display_name)"),
            .view("units", "Units of the value (openaq_sensor.units); NULL until the sensor is loaded"),
            .view("value", "The value, " + unitsNote),
            .view("datetime_utc", "When it was measured, UTC ISO-8601"),
            .view("datetime_local", "When it was measured, local time as delivered"),
            latitude, longitude,
            .view("is_newest", "1 for the sensor's newest row, else 0"),
        ],
        query: DialectSQL("""
            SELECT l.location_id, loc.name AS location_name, l.sensor_id, s.parameter_id, s.parameter_name, s.display_name, s.units,
                   l.value, l.datetime_utc, l.datetime_local, l.latitude, l.longitude,
                   CASE WHEN l.datetime_utc = (SELECT max(n.datetime_utc) FROM openaq_latest n WHERE n.sensor_id = l.sensor_id)
                        THEN 1 ELSE 0 END AS is_newest
            FROM openaq_latest l
            LEFT JOIN openaq_sensor s ON s.sensor_id = l.sensor_id
            LEFT JOIN openaq_location loc ON loc.location_id = l.location_id
            """))

    // MARK: - Hourly averages

    /// A statistic of the hour's measurements (`summary.*`), in the row's units.
    static func summary(_ name: String, _ meaning: String) -> ColumnDeclaration {
        ColumnDeclaration("summary_" + name, .real, meaning)
    }

    /// Hourly averages (/v3/sensors/{id}/hours), one row per sensor × hour, dated by the hour's
    /// end like OpenAQ. `coverage_percent_complete` is kept as delivered, even above 100.
    static let hourly = TableDeclaration(
        "openaq_hourly",
        "One OpenAQ hourly average: sensor × hour, dated by the hour's end, with its statistics and coverage",
        columns: [
            id("sensor_id", notNull: true, "The sensor (from the request path /v3/sensors/{id}/hours)"),
            utc("datetime_to_utc", notNull: true, "End of the hour (period.datetimeTo.utc), UTC ISO-8601: OpenAQ dates an hour by its end"),
            utc("datetime_from_utc", notNull: true, "Start of the hour (period.datetimeFrom.utc), UTC ISO-8601"),
            ColumnDeclaration("datetime_from_local", .text, "Start of the hour, local time as delivered"),
            ColumnDeclaration("datetime_to_local", .text, "End of the hour, local time as delivered"),
            ColumnDeclaration("period_label", .text, "Period label (period.label), 1hour"),
            ColumnDeclaration("period_interval", .text, "Period length (period.interval), 01:00:00"),
            ColumnDeclaration("value", .real, "Hourly average (value), " + unitsNote + "; NULL when OpenAQ computed none"),
            id("parameter_id", "OpenAQ parameter id (parameter.id)"),
            ColumnDeclaration("parameter_name", .text, "What was measured (parameter.name)"),
            ColumnDeclaration("units", .text, "Units of value and summary (parameter.units), as delivered"),
            ColumnDeclaration("display_name", .text, "Display name (parameter.displayName)"),
            flag("has_flags", "1 when OpenAQ flagged the hour (flagInfo.hasFlags)"),
            latitude, longitude,
            summary("min", "Smallest measurement in the hour (summary.min)"),
            summary("q02", "2nd percentile (summary.q02)"),
            summary("q25", "25th percentile (summary.q25)"),
            summary("median", "Median (summary.median)"),
            summary("q75", "75th percentile (summary.q75)"),
            summary("q98", "98th percentile (summary.q98)"),
            summary("max", "Largest measurement (summary.max)"),
            summary("avg", "Mean (summary.avg)"),
            summary("sd", "Standard deviation (summary.sd); NULL for a single measurement"),
            ColumnDeclaration("coverage_expected_count", .integer, check: [.predicate(">= 0")],
                              "Measurements expected in the hour (coverage.expectedCount)"),
            ColumnDeclaration("coverage_expected_interval", .text, "Interval they were expected over (coverage.expectedInterval)"),
            ColumnDeclaration("coverage_observed_count", .integer, check: [.predicate(">= 0")],
                              "Measurements received (coverage.observedCount)"),
            ColumnDeclaration("coverage_observed_interval", .text, "Interval they covered (coverage.observedInterval)"),
            ColumnDeclaration("coverage_percent_complete", .real, check: [.predicate(">= 0")],
                              "Received ÷ expected (coverage.percentComplete), as delivered: values above 100 occur and are flagged (diagnostic coverage-over-100)",
                              unit: .percent),
            ColumnDeclaration("coverage_percent_coverage", .real, check: [.predicate(">= 0")],
                              "Share of the hour covered (coverage.percentCoverage), as delivered", unit: .percent),
        ] + datetime("coverage_datetime_from", "Start of what the coverage counts (coverage.datetimeFrom)")
          + datetime("coverage_datetime_to", "End of what the coverage counts (coverage.datetimeTo)")
          + [.payloadSHA256, .revision],
        key: ["sensor_id", "datetime_to_utc"],
        checks: ["datetime_from_utc < datetime_to_utc"],
        indexes: [IndexDeclaration("openaq_hourly_by_time", on: ["datetime_to_utc"])])

    /// The windows live `sensor-hours` runs asked of a sensor, (datetime_from, datetime_to] like
    /// the API, and how far each was read; the sensor's bookmark rises to `scanned_through_utc`.
    static let hoursWindow = TableDeclaration(
        "openaq_hours_window",
        "One window a live OpenAQ sensor-hours run asked of a sensor, and how far it was read",
        columns: [
            id("sensor_id", notNull: true, "The sensor"),
            utc("datetime_from_utc", notNull: true, "datetime_from sent (exclusive), UTC ISO-8601"),
            utc("datetime_to_utc", notNull: true, "datetime_to sent (inclusive), UTC ISO-8601"),
            utc("scanned_through_utc", notNull: true,
                "How far the window was read: its end, or the fetch time when that came first; the sensor's bookmark rises to it"),
            .payloadSHA256, .revision,
        ],
        key: ["sensor_id", "datetime_from_utc", "datetime_to_utc"],
        checks: ["datetime_from_utc < datetime_to_utc AND scanned_through_utc <= datetime_to_utc"])
}
