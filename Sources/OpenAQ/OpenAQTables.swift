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
    /// The feed's declarations (`OpenAQSchema`) and writers, registered with the feed.
    public static let schema = FeedSchema(
        declarations: OpenAQSchema.declarations,
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
}
