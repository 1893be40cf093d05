import Domain
import FeedCore
import Foundation
import Pipeline

/// Turns OpenAQ result items into records. Pure: items in, records and diagnostics out.
///
/// Each call's rows have a natural key (a location's or sensor's id; a latest value's sensor and
/// time; an hour's sensor and end); a row without a usable key is skipped with a diagnostic, and
/// of two rows with the same key in one answer the first is kept (`duplicate-row`).
enum OpenAQMapping {
    // MARK: - Locations

    /// The fields of one location (its `sensors[]` and `instruments[]` are read beside it).
    static let locationSchema = FieldSchema([
        "id", "name", "locality", "timezone", "country/id", "country/code", "country/name", "owner/id", "owner/name",
        "provider/id", "provider/name", "isMobile", "isMonitor", "coordinates/latitude", "coordinates/longitude",
        "datetimeFirst/utc", "datetimeFirst/local", "datetimeLast/utc", "datetimeLast/local",
    ])

    /// The fields of one sensor: a location's `sensors[]` entry, or a `/locations/{id}/sensors`
    /// result (which adds `datetimeFirst` and `datetimeLast`).
    static let sensorSchema = FieldSchema([
        "id", "name", "parameter/id", "parameter/name", "parameter/units", "parameter/displayName",
        "datetimeFirst/utc", "datetimeFirst/local", "datetimeLast/utc", "datetimeLast/local",
    ])

    /// One location, or nil (with the reason) when it has no usable id.
    static func location(_ item: ItemFields, instruments: [String]) -> ItemOutcome {
        var fields = OpenAQFields(item, noun: "location")
        guard let id = fields.id("id", required: true, skipping: "location, with its sensors,") else { return fields.skipped() }
        fields.notes.subject = String(id)
        var location = OpenAQLocation(id: id)
        location.name = fields.text("name")
        location.locality = fields.text("locality")
        location.timezone = fields.text("timezone")
        location.countryID = fields.id("country/id", required: false)
        location.countryCode = fields.text("country/code")
        location.countryName = fields.text("country/name")
        location.ownerID = fields.id("owner/id", required: false)
        location.ownerName = fields.text("owner/name")
        location.providerID = fields.id("provider/id", required: false)
        location.providerName = fields.text("provider/name")
        location.isMobile = fields.boolean("isMobile")
        location.isMonitor = fields.boolean("isMonitor")
        (location.latitude, location.longitude) = fields.coordinates("coordinates")
        location.datetimeFirst = fields.datetime("datetimeFirst", required: false)
        location.datetimeLast = fields.datetime("datetimeLast", required: false)
        location.instruments = instruments
        return fields.notes.keep(FeedRecord(location))
    }

    /// One sensor of `locationID` (nil when unknown), or nil (with the reason) when it has no
    /// usable id. `noun` locates its diagnostics (`sensor`, or `location 2178 sensor`).
    static func sensor(_ item: ItemFields, locationID: Int?, noun: String = "sensor") -> ItemOutcome {
        var fields = OpenAQFields(item, noun: noun)
        guard let id = fields.id("id", required: true, skipping: "sensor") else { return fields.skipped() }
        fields.notes.subject = String(id)
        let parameter = fields.parameter("parameter", unitsRequired: true)
        var sensor = OpenAQSensor(id: id, locationID: locationID, name: fields.text("name"), parameter: parameter)
        sensor.datetimeFirst = fields.datetime("datetimeFirst", required: false)
        sensor.datetimeLast = fields.datetime("datetimeLast", required: false)
        return fields.notes.keep(FeedRecord(sensor))
    }

    // MARK: - Latest

    static let latestSchema = FieldSchema([
        "sensorsId", "locationsId", "datetime/utc", "datetime/local", "value", "coordinates/latitude", "coordinates/longitude",
    ])

    /// One latest value; `locationID` stands in when the row names no location (the request's).
    static func latest(_ item: ItemFields, locationID: Int?) -> ItemOutcome {
        var fields = OpenAQFields(item, noun: "latest")
        guard let sensorID = fields.id("sensorsId", required: true, skipping: "row") else { return fields.skipped() }
        fields.notes.subject = "sensor \(sensorID)"
        guard let location = fields.id("locationsId", required: locationID == nil, skipping: locationID == nil ? "row" : nil) ?? locationID else {
            return fields.skipped()
        }
        guard let datetime = fields.datetime("datetime", required: true, skipping: "row") else { return fields.skipped() }
        fields.notes.qualifier = OpenAQTime.format(datetime.utc)
        let value = fields.number("value", required: true, missing: "value is null; it is stored as NULL, not 0.")
        let (latitude, longitude) = fields.coordinates("coordinates")
        return fields.notes.keep(FeedRecord(OpenAQLatest(sensorID: sensorID, locationID: location, datetime: datetime, value: value,
                                                         latitude: latitude, longitude: longitude)))
    }

    // MARK: - Hours

    static let hourlySchema = FieldSchema([
        "value", "flagInfo/hasFlags", "parameter/id", "parameter/name", "parameter/units", "parameter/displayName",
        "period/label", "period/interval", "period/datetimeFrom/utc", "period/datetimeFrom/local",
        "period/datetimeTo/utc", "period/datetimeTo/local", "coordinates/latitude", "coordinates/longitude",
    ] + OpenAQSummary.fields.map { "summary/" + $0.name } + [
        "coverage/expectedCount", "coverage/expectedInterval", "coverage/observedCount", "coverage/observedInterval",
        "coverage/percentComplete", "coverage/percentCoverage", "coverage/datetimeFrom/utc", "coverage/datetimeFrom/local",
        "coverage/datetimeTo/utc", "coverage/datetimeTo/local",
    ])

    /// One hour of `sensorID`, or nil (with the reason) when its period is unusable or not one
    /// hour long.
    static func hour(_ item: ItemFields, sensorID: Int) -> ItemOutcome {
        var fields = OpenAQFields(item, noun: "hour", subject: "sensor \(sensorID)")
        let from = fields.datetime("period/datetimeFrom", required: true, skipping: "row")
        let to = fields.datetime("period/datetimeTo", required: true, skipping: "row")
        guard let from, let to else { return fields.skipped() }
        fields.notes.qualifier = OpenAQTime.format(to.utc)
        guard to.utc.timeIntervalSince(from.utc) == 3600 else {
            let label = fields.text("period/label") ?? "?"
            return fields.notes.skip(.openAQNotHourly, field: "period", value: label,
                                     "The period \(OpenAQTime.format(from.utc))…\(OpenAQTime.format(to.utc)) (\(label)) is not one hour; the row is skipped.")
        }
        var hour = OpenAQHourly(sensorID: sensorID, periodFrom: from, periodTo: to, parameter: fields.parameter("parameter", unitsRequired: true))
        hour.periodLabel = fields.text("period/label")
        hour.periodInterval = fields.text("period/interval")
        hour.value = fields.number("value", required: true,
                                   missing: "value is null: OpenAQ computed no average for this hour; it is stored as NULL, not 0.")
        hour.hasFlags = fields.boolean("flagInfo/hasFlags")
        (hour.latitude, hour.longitude) = fields.coordinates("coordinates")
        for (name, path) in OpenAQSummary.fields { hour.summary[keyPath: path] = fields.number("summary/" + name) }
        var coverage = OpenAQCoverage()
        coverage.expectedCount = fields.count("coverage/expectedCount")
        coverage.expectedInterval = fields.text("coverage/expectedInterval")
        coverage.observedCount = fields.count("coverage/observedCount")
        coverage.observedInterval = fields.text("coverage/observedInterval")
        coverage.percentComplete = fields.nonNegative("coverage/percentComplete")
        coverage.percentCoverage = fields.nonNegative("coverage/percentCoverage")
        coverage.datetimeFrom = fields.datetime("coverage/datetimeFrom", required: false)
        coverage.datetimeTo = fields.datetime("coverage/datetimeTo", required: false)
        if let percent = coverage.percentComplete, percent > 100 {
            fields.notes.note(.openAQCoverageOver100, field: "coverage.percentComplete", value: item["coverage/percentComplete"],
                              "coverage.percentComplete is \(Self.shortest(percent)) %, above 100: kept as delivered, but it is not a completeness.")
        }
        hour.coverage = coverage
        return fields.notes.keep(FeedRecord(hour))
    }

    // MARK: - Duplicates

    /// `outcomes` with every record after the first of its key dropped (noted where it was).
    static func firstOfEachKey<Key: Hashable>(_ outcomes: [(position: Int, noun: String, outcome: ItemOutcome)],
                                              key: (FeedRecord) -> Key?, describe: (Key) -> String) -> [ItemOutcome] {
        var seen: [Key: String] = [:]
        return outcomes.map { entry in
            guard let record = entry.outcome.record, let k = key(record) else { return entry.outcome }
            if let first = seen[k] {
                let note = duplicate(of: describe(k), firstIn: first, position: entry.position, noun: entry.noun, skipping: "later row is skipped")
                return ItemOutcome(record: nil, diagnostics: entry.outcome.diagnostics + note.diagnostics)
            }
            seen[k] = "\(entry.noun) \(entry.position)"
            return entry.outcome
        }
    }

    /// The skip of a row whose key (`what`) an earlier row (`first`) already gave.
    static func duplicate(of what: String, firstIn first: String, position: Int, noun: String, skipping: String) -> ItemOutcome {
        var notes = ItemDiagnostics(position: position, subject: what, noun: noun)
        let place = first.prefix(1).uppercased() + first.dropFirst()
        return notes.skip(.openAQDuplicateRow, field: nil, value: nil, "\(place) already gave \(what); this \(skipping).")
    }

    /// `value` in its shortest exact form (`150`, `5844700`, `100.5`), for messages.
    static func shortest(_ value: Double) -> String {
        value == value.rounded() && value.magnitude < 1e15 ? String(Int(value)) : String(value)
    }
}
