import Domain
import FeedCore
import Pipeline

// MARK: - Wire field sets

/// The field names of one AirKorea item kind, exactly as on the wire, numbered in declaration
/// order. Each case's name *is* the wire name, so the schema is built once from the cases and
/// a mapping reads `item[.pm10Value]` by position, never by looking a name up per item.
protocol WireFields: CaseIterable, RawRepresentable where RawValue == Int {
    /// The schema built from the cases, in order (store it in a `static let`).
    static var schema: FieldSchema { get }
}

extension WireFields {
    /// Builds the schema from the case names (call once, from a `static let`).
    static func makeSchema(prose: [Self] = []) -> FieldSchema {
        FieldSchema(allCases.map { String(describing: $0) }, prose: Set(prose.map { $0.wireName }))
    }

    /// The wire name of this field.
    var wireName: String { String(describing: self) }
}

extension ItemFields {
    /// The raw value of `field`, read by schema position (nil when absent or JSON `null`).
    subscript<Field: WireFields>(_ field: Field) -> String? {
        let i = field.rawValue
        return i < values.count ? values[i] : nil
    }
}

// MARK: - What one item became

/// The result of mapping one item: a record (or nil when the item is skipped) and what was odd
/// about it. Mapping is pure; the decoder forwards both to the sink.
struct ItemOutcome {
    var record: FeedRecord?
    var diagnostics: [Diagnostic]
}

// MARK: - Reading raw strings

/// The raw-string rules every AirKorea field follows: all values are strings; `-`, `null`, an
/// empty string or element and the legacy `*` mean "missing" (nil, never 0).
enum WireValue {
    /// The value with surrounding whitespace removed, or nil when it is a missing marker.
    /// The common case (no padding) costs no allocation.
    static func present(_ raw: String?) -> Substring? {
        guard let raw else { return nil }
        var text = Substring(raw)
        if let first = text.utf8.first, let last = text.utf8.last, isSpace(first) || isSpace(last) {
            text = text.trimmingASCIISpace()
        }
        return isMissingMarker(text) ? nil : text
    }

    /// A text field: trimmed, nil when missing.
    static func text(_ raw: String?) -> String? {
        present(raw).map(String.init)
    }

    /// Free text (forecast causes, overviews): trimmed, CRLF folded to LF so XML (whose parser
    /// normalises line ends) and JSON give the same string; nil when missing.
    static func prose(_ raw: String?) -> String? {
        guard let text = present(raw) else { return nil }
        guard text.utf8.contains(13) else { return String(text) }
        return String(text).replacingCRLF()
    }

    static func isMissingMarker(_ text: Substring) -> Bool {
        let bytes = text.utf8
        switch bytes.count {
        case 0: return true
        case 1: return bytes.first.map { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "*") } ?? true
        case 4: return bytes.elementsEqual("null".utf8) || bytes.elementsEqual("NULL".utf8)
        default: return false
        }
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }
}

extension Substring {
    /// This text without leading and trailing ASCII spaces, tabs and line breaks.
    func trimmingASCIISpace() -> Substring {
        var start = startIndex, end = endIndex
        while start < end, let byte = self[start].asciiValue, WireValue.isSpace(byte) { start = index(after: start) }
        while end > start {
            let before = index(before: end)
            guard let byte = self[before].asciiValue, WireValue.isSpace(byte) else { break }
            end = before
        }
        return self[start..<end]
    }
}

extension String {
    /// This text with every CR LF (and lone CR) turned into LF.
    func replacingCRLF() -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var previousWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out.unicodeScalars.append("\n")
                previousWasCR = true
                continue
            }
            if scalar == "\n" && previousWasCR { previousWasCR = false; continue }
            previousWasCR = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}

// MARK: - Field reader with diagnostics

/// Plausible ranges, so a sensor glitch or a sign error becomes a diagnostic rather than a row.
enum PlausibleRange {
    /// PM10 and PM2.5, µg/m³ (yellow-dust peaks reach about 1,000–1,500).
    static let particulate: ClosedRange<Double> = 0...2000
    /// SO2, CO, O3, NO2, ppm.
    static let gas: ClosedRange<Double> = 0...10
    /// Korean CAI (`khaiValue`), 0…500.
    static let khai: ClosedRange<Double> = 0...500
    /// A distance from a query point, km (South Korea is about 1,000 km across).
    static let distanceKm: ClosedRange<Double> = 0...2000
    /// Any finite number (the caller judges the value itself).
    static let anyFinite: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
}

/// Reads one item's fields into typed values, collecting a diagnostic for every value that was
/// present but unusable. Diagnostics name the item (`item 3 (도봉구 2023-05-13 15:00) pm10Value`).
struct FieldReader {
    let position: Int
    /// What identifies the item to a reader of diagnostics, e.g. `도봉구` and `2023-05-13 15:00`
    /// (kept apart and joined only when a diagnostic is written, so clean items cost nothing).
    var name: String?
    var time: String?
    private(set) var diagnostics: [Diagnostic] = []

    init(position: Int, name: String? = nil, time: String? = nil) {
        self.position = position
        self.name = name
        self.time = time
    }

    func location(_ field: String?) -> String {
        var text = "item \(position)"
        let subject = [name, time].compactMap { $0 }.joined(separator: " ")
        if !subject.isEmpty { text += " (\(subject))" }
        if let field { text += " \(field)" }
        return text
    }

    mutating func note(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) {
        diagnostics.append(Diagnostic(code: code, message: message, location: location(field), value: value))
    }

    /// The outcome for an item that cannot become a record, with the reason as a diagnostic.
    mutating func skip(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) -> ItemOutcome {
        note(code, field: field, value: value, message)
        return ItemOutcome(record: nil, diagnostics: diagnostics)
    }

    /// The outcome for an item that became `record`.
    func keep(_ record: FeedRecord) -> ItemOutcome {
        ItemOutcome(record: record, diagnostics: diagnostics)
    }

    /// A number within `range`; nil when missing, unparsable or implausible (the last two noted).
    mutating func number<Field: WireFields>(_ raw: String?, _ field: Field, range: ClosedRange<Double>, unit: String) -> Double? {
        guard let text = WireValue.present(raw) else { return nil }
        guard Self.isPlainDecimal(text), let value = Double(text), value.isFinite else {
            note(.unparsableNumber, field: field.wireName, value: raw,
                 "\(field.wireName) is not a number; it is stored as missing, not as 0.")
            return nil
        }
        guard range.contains(value) else {
            note(.implausibleValue, field: field.wireName, value: raw,
                 "\(field.wireName) \(String(text))\(unit.isEmpty ? "" : " \(unit)") is outside the plausible range "
                     + "\(Self.plain(range.lowerBound))…\(Self.plain(range.upperBound))\(unit.isEmpty ? "" : " \(unit)"); it is stored as missing.")
            return nil
        }
        return value
    }

    /// Whether `text` is a plain decimal as AirKorea writes numbers (`-`? digits, optionally `.`
    /// digits). `Double(_:)` alone would also take hex floats (`0x10`), exponents that
    /// underflow to 0 (`1e-400`), `nan` and `inf`.
    static func isPlainDecimal(_ text: some StringProtocol) -> Bool {
        var digitsBefore = 0, digitsAfter = 0, seenDot = false, first = true
        for byte in text.utf8 {
            defer { first = false }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenDot { digitsAfter += 1 } else { digitsBefore += 1 }
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard first else { return false }
            case UInt8(ascii: "."):
                guard !seenDot else { return false }
                seenDot = true
            default:
                return false
            }
        }
        return digitsBefore > 0 && (!seenDot || digitsAfter > 0)
    }

    /// An AirKorea grade 1…4; nil when missing, noted when present but not a grade.
    mutating func grade<Field: WireFields>(_ raw: String?, _ field: Field) -> AirKoreaGrade? {
        guard let text = WireValue.present(raw) else { return nil }
        if text.utf8.count == 1, let digit = text.utf8.first, digit >= 49, digit <= 52 {
            return AirKoreaGrade(rawValue: Int(digit) - 48)
        }
        note(.unparsableGrade, field: field.wireName, value: raw,
             "\(field.wireName) is not a grade 1…4; it is stored as missing.")
        return nil
    }

    /// A status flag (`통신장애`, `점검 및 교정` …); nil when missing.
    func flag(_ raw: String?) -> MeasurementFlag? {
        guard let text = WireValue.present(raw) else { return nil }
        return MeasurementFlag(airKorea: String(text))
    }

    /// A whole number such as a year; nil when missing, noted when unparsable.
    mutating func integer<Field: WireFields>(_ raw: String?, _ field: Field) -> Int? {
        guard let text = WireValue.present(raw) else { return nil }
        guard let value = Int(text) else {
            note(.unparsableNumber, field: field.wireName, value: raw,
                 "\(field.wireName) is not a whole number; it is stored as missing.")
            return nil
        }
        return value
    }

    /// `1000` for 1000.0, `0.5` for 0.5: short, exact text for messages.
    static func plain(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
