import Domain
import Foundation
import Pipeline

/// Where OpenAQ's records are stored, and the migration creating those tables.
///
/// - `openaq_location`: one row per location (key `location_id`).
/// - `openaq_sensor`: one row per sensor (key `sensor_id`): its location, parameter and units.
///   Written by `locations` (each location's `sensors[]`) and `location-sensors`; the columns
///   only the latter carries (`datetime_first_*`, `datetime_last_*`) and the location are never
///   erased by an answer without them.
/// - `openaq_latest`: one row per sensor × time (key `sensor_id, datetime_utc`): latest values
///   as delivered, without parameter or unit; the view `openaq_latest_measurement` joins both
///   from `openaq_sensor` (and the location's name), marking each sensor's newest row.
/// - `openaq_hourly`: one row per sensor × hour (key `sensor_id, datetime_to_utc`, the hour's
///   end as OpenAQ dates it), with the value, its parameter and units as delivered, the summary
///   statistics and the coverage fields (`percent_complete` as delivered, even above 100).
/// - `openaq_hours_window`: each window a live `sensor-hours` run asked of a sensor and how far
///   it was read.
///
/// Every hour and window loaded raises the run's pipeline bookmark `sensor_<id>_hours_through`
/// (Unix seconds, never lowered) through `TableWriting.raiseBookmark` — the per-sensor resume
/// point `OpenAQFeed.resuming` reads back. UTC times are `YYYY-MM-DDTHH:MM:SSZ`; local times are
/// kept as delivered, with their offset.
public enum OpenAQTables {
    /// The migration identifier; never edited once released.
    public static let migrationIdentifier = "openaq-v1-locations-sensors-latest-hourly"

    /// The feed's migrations and writers, registered with the feed.
    public static let schema = FeedSchema(
        migrations: [SchemaMigration(migrationIdentifier, sqlite: migrationSQL, postgres: migrationPostgresSQL)],
        writers: [
            RecordWriter(OpenAQLocation.self) { l, payload, tables in try tables.upsertBatched(location, row(l, payload: payload)) },
            RecordWriter(OpenAQSensor.self) { s, payload, tables in try tables.upsertBatched(sensor, row(s, payload: payload)) },
            RecordWriter(OpenAQLatest.self) { l, payload, tables in try tables.upsertBatched(latest, row(l, payload: payload)) },
            RecordWriter(OpenAQHourly.self) { h, payload, tables in
                let outcome = try tables.upsert(hourly, row(h, payload: payload))
                try tables.raiseBookmark(OpenAQFeed.hoursBookmark(sensor: h.sensorID), toAtLeast: OpenAQTime.seconds(h.periodTo.utc))
                return outcome
            },
            RecordWriter(OpenAQHoursScan.self) { s, payload, tables in
                let outcome = try tables.upsert(window, row(s, payload: payload))
                try tables.raiseBookmark(OpenAQFeed.hoursBookmark(sensor: s.sensorID), toAtLeast: OpenAQTime.seconds(s.scannedThrough))
                return outcome
            },
        ])

    // MARK: - Rows

    /// A `{utc, local}` pair as two columns: UTC normalised, local as delivered.
    static func append(_ datetime: OpenAQDatetime?, to row: inout RowValues) {
        row.append(datetime.map { OpenAQTime.format($0.utc) }); row.append(datetime?.local)
    }

    static let location = UpsertTable(
        table: "openaq_location",
        columns: ["location_id", "name", "locality", "timezone", "country_id", "country_code", "country_name", "owner_id", "owner_name",
                  "provider_id", "provider_name", "is_mobile", "is_monitor", "instruments", "latitude", "longitude",
                  "datetime_first_utc", "datetime_first_local", "datetime_last_utc", "datetime_last_local", "payload_sha256"],
        key: ["location_id"])

    static func row(_ l: OpenAQLocation, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: location.columns.count)
        row.append(l.id); row.append(l.name); row.append(l.locality); row.append(l.timezone)
        row.append(l.countryID); row.append(l.countryCode); row.append(l.countryName)
        row.append(l.ownerID); row.append(l.ownerName); row.append(l.providerID); row.append(l.providerName)
        row.append(l.isMobile); row.append(l.isMonitor); row.append(l.instruments.isEmpty ? nil : l.instruments.joined(separator: "; "))
        row.append(l.latitude); row.append(l.longitude)
        append(l.datetimeFirst, to: &row); append(l.datetimeLast, to: &row)
        row.append(payload?.sha256)
        return row
    }

    static let sensor = UpsertTable(
        table: "openaq_sensor",
        columns: ["sensor_id", "location_id", "name", "parameter_id", "parameter_name", "units", "display_name",
                  "datetime_first_utc", "datetime_first_local", "datetime_last_utc", "datetime_last_local", "payload_sha256"],
        key: ["sensor_id"],
        keepKnown: ["location_id", "datetime_first_utc", "datetime_first_local", "datetime_last_utc", "datetime_last_local"])

    static func row(_ s: OpenAQSensor, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: sensor.columns.count)
        row.append(s.id); row.append(s.locationID); row.append(s.name)
        row.append(s.parameter.id); row.append(s.parameter.name); row.append(s.parameter.units); row.append(s.parameter.displayName)
        append(s.datetimeFirst, to: &row); append(s.datetimeLast, to: &row)
        row.append(payload?.sha256)
        return row
    }

    static let latest = UpsertTable(
        table: "openaq_latest",
        columns: ["sensor_id", "datetime_utc", "location_id", "datetime_local", "value", "latitude", "longitude", "payload_sha256"],
        key: ["sensor_id", "datetime_utc"])

    static func row(_ l: OpenAQLatest, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: latest.columns.count)
        row.append(l.sensorID); row.append(OpenAQTime.format(l.datetime.utc)); row.append(l.locationID); row.append(l.datetime.local)
        row.append(l.value); row.append(l.latitude); row.append(l.longitude); row.append(payload?.sha256)
        return row
    }

    static let hourly = UpsertTable(
        table: "openaq_hourly",
        columns: ["sensor_id", "datetime_to_utc", "datetime_from_utc", "datetime_from_local", "datetime_to_local", "period_label", "period_interval",
                  "value", "parameter_id", "parameter_name", "units", "display_name", "has_flags", "latitude", "longitude"]
            + OpenAQSummary.fields.map { "summary_" + $0.name }
            + ["coverage_expected_count", "coverage_expected_interval", "coverage_observed_count", "coverage_observed_interval",
               "coverage_percent_complete", "coverage_percent_coverage", "coverage_datetime_from_utc", "coverage_datetime_from_local",
               "coverage_datetime_to_utc", "coverage_datetime_to_local", "payload_sha256"],
        key: ["sensor_id", "datetime_to_utc"])

    static func row(_ h: OpenAQHourly, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: hourly.columns.count)
        row.append(h.sensorID); row.append(OpenAQTime.format(h.periodTo.utc)); row.append(OpenAQTime.format(h.periodFrom.utc))
        row.append(h.periodFrom.local); row.append(h.periodTo.local); row.append(h.periodLabel); row.append(h.periodInterval)
        row.append(h.value); row.append(h.parameter.id); row.append(h.parameter.name); row.append(h.parameter.units); row.append(h.parameter.displayName)
        row.append(h.hasFlags); row.append(h.latitude); row.append(h.longitude)
        for (_, path) in OpenAQSummary.fields { row.append(h.summary[keyPath: path]) }
        let c = h.coverage
        row.append(c.expectedCount); row.append(c.expectedInterval); row.append(c.observedCount); row.append(c.observedInterval)
        row.append(c.percentComplete); row.append(c.percentCoverage)
        append(c.datetimeFrom, to: &row); append(c.datetimeTo, to: &row)
        row.append(payload?.sha256)
        return row
    }

    static let window = UpsertTable(
        table: "openaq_hours_window",
        columns: ["sensor_id", "datetime_from_utc", "datetime_to_utc", "scanned_through_utc", "payload_sha256"],
        key: ["sensor_id", "datetime_from_utc", "datetime_to_utc"])

    static func row(_ s: OpenAQHoursScan, payload: RawPayload?) -> RowValues {
        var row = RowValues(capacity: window.columns.count)
        row.append(s.sensorID); row.append(s.window.datetimeFrom); row.append(s.window.datetimeTo)
        row.append(OpenAQTime.format(s.scannedThrough)); row.append(payload?.sha256)
        return row
    }

    // MARK: - Migration

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    private static let utcPattern = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'"

    static let migrationSQL = """
        -- OpenAQ v3 (api.openaq.org): locations, their sensors, latest values and hourly averages.
        -- Values are stored as delivered, in the units that came with them (units columns); UTC
        -- times are YYYY-MM-DDTHH:MM:SSZ, local times kept as delivered with their offset.
        CREATE TABLE openaq_location (
            location_id     INTEGER NOT NULL PRIMARY KEY CHECK (location_id > 0),   -- id
            name            TEXT,
            locality        TEXT,
            timezone        TEXT,                                   -- IANA, e.g. Asia/Seoul
            country_id      INTEGER CHECK (country_id > 0),
            country_code    TEXT,                                   -- ISO 3166-1 alpha-2 (KR)
            country_name    TEXT,
            owner_id        INTEGER CHECK (owner_id > 0),
            owner_name      TEXT,
            provider_id     INTEGER CHECK (provider_id > 0),
            provider_name   TEXT,                                   -- AirKorea, AirNow …
            is_mobile       INTEGER CHECK (is_mobile IN (0, 1)),
            is_monitor      INTEGER CHECK (is_monitor IN (0, 1)),   -- 1: reference-grade monitor
            instruments     TEXT,                                   -- instruments[].name joined with "; "
            latitude        REAL CHECK (latitude BETWEEN -90 AND 90),
            longitude       REAL CHECK (longitude BETWEEN -180 AND 180),
            datetime_first_utc   TEXT CHECK (datetime_first_utc GLOB \(utcPattern)),
            datetime_first_local TEXT,
            datetime_last_utc    TEXT CHECK (datetime_last_utc GLOB \(utcPattern)),   -- old: a stale or retired location
            datetime_last_local  TEXT,
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
            CHECK ((latitude IS NULL) = (longitude IS NULL))
        );
        CREATE INDEX openaq_location_by_country ON openaq_location (country_code);

        -- No foreign key to openaq_location: a sensors answer may load before its location.
        CREATE TABLE openaq_sensor (
            sensor_id       INTEGER NOT NULL PRIMARY KEY CHECK (sensor_id > 0),
            location_id     INTEGER CHECK (location_id > 0),
            name            TEXT,                                   -- e.g. "pm25 µg/m³"
            parameter_id    INTEGER CHECK (parameter_id > 0),
            parameter_name  TEXT,                                   -- pm25, pm10, o3, no2, co, so2 …
            units           TEXT,                                   -- µg/m³, ppm … as delivered
            display_name    TEXT,                                   -- PM2.5, O₃ … (often NULL)
            datetime_first_utc   TEXT CHECK (datetime_first_utc GLOB \(utcPattern)),
            datetime_first_local TEXT,
            datetime_last_utc    TEXT CHECK (datetime_last_utc GLOB \(utcPattern)),
            datetime_last_local  TEXT,
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX openaq_sensor_by_location ON openaq_sensor (location_id);

        -- Latest values (/v3/locations/{id}/latest): no parameter or unit on the wire; see the view below.
        CREATE TABLE openaq_latest (
            sensor_id       INTEGER NOT NULL CHECK (sensor_id > 0),
            datetime_utc    TEXT NOT NULL CHECK (datetime_utc GLOB \(utcPattern)),
            location_id     INTEGER NOT NULL CHECK (location_id > 0),
            datetime_local  TEXT,
            value           REAL,                                   -- as delivered, in the sensor's units; NULL when null
            latitude        REAL CHECK (latitude BETWEEN -90 AND 90),
            longitude       REAL CHECK (longitude BETWEEN -180 AND 180),
            payload_sha256  TEXT,
            revision        INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (sensor_id, datetime_utc)
        );
        CREATE INDEX openaq_latest_by_location ON openaq_latest (location_id, datetime_utc);

        -- Every latest value with its sensor's parameter and units (NULL until the sensor is
        -- loaded by openaq-locations or location-sensors) and its location's name; is_newest marks
        -- each sensor's newest row.
        CREATE VIEW openaq_latest_measurement AS
        SELECT l.location_id, loc.name AS location_name, l.sensor_id, s.parameter_id, s.parameter_name, s.display_name, s.units,
               l.value, l.datetime_utc, l.datetime_local, l.latitude, l.longitude,
               CASE WHEN l.datetime_utc = (SELECT max(n.datetime_utc) FROM openaq_latest n WHERE n.sensor_id = l.sensor_id)
                    THEN 1 ELSE 0 END AS is_newest
        FROM openaq_latest l
        LEFT JOIN openaq_sensor s ON s.sensor_id = l.sensor_id
        LEFT JOIN openaq_location loc ON loc.location_id = l.location_id;

        -- Hourly averages (/v3/sensors/{id}/hours), dated by the hour's end like OpenAQ.
        CREATE TABLE openaq_hourly (
            sensor_id           INTEGER NOT NULL CHECK (sensor_id > 0),
            datetime_to_utc     TEXT NOT NULL CHECK (datetime_to_utc GLOB \(utcPattern)),     -- period.datetimeTo, the hour's end
            datetime_from_utc   TEXT NOT NULL CHECK (datetime_from_utc GLOB \(utcPattern)),   -- period.datetimeFrom
            datetime_from_local TEXT,
            datetime_to_local   TEXT,
            period_label        TEXT,                                -- 1hour
            period_interval     TEXT,                                -- 01:00:00
            value               REAL,                                -- as delivered, in units; NULL when OpenAQ computed none
            parameter_id        INTEGER CHECK (parameter_id > 0),
            parameter_name      TEXT,
            units               TEXT,                                -- as delivered (µg/m³, ppm …)
            display_name        TEXT,
            has_flags           INTEGER CHECK (has_flags IN (0, 1)),
            latitude            REAL CHECK (latitude BETWEEN -90 AND 90),
            longitude           REAL CHECK (longitude BETWEEN -180 AND 180),
            summary_min REAL, summary_q02 REAL, summary_q25 REAL, summary_median REAL, summary_q75 REAL,
            summary_q98 REAL, summary_max REAL, summary_avg REAL, summary_sd REAL,
            coverage_expected_count     INTEGER CHECK (coverage_expected_count >= 0),
            coverage_expected_interval  TEXT,
            coverage_observed_count     INTEGER CHECK (coverage_observed_count >= 0),
            coverage_observed_interval  TEXT,
            coverage_percent_complete   REAL CHECK (coverage_percent_complete >= 0),   -- as delivered: may exceed 100
            coverage_percent_coverage   REAL CHECK (coverage_percent_coverage >= 0),
            coverage_datetime_from_utc   TEXT CHECK (coverage_datetime_from_utc GLOB \(utcPattern)),
            coverage_datetime_from_local TEXT,
            coverage_datetime_to_utc     TEXT CHECK (coverage_datetime_to_utc GLOB \(utcPattern)),
            coverage_datetime_to_local   TEXT,
            payload_sha256      TEXT,
            revision            INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (sensor_id, datetime_to_utc),
            CHECK (datetime_from_utc < datetime_to_utc)
        );
        CREATE INDEX openaq_hourly_by_time ON openaq_hourly (datetime_to_utc);

        -- The windows live sensor-hours runs asked for; (datetime_from, datetime_to] like the API.
        CREATE TABLE openaq_hours_window (
            sensor_id           INTEGER NOT NULL CHECK (sensor_id > 0),
            datetime_from_utc   TEXT NOT NULL CHECK (datetime_from_utc GLOB \(utcPattern)),
            datetime_to_utc     TEXT NOT NULL CHECK (datetime_to_utc GLOB \(utcPattern)),
            scanned_through_utc TEXT NOT NULL CHECK (scanned_through_utc GLOB \(utcPattern)),
            payload_sha256      TEXT,
            revision            INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (sensor_id, datetime_from_utc, datetime_to_utc),
            CHECK (datetime_from_utc < datetime_to_utc AND scanned_through_utc <= datetime_to_utc)
        );
        """

    /// `migrationSQL` in PostgreSQL's dialect (types mapped as `Sources/PostgresStorage/README.md`
    /// says): `*_utc` columns are instants (`timestamptz`, whole seconds as the SQLite pattern
    /// demands); `*_local` columns stay text, as delivered with their offset.
    static let migrationPostgresSQL = """
        -- OpenAQ v3 (api.openaq.org): locations, their sensors, latest values and hourly averages.
        -- Values are stored as delivered, in the units that came with them (units columns); UTC
        -- times are instants, local times kept as delivered with their offset.
        CREATE TABLE openaq_location (
            location_id     bigint NOT NULL PRIMARY KEY CHECK (location_id > 0),   -- id
            name            text,
            locality        text,
            timezone        text,                                   -- IANA, e.g. Asia/Seoul
            country_id      bigint CHECK (country_id > 0),
            country_code    text,                                   -- ISO 3166-1 alpha-2 (KR)
            country_name    text,
            owner_id        bigint CHECK (owner_id > 0),
            owner_name      text,
            provider_id     bigint CHECK (provider_id > 0),
            provider_name   text,                                   -- AirKorea, AirNow …
            is_mobile       integer CHECK (is_mobile IN (0, 1)),
            is_monitor      integer CHECK (is_monitor IN (0, 1)),   -- 1: reference-grade monitor
            instruments     text,                                   -- instruments[].name joined with "; "
            latitude        double precision CHECK (latitude BETWEEN -90 AND 90),
            longitude       double precision CHECK (longitude BETWEEN -180 AND 180),
            datetime_first_utc   timestamptz CHECK (datetime_first_utc = date_trunc('second', datetime_first_utc)),
            datetime_first_local text,
            datetime_last_utc    timestamptz CHECK (datetime_last_utc = date_trunc('second', datetime_last_utc)),   -- old: a stale or retired location
            datetime_last_local  text,
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            CHECK ((latitude IS NULL) = (longitude IS NULL))
        );
        CREATE INDEX openaq_location_by_country ON openaq_location (country_code);

        -- No foreign key to openaq_location: a sensors answer may load before its location.
        CREATE TABLE openaq_sensor (
            sensor_id       bigint NOT NULL PRIMARY KEY CHECK (sensor_id > 0),
            location_id     bigint CHECK (location_id > 0),
            name            text,                                   -- e.g. "pm25 µg/m³"
            parameter_id    bigint CHECK (parameter_id > 0),
            parameter_name  text,                                   -- pm25, pm10, o3, no2, co, so2 …
            units           text,                                   -- µg/m³, ppm … as delivered
            display_name    text,                                   -- PM2.5, O₃ … (often NULL)
            datetime_first_utc   timestamptz CHECK (datetime_first_utc = date_trunc('second', datetime_first_utc)),
            datetime_first_local text,
            datetime_last_utc    timestamptz CHECK (datetime_last_utc = date_trunc('second', datetime_last_utc)),
            datetime_last_local  text,
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0
        );
        CREATE INDEX openaq_sensor_by_location ON openaq_sensor (location_id);

        -- Latest values (/v3/locations/{id}/latest): no parameter or unit on the wire; see the view below.
        CREATE TABLE openaq_latest (
            sensor_id       bigint NOT NULL CHECK (sensor_id > 0),
            datetime_utc    timestamptz NOT NULL CHECK (datetime_utc = date_trunc('second', datetime_utc)),
            location_id     bigint NOT NULL CHECK (location_id > 0),
            datetime_local  text,
            value           double precision,                       -- as delivered, in the sensor's units; NULL when null
            latitude        double precision CHECK (latitude BETWEEN -90 AND 90),
            longitude       double precision CHECK (longitude BETWEEN -180 AND 180),
            payload_sha256  text,
            revision        bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (sensor_id, datetime_utc)
        );
        CREATE INDEX openaq_latest_by_location ON openaq_latest (location_id, datetime_utc);

        -- Every latest value with its sensor's parameter and units (NULL until the sensor is
        -- loaded by openaq-locations or location-sensors) and its location's name; is_newest marks
        -- each sensor's newest row (1, else 0).
        CREATE VIEW openaq_latest_measurement AS
        SELECT l.location_id, loc.name AS location_name, l.sensor_id, s.parameter_id, s.parameter_name, s.display_name, s.units,
               l.value, l.datetime_utc, l.datetime_local, l.latitude, l.longitude,
               CASE WHEN l.datetime_utc = (SELECT max(n.datetime_utc) FROM openaq_latest n WHERE n.sensor_id = l.sensor_id)
                    THEN 1 ELSE 0 END AS is_newest
        FROM openaq_latest l
        LEFT JOIN openaq_sensor s ON s.sensor_id = l.sensor_id
        LEFT JOIN openaq_location loc ON loc.location_id = l.location_id;

        -- Hourly averages (/v3/sensors/{id}/hours), dated by the hour's end like OpenAQ.
        CREATE TABLE openaq_hourly (
            sensor_id           bigint NOT NULL CHECK (sensor_id > 0),
            datetime_to_utc     timestamptz NOT NULL CHECK (datetime_to_utc = date_trunc('second', datetime_to_utc)),     -- period.datetimeTo, the hour's end
            datetime_from_utc   timestamptz NOT NULL CHECK (datetime_from_utc = date_trunc('second', datetime_from_utc)),   -- period.datetimeFrom
            datetime_from_local text,
            datetime_to_local   text,
            period_label        text,                                -- 1hour
            period_interval     text,                                -- 01:00:00
            value               double precision,                    -- as delivered, in units; NULL when OpenAQ computed none
            parameter_id        bigint CHECK (parameter_id > 0),
            parameter_name      text,
            units               text,                                -- as delivered (µg/m³, ppm …)
            display_name        text,
            has_flags           integer CHECK (has_flags IN (0, 1)),
            latitude            double precision CHECK (latitude BETWEEN -90 AND 90),
            longitude           double precision CHECK (longitude BETWEEN -180 AND 180),
            summary_min double precision, summary_q02 double precision, summary_q25 double precision,
            summary_median double precision, summary_q75 double precision, summary_q98 double precision,
            summary_max double precision, summary_avg double precision, summary_sd double precision,
            coverage_expected_count     bigint CHECK (coverage_expected_count >= 0),
            coverage_expected_interval  text,
            coverage_observed_count     bigint CHECK (coverage_observed_count >= 0),
            coverage_observed_interval  text,
            coverage_percent_complete   double precision CHECK (coverage_percent_complete >= 0),   -- as delivered: may exceed 100
            coverage_percent_coverage   double precision CHECK (coverage_percent_coverage >= 0),
            coverage_datetime_from_utc   timestamptz CHECK (coverage_datetime_from_utc = date_trunc('second', coverage_datetime_from_utc)),
            coverage_datetime_from_local text,
            coverage_datetime_to_utc     timestamptz CHECK (coverage_datetime_to_utc = date_trunc('second', coverage_datetime_to_utc)),
            coverage_datetime_to_local   text,
            payload_sha256      text,
            revision            bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (sensor_id, datetime_to_utc),
            CHECK (datetime_from_utc < datetime_to_utc)
        );
        CREATE INDEX openaq_hourly_by_time ON openaq_hourly (datetime_to_utc);

        -- The windows live sensor-hours runs asked for; (datetime_from, datetime_to] like the API.
        CREATE TABLE openaq_hours_window (
            sensor_id           bigint NOT NULL CHECK (sensor_id > 0),
            datetime_from_utc   timestamptz NOT NULL CHECK (datetime_from_utc = date_trunc('second', datetime_from_utc)),
            datetime_to_utc     timestamptz NOT NULL CHECK (datetime_to_utc = date_trunc('second', datetime_to_utc)),
            scanned_through_utc timestamptz NOT NULL CHECK (scanned_through_utc = date_trunc('second', scanned_through_utc)),
            payload_sha256      text,
            revision            bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (sensor_id, datetime_from_utc, datetime_to_utc),
            CHECK (datetime_from_utc < datetime_to_utc AND scanned_through_utc <= datetime_to_utc)
        );
        """
}
