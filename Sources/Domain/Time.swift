import Foundation

/// A calendar date with no time zone attached (year, month 1…12, day 1…31).
public struct LocalDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Builds a date, or returns nil when the fields do not name a real day.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...LocalDate.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    public init?(iso text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    public var daysSinceEpoch: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The date `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch z0: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.month = m
        self.day = d
    }

    /// This date moved by `days` (negative moves back).
    public func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    public static func < (a: LocalDate, b: LocalDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        guard (0...9999).contains(year) else { return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }
        return String(unsafeUninitializedCapacity: 10) { out in
            writeDate(into: out)
            return 10
        }
    }

    /// Writes `YYYY-MM-DD` into the first 10 bytes of `out` (years 0…9999).
    func writeDate(into out: UnsafeMutableBufferPointer<UInt8>) {
        writeDigits(year, width: 4, into: out, at: 0)
        out[4] = UInt8(ascii: "-")
        writeDigits(month, width: 2, into: out, at: 5)
        out[7] = UInt8(ascii: "-")
        writeDigits(day, width: 2, into: out, at: 8)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// One hour of local time in Asia/Seoul (KST, UTC+9, no daylight saving), keyed by the
/// *start* of the interval: `HourSlot(date: 2024-03-06, hour: 14)` is [14:00, 15:00) KST.
///
/// AirKorea labels each hourly average by the *end* of its interval, with hours 01…24, so the
/// label `2024-03-06 15:00` is slot (2024-03-06, 14) and `2024-03-06 24:00` is slot
/// (2024-03-06, 23), whose end is 2024-03-07 00:00 KST.
public struct HourSlot: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The KST calendar date on which the interval starts.
    public let date: LocalDate
    /// The KST hour at which the interval starts, 0…23.
    public let hour: Int

    /// Seconds east of UTC for Asia/Seoul (fixed since 1988; no daylight saving).
    public static let seoulOffsetSeconds = 9 * 3600

    public init?(date: LocalDate, hour: Int) {
        guard (0...23).contains(hour) else { return nil }
        self.date = date
        self.hour = hour
    }

    /// The slot whose interval ends at the AirKorea label `YYYY-MM-DD HH:mm` (HH 01…24, mm 00).
    /// Returns nil for anything else (including `00:00`, which AirKorea never sends).
    public init?(airKoreaLabel label: some StringProtocol) {
        let text = label.trimmingCharacters(in: .whitespaces)
        let halves = text.split(separator: " ", omittingEmptySubsequences: true)
        guard halves.count == 2, let date = LocalDate(iso: halves[0]) else { return nil }
        let hm = halves[1].split(separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, hm[0].count == 2, hm[1] == "00", let h = Int(hm[0]), (1...24).contains(h) else { return nil }
        self.init(date: date, hour: h - 1)
    }

    /// The slot containing `instant`.
    public init(containing instant: Date) {
        let local = Int((instant.timeIntervalSince1970).rounded(.down)) + HourSlot.seoulOffsetSeconds
        let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
        let secondOfDay = local - days * 86400
        self.date = LocalDate(daysSinceEpoch: days)
        self.hour = secondOfDay / 3600
    }

    /// The UTC instant at which the interval starts.
    public var start: Date {
        Date(timeIntervalSince1970: TimeInterval((date.daysSinceEpoch * 24 + hour) * 3600 - HourSlot.seoulOffsetSeconds))
    }

    /// The UTC instant at which the interval ends (AirKorea's label time).
    public var end: Date { start.addingTimeInterval(3600) }

    /// The AirKorea label for this slot: the end of the interval, `24:00` for the last hour.
    public var airKoreaLabel: String { "\(date) \(pad(hour + 1, 2)):00" }

    /// The next slot.
    public var next: HourSlot { HourSlot(containing: end) }

    public static func < (a: HourSlot, b: HourSlot) -> Bool { (a.date, a.hour) < (b.date, b.hour) }

    /// `YYYY-MM-DD HH` (interval start, KST).
    public var description: String { "\(date) \(pad(hour, 2))h KST" }
}

/// Formats an instant as `YYYY-MM-DDTHH:MM:SSZ`.
public func iso8601UTC(_ instant: Date) -> String {
    let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let sod = seconds - days * 86400
    let d = LocalDate(daysSinceEpoch: days)
    guard (0...9999).contains(d.year) else {
        return "\(d)T\(pad(sod / 3600, 2)):\(pad(sod % 3600 / 60, 2)):\(pad(sod % 60, 2))Z"
    }
    // Written byte by byte: this runs for every stored row, and interpolating padded pieces
    // cost more than the rest of binding the row.
    return String(unsafeUninitializedCapacity: 20) { out in
        d.writeDate(into: out)
        out[10] = UInt8(ascii: "T")
        writeDigits(sod / 3600, width: 2, into: out, at: 11)
        out[13] = UInt8(ascii: ":")
        writeDigits(sod % 3600 / 60, width: 2, into: out, at: 14)
        out[16] = UInt8(ascii: ":")
        writeDigits(sod % 60, width: 2, into: out, at: 17)
        out[19] = UInt8(ascii: "Z")
        return 20
    }
}

/// Writes the last `width` decimal digits of `n` (n ≥ 0), zero-padded, at `offset`.
@inline(__always)
func writeDigits(_ n: Int, width: Int, into out: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
    var n = n
    for i in stride(from: width - 1, through: 0, by: -1) {
        out[offset + i] = UInt8(truncatingIfNeeded: 48 + n % 10)
        n /= 10
    }
}

func pad(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
