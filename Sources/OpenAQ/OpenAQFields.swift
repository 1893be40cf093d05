import FeedCore
import Foundation
import Pipeline

/// Reads typed values out of one OpenAQ item's wire strings, noting what is odd.
///
/// Rules every OpenAQ field shares: absent, `null` and `""` are missing (nil) — noted only when
/// the field is one the row needs; a number is any finite number, kept as delivered (OpenAQ's
/// values are stored unconverted, in the units that come with them); text that is not a number,
/// a boolean that is neither `true` nor `false`, a timestamp without an offset, coordinates off
/// the globe and negative counts are nil with a diagnostic. Never 0 in place of a missing value.
struct OpenAQFields {
    let item: ItemFields
    var notes: ItemDiagnostics

    init(_ item: ItemFields, noun: String, subject: String? = nil) {
        self.item = item
        notes = ItemDiagnostics(position: item.position, subject: subject, noun: noun)
        for diagnostic in item.readerDiagnostics(noun: noun) { notes.add(diagnostic) }
    }

    /// The instants a timestamp may name (1900-01-01 … 2200-01-01 UTC).
    static let plausible = Date(timeIntervalSince1970: -2_208_988_800)...Date(timeIntervalSince1970: 7_258_118_400)

    /// `a/b/c` as `a.b.c`, the way messages name a field.
    static func dotted(_ path: String) -> String { path.replacingOccurrences(of: "/", with: ".") }

    /// Text, trimmed; nil when missing.
    func text(_ path: String) -> String? { WireValue.standard.text(item[path]) }

    /// A positive whole number (an id), else nil — noted when it is unusable, or missing and
    /// `required`. With `skipping`, the note says that row (`location`, `row` …) is skipped.
    mutating func id(_ path: String, required: Bool, skipping row: String? = nil) -> Int? {
        let raw = item[path]
        let field = Self.dotted(path)
        guard let text = WireValue.standard.text(raw) else {
            if required { notes.note(.missingValue, field: field, value: raw, "\(field) is missing\(Self.consequence(row)).") }
            return nil
        }
        guard let n = Int(text), n > 0 else {
            notes.note(.unparsableNumber, field: field, value: raw, "\(field) is not a positive whole number\(Self.consequence(row, else: "it is stored as missing")).")
            return nil
        }
        return n
    }

    /// `; the row is skipped` for a key field, else `; <otherwise>` (or nothing).
    static func consequence(_ row: String?, else otherwise: String? = nil) -> String {
        if let row { return "; the \(row) is skipped" }
        return otherwise.map { "; \($0)" } ?? ""
    }

    /// What a row skipped for a key field its notes already explain becomes.
    func skipped() -> ItemOutcome { ItemOutcome(record: nil, diagnostics: notes.diagnostics) }

    /// A finite number as delivered, else nil — noted when it is not a number, or missing and
    /// `required` (with `missing` saying what a missing value means).
    mutating func number(_ path: String, required: Bool = false, missing: String? = nil) -> Double? {
        let raw = item[path]
        guard let text = WireValue.standard.text(raw) else {
            if required {
                notes.note(.missingValue, field: Self.dotted(path), value: raw,
                           missing ?? "\(Self.dotted(path)) is missing; it is stored as missing, not 0.")
            }
            return nil
        }
        guard let value = WireValue.decimal(text) else {
            notes.note(.unparsableNumber, field: Self.dotted(path), value: raw, "\(Self.dotted(path)) is not a number; it is stored as missing.")
            return nil
        }
        return value
    }

    /// A number that cannot be negative (a percentage), else nil (noted).
    mutating func nonNegative(_ path: String) -> Double? {
        guard let value = number(path) else { return nil }
        guard value >= 0 else {
            notes.note(.openAQNegativeCount, field: Self.dotted(path), value: item[path],
                       "\(Self.dotted(path)) is negative; it is stored as missing.")
            return nil
        }
        return value
    }

    /// A whole number ≥ 0 (a count), else nil (noted).
    mutating func count(_ path: String) -> Int? {
        let raw = item[path]
        guard let text = WireValue.standard.text(raw) else { return nil }
        guard let n = WireValue.standard.integer(text) else {
            notes.note(.unparsableNumber, field: Self.dotted(path), value: raw, "\(Self.dotted(path)) is not a whole number; it is stored as missing.")
            return nil
        }
        guard n >= 0 else {
            notes.note(.openAQNegativeCount, field: Self.dotted(path), value: raw, "\(Self.dotted(path)) is negative; it is stored as missing.")
            return nil
        }
        return n
    }

    /// `true` or `false`, else nil (noted when present).
    mutating func boolean(_ path: String) -> Bool? {
        let raw = item[path]
        guard let text = WireValue.standard.text(raw) else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default:
            notes.note(.openAQBadBoolean, field: Self.dotted(path), value: raw, "\(Self.dotted(path)) is neither true nor false; it is stored as missing.")
            return nil
        }
    }

    /// The pair `{utc, local}` under `prefix`, or nil — noted when `utc` is unusable (no offset,
    /// not a timestamp), or missing and `required`; with `skipping`, the note says that row is
    /// skipped. `local` is kept as delivered.
    mutating func datetime(_ prefix: String, required: Bool, skipping row: String? = nil) -> OpenAQDatetime? {
        let path = prefix + "/utc"
        let raw = item[path]
        let field = Self.dotted(path)
        guard let text = WireValue.standard.text(raw) else {
            if required { notes.note(.missingValue, field: field, value: raw, "\(field) is missing\(Self.consequence(row)).") }
            return nil
        }
        guard let instant = OpenAQTime.parse(text) else {
            notes.note(.openAQBadDatetime, field: field, value: raw,
                       "\(field) is not a timestamp with an offset, and is not guessed\(Self.consequence(row, else: "it is stored as missing")).")
            return nil
        }
        guard Self.plausible.contains(instant) else {
            notes.note(.openAQBadDatetime, field: field, value: raw,
                       "\(field) lies outside 1900…2200\(Self.consequence(row, else: "it is stored as missing")).")
            return nil
        }
        return OpenAQDatetime(utc: instant, local: self.text(prefix + "/local"))
    }

    /// `latitude` and `longitude` under `prefix`: both on the globe, else both nil (noted when
    /// either was present).
    mutating func coordinates(_ prefix: String) -> (latitude: Double?, longitude: Double?) {
        let latPath = prefix + "/latitude", lonPath = prefix + "/longitude"
        let rawLat = WireValue.standard.text(item[latPath]), rawLon = WireValue.standard.text(item[lonPath])
        if rawLat == nil && rawLon == nil { return (nil, nil) }
        if let rawLat, let rawLon, let lat = WireValue.decimal(rawLat), let lon = WireValue.decimal(rawLon),
           (-90...90).contains(lat), (-180...180).contains(lon) {
            return (lat, lon)
        }
        notes.note(.openAQBadCoordinate, field: Self.dotted(prefix), value: "\(rawLat ?? "nil"),\(rawLon ?? "nil")",
                   "\(Self.dotted(prefix)) is not a latitude in −90…90 and a longitude in −180…180; both are stored as missing.")
        return (nil, nil)
    }

    /// `parameter {id, name, units, displayName}` under `prefix`; a missing `units` is noted
    /// when `unitsRequired` (a value without its unit cannot be read).
    mutating func parameter(_ prefix: String, unitsRequired: Bool) -> OpenAQParameter {
        let units = text(prefix + "/units")
        if units == nil && unitsRequired {
            notes.note(.missingValue, field: Self.dotted(prefix + "/units"), value: item[prefix + "/units"],
                       "\(Self.dotted(prefix + "/units")) is missing: the value's unit is unknown (stored as NULL).")
        }
        return OpenAQParameter(id: id(prefix + "/id", required: false), name: text(prefix + "/name"), units: units,
                               displayName: text(prefix + "/displayName"))
    }
}
