import Domain
import Foundation
import Pipeline

/// An OpenAQ timestamp pair `{utc, local}`: the instant, and the location's local time exactly
/// as delivered (with its offset, e.g. `2024-03-06T14:00:00+09:00`).
public struct OpenAQDatetime: Sendable, Hashable {
    /// `utc`, read with its offset.
    public var utc: Date
    /// `local` as delivered; nil when absent.
    public var local: String?

    public init(utc: Date, local: String?) {
        self.utc = utc; self.local = local
    }
}

/// What a sensor measures, as OpenAQ names it (`parameter {id, name, units, displayName}`).
public struct OpenAQParameter: Sendable, Hashable {
    /// `id` (2 is pm25, 1 pm10 …).
    public var id: Int?
    /// `name` (`pm25`, `o3` …).
    public var name: String?
    /// `units` as delivered (`µg/m³`, `ppm`, `°C`): values are stored in these units, unconverted.
    public var units: String?
    /// `displayName` (`PM2.5`, `O₃`); often null.
    public var displayName: String?

    public init(id: Int? = nil, name: String? = nil, units: String? = nil, displayName: String? = nil) {
        self.id = id; self.name = name; self.units = units; self.displayName = displayName
    }
}

// MARK: - Locations and sensors

/// One OpenAQ location (`/v3/locations` result): a monitoring site and who runs it. Produced by
/// `OpenAQFeed.decode`; stored in `openaq_location` by `OpenAQTables`. Its `sensors[]` travel as
/// separate `OpenAQSensor` records.
///
/// Natural key: `id`.
public struct OpenAQLocation: LoadableRecord {
    public var id: Int
    public var name: String?
    /// `locality` (a city or district; often null).
    public var locality: String?
    /// `timezone` (IANA, `Asia/Seoul`).
    public var timezone: String?
    public var countryID: Int?
    /// `country.code`, ISO 3166-1 alpha-2 (`KR`).
    public var countryCode: String?
    public var countryName: String?
    public var ownerID: Int?
    public var ownerName: String?
    public var providerID: Int?
    /// `provider.name` (`AirKorea`, `AirNow` …).
    public var providerName: String?
    public var isMobile: Bool?
    /// `isMonitor`: a reference-grade monitor (as opposed to a low-cost sensor).
    public var isMonitor: Bool?
    /// `instruments[].name`, in published order.
    public var instruments: [String]
    /// `coordinates`, degrees; nil when OpenAQ gives none (mobile locations) or they are unusable.
    public var latitude: Double?
    public var longitude: Double?
    /// `datetimeFirst`, `datetimeLast`: the first and newest measurement OpenAQ holds; an old
    /// `datetimeLast` means a stale or retired location.
    public var datetimeFirst: OpenAQDatetime?
    public var datetimeLast: OpenAQDatetime?

    public init(id: Int) {
        self.id = id
        instruments = []
    }
}

/// One OpenAQ sensor: what one instrument at a location measures, and in which units. Produced
/// from a location's `sensors[]` and by `/v3/locations/{id}/sensors`; stored in
/// `openaq_sensor`, where latest values (which carry no parameter or unit) find theirs.
///
/// Natural key: `id`.
public struct OpenAQSensor: LoadableRecord {
    public var id: Int
    /// The location it belongs to; nil when the answer does not say (a bare sensors file).
    public var locationID: Int?
    /// `name` (`pm25 µg/m³`).
    public var name: String?
    public var parameter: OpenAQParameter
    /// Only `/v3/locations/{id}/sensors` carries these.
    public var datetimeFirst: OpenAQDatetime?
    public var datetimeLast: OpenAQDatetime?

    public init(id: Int, locationID: Int?, name: String?, parameter: OpenAQParameter) {
        self.id = id; self.locationID = locationID; self.name = name; self.parameter = parameter
    }
}

// MARK: - Latest values

/// One row of `/v3/locations/{id}/latest`: a sensor's newest value. It names no parameter and
/// no unit; `openaq_latest_measurement` joins them from `openaq_sensor`. "Latest" can be
/// years old for a retired sensor. Stored in `openaq_latest`.
///
/// Natural key: (`sensorID`, `datetime.utc`).
public struct OpenAQLatest: LoadableRecord {
    public var sensorID: Int
    public var locationID: Int
    /// `datetime`: when the value was measured (the end of its period).
    public var datetime: OpenAQDatetime
    /// `value` as delivered, in the sensor's units; nil when it was null or unusable.
    public var value: Double?
    public var latitude: Double?
    public var longitude: Double?

    public init(sensorID: Int, locationID: Int, datetime: OpenAQDatetime, value: Double?, latitude: Double? = nil, longitude: Double? = nil) {
        self.sensorID = sensorID; self.locationID = locationID; self.datetime = datetime; self.value = value
        self.latitude = latitude; self.longitude = longitude
    }

    /// The hour ending at (or holding) the value's time; the pipeline's `newest_observed_at`
    /// bookmark follows it.
    public var observedSlot: HourSlot? { HourSlot(containing: datetime.utc.addingTimeInterval(-1)) }
}

// MARK: - Hourly values

/// `summary`: statistics of the measurements an hour was computed from, in the row's units.
public struct OpenAQSummary: Sendable, Hashable {
    public var min: Double?
    public var q02: Double?
    public var q25: Double?
    public var median: Double?
    public var q75: Double?
    public var q98: Double?
    public var max: Double?
    public var avg: Double?
    /// Standard deviation; null when one measurement made the hour.
    public var sd: Double?

    public init() {}

    /// The wire names in the order OpenAQ documents them, with their key paths.
    public static var fields: [(name: String, path: WritableKeyPath<OpenAQSummary, Double?>)] { [
        ("min", \.min), ("q02", \.q02), ("q25", \.q25), ("median", \.median), ("q75", \.q75), ("q98", \.q98),
        ("max", \.max), ("avg", \.avg), ("sd", \.sd),
    ] }
}

/// `coverage`: how much of the hour the measurements covered, as OpenAQ computed it.
/// `percentComplete` is not capped at 100 (OpenAQ has published values in the millions): it is
/// kept as delivered and flagged (`coverage-over-100`), so check it before reading it as
/// completeness.
public struct OpenAQCoverage: Sendable, Hashable {
    public var expectedCount: Int?
    /// `expectedInterval` as delivered (`01:00:00`).
    public var expectedInterval: String?
    public var observedCount: Int?
    public var observedInterval: String?
    /// %, as delivered (may exceed 100).
    public var percentComplete: Double?
    /// %, as delivered.
    public var percentCoverage: Double?
    public var datetimeFrom: OpenAQDatetime?
    public var datetimeTo: OpenAQDatetime?

    public init() {}
}

/// One row of `/v3/sensors/{id}/hours`: a sensor's average over one hour, with the statistics
/// and coverage OpenAQ computed. Stored in `openaq_hourly`; its hour's end raises the sensor's
/// resume bookmark.
///
/// Natural key: (`sensorID`, `periodTo.utc`) — OpenAQ dates an hour by its end.
public struct OpenAQHourly: LoadableRecord {
    public var sensorID: Int
    /// `period.datetimeFrom`, `period.datetimeTo`: exactly one hour apart.
    public var periodFrom: OpenAQDatetime
    public var periodTo: OpenAQDatetime
    /// `period.label` (`1hour`) and `period.interval` (`01:00:00`) as delivered.
    public var periodLabel: String?
    public var periodInterval: String?
    /// `value` as delivered, in `parameter.units`; nil when OpenAQ could not compute it (null).
    public var value: Double?
    public var parameter: OpenAQParameter
    /// `flagInfo.hasFlags`.
    public var hasFlags: Bool?
    public var latitude: Double?
    public var longitude: Double?
    public var summary: OpenAQSummary
    public var coverage: OpenAQCoverage

    public init(sensorID: Int, periodFrom: OpenAQDatetime, periodTo: OpenAQDatetime, parameter: OpenAQParameter) {
        self.sensorID = sensorID; self.periodFrom = periodFrom; self.periodTo = periodTo; self.parameter = parameter
        summary = OpenAQSummary()
        coverage = OpenAQCoverage()
    }

    /// The hour the row covers (the pipeline's `newest_observed_at` bookmark follows it).
    public var observedSlot: HourSlot? { HourSlot(containing: periodFrom.utc) }
}

/// One hourly window asked of a sensor (`datetime_from`, `datetime_to`), and how far it was read
/// (`OpenAQHoursWindow.scannedThrough`). Produced with the first page of a live `sensor-hours`
/// call, so a sensor whose window held no hours still moves its bookmark forward — when that
/// page is loaded at all: an empty page identical to one loaded before is skipped whole (see
/// `OpenAQHoursWindow`). Stored in `openaq_hours_window`.
///
/// Natural key: (`sensorID`, `window.from`, `window.to`).
public struct OpenAQHoursScan: LoadableRecord {
    public var sensorID: Int
    public var window: OpenAQHoursWindow
    public var scannedThrough: Date

    public init(sensorID: Int, window: OpenAQHoursWindow, scannedThrough: Date) {
        self.sensorID = sensorID; self.window = window; self.scannedThrough = scannedThrough
    }
}
