import Domain
import Foundation

/// OpenAQ's timestamps: read from the wire only when they carry an explicit offset, written
/// back always in UTC with a `Z`.
///
/// OpenAQ reads a datetime *without* an offset in the location's own time zone, so feedline
/// never sends one (`format` always ends in `Z`) and never guesses one when reading (`parse`
/// refuses `2024-03-06T05:00:00`).
public enum OpenAQTime {
    /// The instant of `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM|±HH)`, or nil for anything
    /// else — including a datetime without an offset, a date alone, or an impossible field
    /// (month 13, hour 24, offset beyond ±18:00).
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ digit(bytes[$0]) != nil }), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let date = LocalDate(iso: String(decoding: bytes[0..<10], as: UTF8.self)),
              let hour = digits(bytes, 11, 2), let minute = digits(bytes, 14, 2), let second = digits(bytes, 17, 2),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        var i = 19
        var fraction = 0.0
        if bytes[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < bytes.count, let d = digit(bytes[i]) {
                fraction += Double(d) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < bytes.count else { return nil }  // no offset: refused, never guessed
        let offsetSeconds: Int
        switch bytes[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard i + 1 == bytes.count else { return nil }
            offsetSeconds = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
            let rest = Array(bytes[(i + 1)...])
            let hours: Int, minutes: Int
            switch rest.count {
            case 2:
                guard let h = digits(rest, 0, 2) else { return nil }
                (hours, minutes) = (h, 0)
            case 4:
                guard let h = digits(rest, 0, 2), let m = digits(rest, 2, 2) else { return nil }
                (hours, minutes) = (h, m)
            case 5:
                guard rest[2] == UInt8(ascii: ":"), let h = digits(rest, 0, 2), let m = digits(rest, 3, 2) else { return nil }
                (hours, minutes) = (h, m)
            default:
                return nil
            }
            guard minutes <= 59, hours * 60 + minutes <= 18 * 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        let local = date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(local - offsetSeconds) + fraction)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`: how feedline sends `datetime_from`/`datetime_to` and stores UTC
    /// times (whole seconds, rounded down).
    public static func format(_ instant: Date) -> String { iso8601UTC(instant) }

    /// Whole Unix seconds of `instant`, rounded down (how bookmarks hold instants).
    public static func seconds(_ instant: Date) -> Int64 { Int64(instant.timeIntervalSince1970.rounded(.down)) }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func digits(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= bytes.count else { return nil }
        var value = 0
        for k in at..<(at + count) {
            guard let d = digit(bytes[k]) else { return nil }
            value = value * 10 + d
        }
        return value
    }
}
