import Domain
import FeedCore
import Foundation
import Pipeline

/// Turns the entries of an air pollution `list` into `AirPollutionReading`s.
///
/// Rules: `dt` is the key — an entry without a usable one is skipped with a diagnostic, and of
/// two entries with the same `dt` the first is kept; `main.aqi` is kept as delivered when it is
/// 1…5; each component is a non-negative number of µg/m³, and a missing or unusable one is
/// stored as missing (never 0) with a diagnostic. The list is not assumed to be sorted: the
/// readings are delivered in `dt` order whatever order the entries came in.
enum AirPollutionMapping {
    /// The fields of one entry.
    static let schema = FieldSchema(["dt", "main/aqi"] + AirPollutionComponents.fields.map { "components/" + $0.name })

    /// Entry times before 2000-01-01 or after 2100-01-01 UTC are not plausible.
    static let plausibleSeconds: ClosedRange<Int> = 946_684_800...4_102_444_800

    /// The readings of `items` (in `dt` order) with their diagnostics, located at the place the
    /// answer is for.
    static func map(_ items: [ItemFields], latitude: Double, longitude: Double, kind: AirPollutionKind) -> [ItemOutcome] {
        var mapped: [(time: Date?, position: Int, outcome: ItemOutcome)] = []
        var seen: [Date: Int] = [:]
        for item in items {
            var outcome = map(item, latitude: latitude, longitude: longitude, kind: kind)
            let time = outcome.record?.as(AirPollutionReading.self)?.observedAt
            if let time {
                if let first = seen[time] {
                    var notes = ItemDiagnostics(position: item.position, subject: iso8601UTC(time), noun: "entry")
                    notes.note(.duplicateTime, field: "dt", value: item["dt"],
                               "Entry \(first) already holds \(iso8601UTC(time)); this later entry for the same time is skipped.")
                    outcome = ItemOutcome(record: nil, diagnostics: outcome.diagnostics + notes.diagnostics)
                } else {
                    seen[time] = item.position
                }
            }
            mapped.append((time, item.position, outcome))
        }
        // Skipped entries (no time) keep their place at the end, in list order.
        mapped.sort { a, b in
            switch (a.time, b.time) {
            case let (x?, y?): return x != y ? x < y : a.position < b.position
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.position < b.position
            }
        }
        return mapped.map(\.outcome)
    }

    /// One entry as a reading, or nil (with the reason) when it has no usable `dt`.
    static func map(_ item: ItemFields, latitude: Double, longitude: Double, kind: AirPollutionKind) -> ItemOutcome {
        var notes = ItemDiagnostics(position: item.position, noun: "entry")
        for diagnostic in item.readerDiagnostics(noun: "entry") { notes.add(diagnostic) }
        let rawTime = item["dt"]
        guard let text = WireValue.standard.text(rawTime) else {
            return notes.skip(.missingValue, field: "dt", value: rawTime, "The entry has no dt, the hour it is for; it is skipped.")
        }
        guard let seconds = WireValue.standard.integer(text) else {
            return notes.skip(.unparsableNumber, field: "dt", value: rawTime, "dt is not Unix seconds; the entry is skipped.")
        }
        guard plausibleSeconds.contains(seconds) else {
            return notes.skip(.outOfRange, field: "dt", value: rawTime, "dt \(text) is outside 2000…2100; the entry is skipped.")
        }
        let time = Date(timeIntervalSince1970: TimeInterval(seconds))
        notes.subject = iso8601UTC(time)

        var reader = FieldValues(notes: notes)
        let aqi = reader.integer(item["main/aqi"], field: "main.aqi", in: 1...5, required: true)
        var components = AirPollutionComponents()
        for (name, path) in AirPollutionComponents.fields {
            components[keyPath: path] = reader.number(item["components/" + name], field: "components." + name, in: 0...Double.greatestFiniteMagnitude,
                                                      unit: "µg/m³", required: true)
        }
        let reading = AirPollutionReading(latitude: latitude, longitude: longitude, observedAt: time, kind: kind, aqi: aqi, components: components)
        return reader.notes.keep(FeedRecord(reading))
    }

    /// The `dt` of an entry, when it is usable.
    static func time(of item: ItemFields) -> Date? {
        guard let seconds = WireValue.standard.integer(item["dt"]), plausibleSeconds.contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The kind of an answer fetched without a known request (a fixture or a bare file in a
    /// replay): a file name saying `forecast`, `history` or `current` decides; otherwise an
    /// answer of at most one entry is current, and a longer one is a forecast when an entry
    /// lies after the time it was fetched (or staged), history when none does.
    static func inferredKind(fileName: String, entryTimes: [Date], fetchedAt: Date) -> AirPollutionKind {
        let name = fileName.lowercased()
        if name.contains("forecast") { return .forecast }
        if name.contains("history") { return .history }
        if name.contains("current") { return .current }
        if entryTimes.count <= 1 { return .current }
        return entryTimes.contains { $0 > fetchedAt } ? .forecast : .history
    }
}

/// Reads numbers out of wire strings with the rules every OpenWeather field shares: missing
/// (absent, `null`, `""`) is nil — noted when the field is one the answer should carry; text
/// that is not a finite number, and numbers outside the field's range, are nil with a
/// diagnostic. Never 0 in place of a missing value.
struct FieldValues {
    var notes: ItemDiagnostics

    /// A finite number in `range`, else nil (noted).
    mutating func number(_ raw: String?, field: String, in range: ClosedRange<Double>, unit: String, required: Bool) -> Double? {
        guard let text = WireValue.standard.text(raw) else {
            if required { notes.note(.missingValue, field: field, value: raw, "\(field) is missing; it is stored as missing, not 0.") }
            return nil
        }
        guard let value = WireValue.decimal(text) else {
            notes.note(.unparsableNumber, field: field, value: raw, "\(field) is not a number; it is stored as missing.")
            return nil
        }
        guard range.contains(value) else {
            let (value, bound) = (Self.measure(text, unit), Self.measure(Self.describe(range), unit))
            notes.note(.outOfRange, field: field, value: raw, "\(field) \(value) is not \(bound); it is stored as missing.")
            return nil
        }
        return value
    }

    /// A whole number in `range`, else nil (noted).
    mutating func integer(_ raw: String?, field: String, in range: ClosedRange<Int>, required: Bool) -> Int? {
        guard let text = WireValue.standard.text(raw) else {
            if required { notes.note(.missingValue, field: field, value: raw, "\(field) is missing; it is stored as missing, not 0.") }
            return nil
        }
        guard let value = WireValue.standard.integer(text) else {
            notes.note(.unparsableNumber, field: field, value: raw, "\(field) is not a whole number; it is stored as missing.")
            return nil
        }
        guard range.contains(value) else {
            notes.note(.outOfRange, field: field, value: raw, "\(field) \(text) is not in \(range.lowerBound)…\(range.upperBound); it is stored as missing.")
            return nil
        }
        return value
    }

    /// Text, trimmed; nil when missing.
    func text(_ raw: String?) -> String? { WireValue.standard.text(raw) }

    /// `amount` with `unit`: `45 %`, `8.43 °C`, but `400°` for an angle.
    static func measure(_ amount: String, _ unit: String) -> String {
        unit.isEmpty ? amount : unit == "°" ? amount + unit : "\(amount) \(unit)"
    }

    /// `value` in its shortest exact form (`25`, `-251.65`), for messages.
    static func shortest(_ value: Double) -> String {
        value == value.rounded() && value.magnitude < 1e15 ? String(Int(value)) : String(value)
    }

    /// `in 0…100`, or `≥ 0` for an unbounded top.
    static func describe(_ range: ClosedRange<Double>) -> String {
        let n = shortest
        if range.upperBound == .greatestFiniteMagnitude { return "≥ \(n(range.lowerBound))" }
        return "in \(n(range.lowerBound))…\(n(range.upperBound))"
    }
}
