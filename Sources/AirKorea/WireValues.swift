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

// MARK: - Reading raw strings

extension WireValue {
    /// The raw-string rules every AirKorea field follows: all values are strings; `-`, `null`,
    /// an empty string or element and the legacy `*` mean "missing" (nil, never 0).
    static let airKorea = WireValue(missingCharacters: "-*")
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

/// Typed reads of one item's fields, noting a diagnostic for every value that was present but
/// unusable (`item 3 (도봉구 2023-05-13 15:00) pm10Value`).
extension ItemDiagnostics {
    /// A number within `range`; nil when missing, unparsable or implausible (the last two noted).
    mutating func number<Field: WireFields>(_ raw: String?, _ field: Field, range: ClosedRange<Double>, unit: String) -> Double? {
        // The common case, read from the raw bytes in place: a plain decimal (no padding, no
        // missing marker: those are not plain decimals) within range. Anything else takes the long
        // way below, which decides and notes it.
        if let raw, let value = raw.utf8.withContiguousStorageIfAvailable(Self.plainDecimal) ?? nil, range.contains(value) {
            return value
        }
        guard let text = WireValue.airKorea.present(raw) else { return nil }
        guard let value = Self.plainDecimal(text) else {
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

    /// The value of `text` when it is a plain decimal (`isPlainDecimal`) and finite, else nil:
    /// what `Double(_:)` gives, read from the bytes in place. With at most 15 significant digits
    /// and 22 decimals (every AirKorea value) the digits as a whole number and the power of ten
    /// are both exact doubles, so their quotient is the correctly rounded value, as `strtod`'s
    /// (Clinger's fast path); longer numbers go through `Double(_:)`.
    static func plainDecimal(_ text: Substring) -> Double? {
        // nil from the fast path: not plain, or too long for it; the long way decides.
        if let fast = text.utf8.withContiguousStorageIfAvailable(plainDecimal), let value = fast { return value }
        guard isPlainDecimal(text), let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The fast path of `plainDecimal(_:)`: the value of a plain decimal with at most 15
    /// significant digits and 22 decimals; nil for anything else (which may still be a plain
    /// decimal, too long for this path).
    static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0, significant = 0, before = 0, after = 0, seenDot = false, negative = false
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if mantissa > 0 || byte != UInt8(ascii: "0") { significant += 1 }
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                if seenDot { after += 1 } else { before += 1 }
            case UInt8(ascii: "-") where index == 0: negative = true
            case UInt8(ascii: "+") where index == 0: break
            case UInt8(ascii: ".") where !seenDot: seenDot = true
            default: return nil
            }
        }
        guard before > 0, !seenDot || after > 0, significant <= 15, after <= 22 else { return nil }
        let value = Double(mantissa) / powersOfTen[after]
        return negative ? -value : value
    }

    /// 10⁰ … 10²², each exactly representable as a Double.
    private static let powersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

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
        // The common case in place: one digit 1…4, nothing to trim; the rest takes the long way.
        if let raw, let grade = raw.utf8.withContiguousStorageIfAvailable({ bytes -> AirKoreaGrade? in
            bytes.count == 1 && bytes[0] >= 49 && bytes[0] <= 52 ? AirKoreaGrade(rawValue: Int(bytes[0]) - 48) : nil
        }) ?? nil {
            return grade
        }
        guard let text = WireValue.airKorea.present(raw) else { return nil }
        if text.utf8.count == 1, let digit = text.utf8.first, digit >= 49, digit <= 52 {
            return AirKoreaGrade(rawValue: Int(digit) - 48)
        }
        note(.unparsableGrade, field: field.wireName, value: raw,
             "\(field.wireName) is not a grade 1…4; it is stored as missing.")
        return nil
    }

    /// A status flag (`통신장애`, `점검 및 교정` …); nil when missing.
    func flag(_ raw: String?) -> MeasurementFlag? {
        guard let text = WireValue.airKorea.present(raw) else { return nil }
        return MeasurementFlag(airKorea: String(text))
    }

    /// A whole number such as a year; nil when missing, noted when unparsable.
    mutating func integer<Field: WireFields>(_ raw: String?, _ field: Field) -> Int? {
        guard let text = WireValue.airKorea.present(raw) else { return nil }
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
